"""One home per task type: what the framework knows about tool-call, state and code tasks.

A :class:`TaskType` holds everything that differs by type, and every other module asks it: the
access modes a monitor may be given and what each reveals (``suites.access``), the modes the
audit's input-label check covers (``audit.checks``), the default number of judgment rounds
(``config.TaskConfig.rounds``; the reported round is picked by one rule for every type,
``metrics.rounds``), the per-case sandbox limits that replace ``sandbox.limits`` by default
(``config.SandboxConfig.type_limits``), and the sentence the generation prompt uses to say what a
candidate of the type holds (``generation.prompts``). The config's ``AccessMode`` enum is built
from the modes declared here, so adding an access mode is one entry in a type's ``modes`` plus a
``conf/access/<name>.yaml`` that selects it.

This module sits below the config schema (it imports only the standard library) because the
schema's defaults and enums come from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping


@dataclass(frozen=True)
class AccessModeSpec:
    """One access mode: the candidate fields it reveals (None: the whole candidate) and whether
    the monitor may execute in the task's environment (``env.run_public``) at judgment time."""

    name: str
    fields: tuple[str, ...] | None
    executes: bool
    doc: str


@dataclass(frozen=True)
class TaskType:
    name: str
    candidate: str                          # what a candidate holds, as the prompt says it
    modes: tuple[AccessModeSpec, ...]       # the access modes a monitor of this type may get
    audit_modes: tuple[str, ...]            # C4's modes; the first is the suite's declared one
    rounds: int                             # default judgment rounds (paper App. E)
    limits: Mapping[str, float] = field(default_factory=dict)  # per-case limits replacing defaults

    def mode(self, name: str) -> AccessModeSpec | None:
        return next((m for m in self.modes if m.name == name), None)


TASK_TYPES: Mapping[str, TaskType] = MappingProxyType({t.name: t for t in (
    TaskType(
        "tool_call", "the raw text the solver produced and its parsed function calls",
        (AccessModeSpec("raw_parsed", ("raw", "calls"), False,
                        "raw text + parsed calls (paper default)"),
         AccessModeSpec("parsed", ("calls",), False, "parsed calls only"),
         AccessModeSpec("raw", ("raw",), False, "raw text only")),
        ("raw_parsed", "parsed", "raw"),
        # Tool-call verifiers are deterministic: judged once.
        rounds=1),
    TaskType(
        "state", "the solver's interaction record (its tool calls, their results, its final "
        "message)",
        (AccessModeSpec("record", None, False, "interaction record"),
         AccessModeSpec("record_exec", None, True, "interaction record + run_public")),
        ("record",),
        # State verifiers execute an environment: judged three times, the median-BA round.
        rounds=3),
    TaskType(
        "code", "the solver's patch, with the repository checkout reachable through env",
        (AccessModeSpec("patch", ("patch",), False, "the patch only"),
         AccessModeSpec("patch_checkout", ("patch",), True,
                        "the patch + repository checkout and run_public")),
        ("patch",),
        rounds=3,
        # A code verifier applies a patch and runs a library's tests per case: minutes.
        limits=MappingProxyType({"wall_seconds": 300.0, "cpu_seconds": 300, "memory_mb": 2048,
                                 "processes": 64, "file_size_mb": 64})),
)})


def access_modes() -> list[tuple[TaskType, AccessModeSpec]]:
    """Every declared access mode with its task type, in declaration order."""
    return [(t, m) for t in TASK_TYPES.values() for m in t.modes]


def type_of_mode(name: str) -> TaskType | None:
    """The task type an access mode belongs to, or None for a name no type declares."""
    return next((t for t, m in access_modes() if m.name == name), None)
