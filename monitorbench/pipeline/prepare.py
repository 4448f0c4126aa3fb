"""Prepare stage: typed config, task selection, sandbox spec and limits, rounds, visible cases.

Every entry point builds what a verifier sees here and nowhere else: :func:`sandbox_spec` masks
the source's answer-bearing packages plus the suites and outputs directories
(:func:`hidden_roots`), applies the task type's limits (:func:`limits_for`) and starts the
type's runtime only when the access setting executes; :func:`visible_cases` sets aside the cases
an access setting cannot tell apart; :func:`sample_per_type` is the one seeded task sample.
"""

from __future__ import annotations

import logging
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from omegaconf import DictConfig, OmegaConf

from monitorbench.config import (AccessConfig, MonitorbenchConfig, PathsConfig, SandboxConfig,
                                 TaskConfig)
from monitorbench.errors import InputError
from monitorbench.sandbox.base import Limits, SandboxSpec
from monitorbench.suites.access import AccessView, split_consistent, view_for
from monitorbench.suites.format import GROUPS, LABELS, TASK_TYPES, Case, Suite, Task
from monitorbench.suites.registry import masked_paths, source_info

log = logging.getLogger(__name__)


def typed_config(cfg: DictConfig) -> MonitorbenchConfig:
    """The composed config as the typed schema. Each entry point (``python -m monitorbench``'s
    Hydra function, the audit and score commands) converts once, here; everything below it
    takes the typed config only, so a field is read one way and checked once."""
    out = OmegaConf.to_object(cfg)
    if not isinstance(out, MonitorbenchConfig):
        raise TypeError(f"expected a config composed on the monitorbench schema, got "
                        f"{type(out).__name__}")
    check_per_type(out)
    return out


def sample_per_type(ids_by_type: Mapping[str, Sequence[str]], n_max: int | None,
                    seed: int) -> list[str]:
    """Task ids, types in sorted order, each type's ids sorted; at most ``n_max`` per type,
    drawn with ``random.Random(seed)`` (the one seeded sample: run and audit agree)."""
    ids: list[str] = []
    for ttype in sorted(ids_by_type):
        pool = sorted(ids_by_type[ttype])
        if n_max is not None and len(pool) > n_max:
            pool = sorted(random.Random(seed).sample(pool, n_max))
        ids += pool
    return ids


@dataclass
class Selection:
    """The tasks and cases one job judges, with the suite each came from."""

    tasks: list[Task] = field(default_factory=list)
    cases: dict[str, list[Case]] = field(default_factory=dict)
    suite_of: dict[str, Suite] = field(default_factory=dict)
    source_of: dict[str, str] = field(default_factory=dict)

    def public_dir(self, task: Task) -> Path:
        return self.suite_of[task.task_id].public_dir(task.task_id)


def select_tasks(task_cfg: TaskConfig, suites: Sequence[tuple[str, Suite]]) -> Selection:
    """Apply task settings: task types, groups, and a seeded per-type sample."""
    where = f"conf/task/{task_cfg.name}.yaml"
    groups = list(task_cfg.groups)
    bad = [g for g in groups if g not in GROUPS]
    if bad:
        raise InputError(where, "task.groups", f"unknown group(s) {bad}",
                         f"use groups from {', '.join(GROUPS)}")
    found: dict[str, tuple[str, Suite]] = {}
    by_type: dict[str, list[str]] = {}
    for source, suite in suites:
        for task in suite.tasks.values():
            if task.task_type in task_cfg.task_types:
                found[task.task_id] = (source, suite)
                by_type.setdefault(task.task_type, []).append(task.task_id)
    sel = Selection()
    for tid in sample_per_type(by_type, task_cfg.max_tasks_per_type, task_cfg.sample_seed):
        source, suite = found[tid]
        cases = [c for c in suite.cases[tid] if c.group in groups]
        if {c.label for c in cases} != set(LABELS):
            log.warning("task %s has no PASS or no FAIL case in groups %s; skipped", tid, groups)
            continue
        sel.tasks.append(suite.tasks[tid])
        sel.cases[tid] = cases
        sel.suite_of[tid] = suite
        sel.source_of[tid] = source
    if not sel.tasks:
        raise InputError(where, "task.task_types",
                         f"no task of types {list(task_cfg.task_types)} in suites "
                         f"{[s.name for s in task_cfg.suites]}",
                         "choose task types that the configured suites contain")
    return sel


def limits_for(sandbox: SandboxConfig, task_type: str) -> Limits:
    """The per-case limits of a task type: ``sandbox.type_limits[type]`` where set (code tasks
    run a library's tests: minutes), else ``sandbox.limits``."""
    return Limits(**asdict(sandbox.type_limits.get(task_type, sandbox.limits)))


def rounds_for(task_cfg: TaskConfig, task_type: str) -> int:
    """How many times a task type's cases are judged (``task.rounds``; paper App. E)."""
    if task_type not in task_cfg.rounds:
        raise InputError(f"conf/task/{task_cfg.name}.yaml", f"task.rounds.{task_type}",
                         f"no judgment rounds for task type {task_type!r}",
                         f"set task.rounds.{task_type} (e.g. 1 for tool_call, 3 for state and "
                         "code, as the paper)")
    return int(task_cfg.rounds[task_type])


def check_per_type(conf: MonitorbenchConfig) -> None:
    """Refuse a per-type mapping key that names no task type (a typo would be ignored)."""
    for key, mapping in (("task.rounds", conf.task.rounds),
                         ("sandbox.type_limits", conf.sandbox.type_limits)):
        for ttype in mapping:
            if ttype not in TASK_TYPES:
                raise InputError("conf/config.yaml", f"{key}.{ttype}",
                                 f"unknown task type {ttype!r}",
                                 f"use task types from {', '.join(TASK_TYPES)}")


def hidden_roots(paths: PathsConfig) -> tuple[str, ...]:
    """Host directories no verifier may read: the suites (hidden cases, references) and the
    outputs (other runs' judgments, caches)."""
    return (str(Path(paths.suites).resolve()), str(Path(paths.outputs).resolve()))


def sandbox_spec(source: str, task_type: str, access: AccessConfig, limits: Limits,
                 hidden: Sequence[str], *, executes: bool | None = None) -> SandboxSpec:
    """How a verifier of ``source``'s ``task_type`` task runs under ``access``: the source's
    masked packages plus ``hidden``, ``limits``, and the type's runtime (``run_public``) only
    when the access setting executes (``executes`` overrides it: generation always does)."""
    if executes is None:
        executes = view_for(access, task_type).executes
    return SandboxSpec(limits=limits, masked_paths=masked_paths(source) + tuple(hidden),
                       runtime=source_info(source).runtime if executes else "none",
                       runtime_config={"budget": int(access.judge_budget)})


class Specs:
    """The sandbox spec of each selected task in one configuration, built once per task."""

    def __init__(self, conf: MonitorbenchConfig, sel: Selection) -> None:
        self._conf, self._sel = conf, sel
        self._hidden = hidden_roots(conf.paths)
        self._cache: dict[tuple[str, bool | None], SandboxSpec] = {}

    def __call__(self, task: Task, *, executes: bool | None = None) -> SandboxSpec:
        key = (task.task_id, executes)
        if key not in self._cache:
            self._cache[key] = sandbox_spec(
                self._sel.source_of[task.task_id], task.task_type, self._conf.access,
                limits_for(self._conf.sandbox, task.task_type), self._hidden,
                executes=executes)
        return self._cache[key]


def visible_cases(cases: Sequence[Case], access: AccessConfig, task_type: str
                  ) -> tuple[AccessView, list[Case], list[Case]]:
    """The access view of a task type, the cases it judges, and those it sets aside: cases that
    project to the same visible input with opposite labels cannot be told apart by any verifier."""
    view = view_for(access, task_type)
    keep, drop = split_consistent(list(cases), view)
    return view, keep, drop
