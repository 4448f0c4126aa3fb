"""The sandbox interface: run an untrusted verifier on one candidate at a time, far from secrets.

A :class:`Sandbox` opens one *session* per (verifier, task). Inside the session a worker process
(``worker.py``, standard library only) runs in an isolated filesystem that shows only the
verifier directory (read-only, at ``/verifier``), the task's public directory (read-only, at
``/task``) and a private scratch ``/tmp``. For every candidate the worker forks a fresh child
that imports ``/verifier/main.py``, calls ``verify(candidate, env)`` under rlimits and a wall
clock, and reports the return value. Hidden labels, other cases and reference verifiers never
enter the sandbox: the framework sends a candidate, nothing else, and gets a :class:`Verdict`.

Backends: ``bwrap`` (default, bubblewrap), ``unshare`` (fallback: rlimits plus network and PID
namespaces but no filesystem isolation, with a loud warning), ``docker`` (for cluster users).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Protocol

from monitorbench.config import LimitsConfig

# Reasons a verifier invocation yields no valid decision (outcome U). Stable strings: they are
# written into judgment files and MLflow tables, and users filter on them.
MISSING_VERIFIER = "missing_verifier"  # no main.py, or main.py has no callable verify
CRASH = "crash"                        # verify raised, or the child died on a signal
TIMEOUT = "timeout"                    # wall-clock limit reached
CPU_LIMIT = "cpu_limit"                # RLIMIT_CPU reached
MEMORY_LIMIT = "memory_limit"          # address-space limit reached (MemoryError or kill)
OUTPUT_LIMIT = "output_limit"          # printed more than the output cap
MALFORMED = "malformed"                # returned something that is not a conforming decision
SANDBOX_ERROR = "sandbox_error"        # the sandbox itself failed; the run records it and goes on
# The case left the sandbox in a state its clean-up could not undo (a tree too deep or too large
# to remove). The verifier's doing, so its U (never retried, never an infrastructure failure);
# the worker is replaced before the next case.
SANDBOX_TAMPERED = "sandbox_tampered"
U_REASONS = (MISSING_VERIFIER, CRASH, TIMEOUT, CPU_LIMIT, MEMORY_LIMIT, OUTPUT_LIMIT, MALFORMED,
             SANDBOX_ERROR, SANDBOX_TAMPERED)


# Per-case resource limits applied inside the sandbox: the config's schema is their one definition
# (the seven fields, their defaults and which of them change a judgment).
Limits = LimitsConfig


@dataclass(frozen=True)
class SandboxSpec:
    """How a session is set up. ``masked_paths`` are host paths hidden inside the sandbox even
    though their parent is visible (e.g. an installed package that ships answer keys)."""

    limits: Limits = field(default_factory=Limits)
    masked_paths: tuple[str, ...] = ()
    runtime: str = "none"              # in-sandbox env runtime (run_public) for the task type
    runtime_config: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """What one verifier invocation produced, before scoring.

    ``decision`` is "PASS" or "FAIL" when the verifier returned a conforming decision, else None
    and ``reason`` is one of :data:`U_REASONS`. ``detail`` is a short, capped explanation (an
    exception line, the signal, the limit hit), safe to store and display.
    """

    decision: str | None
    confidence: float | None = None
    reason: str = ""
    detail: str = ""
    seconds: float = 0.0
    executions: int = 0  # run_public calls the verifier made for this case
    # Capped tail of what the verifier printed. Judging ignores it; the generation scaffolds use
    # it to show a model what its draft printed and what a run_public probe returned.
    stdout: str = ""

    @property
    def outcome(self) -> str:
        """P, F or U, as the paper defines them."""
        if self.decision == "PASS":
            return "P"
        if self.decision == "FAIL":
            return "F"
        return "U"


class SandboxSession(Protocol):
    def judge(self, candidate: Mapping[str, Any]) -> Verdict:
        """Run the verifier on one candidate. Never raises for verifier misbehaviour."""


class Sandbox(Protocol):
    name: str

    def session(self, verifier_dir: Path, public_dir: Path, spec: SandboxSpec
                ) -> AbstractContextManager[SandboxSession]:
        """Start an isolated worker for one verifier and one task's public directory."""
