"""Judge stage: a selection's judging jobs, the sessions that run them, the judgments they leave.

The cases an access setting cannot tell apart are set aside here (and counted), every task gets
one :class:`TaskJob` per judgment round, and after judging the store's records of exactly these
jobs are collected and checked against the run's infrastructure-failure limit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from monitorbench.config import AccessConfig, SandboxBackend, SandboxConfig, TaskConfig
from monitorbench.judging.judge import OpenSession, TaskJob, check_infra_failures
from monitorbench.judging.records import Judgment
from monitorbench.judging.store import JudgmentStore
from monitorbench.judging.verdict_cache import setting_hash
from monitorbench.pipeline.prepare import Selection, Specs, rounds_for, visible_cases
from monitorbench.sandbox.base import Sandbox
from monitorbench.suites.format import LABELS, Task
from monitorbench.suites.sandbox_image import run_image

log = logging.getLogger(__name__)

# The verifier a task is judged with: its directory (None: nothing submitted) and its hash
# ("" when nothing was submitted; a model judge has a hash but no directory).
VerifierOf = Callable[[Task], tuple[Path | None, str]]
# How a task's verifier runs, as judging.verdict_cache.setting_hash gives it ("" : not shared).
SettingOf = Callable[[Task], str]


@dataclass
class JobPlan:
    """The judging jobs of one configuration, and what its access setting set aside."""

    jobs: list[TaskJob] = field(default_factory=list)
    verifier_hashes: dict[str, str] = field(default_factory=dict)   # judged tasks only
    indistinguishable: int = 0      # cases colliding with an opposite label under this access
    set_aside_cases: int = 0        # those, plus the cases of tasks set aside
    set_aside_ids: list[str] = field(default_factory=list)  # no PASS or no FAIL case left


def plan_jobs(sel: Selection, access: AccessConfig, task_cfg: TaskConfig,
              verifier_of: VerifierOf, setting_of: SettingOf | None = None) -> JobPlan:
    """One job per (task, round) over the cases ``access`` can tell apart; a task left
    without a PASS or a FAIL case is set aside (its TPR or TNR would be undefined).
    ``setting_of`` says how each task's verifier runs, for the shared verdict cache (None:
    its verdicts are not shared)."""
    plan = JobPlan()
    for task in sel.tasks:
        view, keep, drop = visible_cases(sel.cases[task.task_id], access, task.task_type)
        plan.indistinguishable += len(drop)
        plan.set_aside_cases += len(drop)
        if {c.label for c in keep} != set(LABELS):
            plan.set_aside_ids.append(task.task_id)
            plan.set_aside_cases += len(keep)
            continue
        vdir, vhash = verifier_of(task)
        plan.verifier_hashes[task.task_id] = vhash
        suite, setting = sel.suite_of[task.task_id], setting_of(task) if setting_of else ""
        for rnd in range(1, rounds_for(task_cfg, task.task_type) + 1):
            plan.jobs.append(TaskJob(task, keep, suite.public_dir(task.task_id), vdir, vhash,
                                     view, suite.suite_hash, rnd, access.name, setting))
    if plan.set_aside_ids:
        log.warning("%d task(s) keep no PASS or no FAIL case that is distinguishable under "
                    "access %s and are not scored in this run (e.g. %s)",
                    len(plan.set_aside_ids), access.name, ", ".join(plan.set_aside_ids[:3]))
    return plan


def sandbox_settings(specs: Specs, sandbox: SandboxConfig) -> SettingOf:
    """Each task's setting for the verdict cache: its judging spec, the backend, the image."""
    image = run_image(sandbox)
    backend = SandboxBackend(sandbox.backend).value
    return lambda task: setting_hash(specs(task), backend, image)


def sandbox_sessions(sandbox: Sandbox, specs: Specs) -> OpenSession:
    """Open each job's session in ``sandbox`` with its task's spec (as every entry point does)."""
    def open_session(job: TaskJob):  # type: ignore[no-untyped-def]
        return sandbox.session(job.verifier_dir, job.public_dir, specs(job.task))
    return open_session


def collect(store: JudgmentStore, jobs: Sequence[TaskJob], task_cfg: TaskConfig
            ) -> list[Judgment]:
    """The store's judgments of exactly these jobs; raises when infrastructure failures exceed
    ``task.max_infra_failure_pct`` (a run that rests on too few cases gives no numbers)."""
    wanted = {(j.task.task_id, c.case_id, j.round, j.access, j.verifier_hash)
              for j in jobs for c in j.cases}
    judgments = [r for r in store.records() if r.key in wanted]
    check_infra_failures(judgments, max_pct=float(task_cfg.max_infra_failure_pct),
                         retries=int(task_cfg.infra_retries))
    return judgments
