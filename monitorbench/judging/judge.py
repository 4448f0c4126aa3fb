"""Run each task's verifier on its hidden cases, one sandbox session per task, P/F/U per case.

Only the projected candidate crosses into the sandbox; the label, group and category stay here
and are joined to the verdict when the record is written. Tasks run in parallel sessions
(threads: the work happens in the sandboxed processes), judgments go to the store as they are
made, and cases already in the store are skipped, which is what makes a killed run resumable.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from monitorbench.judging.store import JudgmentStore, record_key
from monitorbench.sandbox.base import MISSING_VERIFIER, SANDBOX_ERROR, SandboxSession, Verdict
from monitorbench.suites.access import AccessView
from monitorbench.suites.format import Case, Task

log = logging.getLogger(__name__)

_MAX_SESSION_RESTARTS = 3


@dataclass
class TaskJob:
    """Everything needed to judge one task's cases in one round."""

    task: Task
    cases: Sequence[Case]
    public_dir: Path
    verifier_dir: Path | None
    verifier_hash: str          # "" when no verifier was submitted
    view: AccessView
    suite_hash: str
    round: int
    access: str


OpenSession = Callable[[TaskJob], AbstractContextManager[SandboxSession]]


def _record(job: TaskJob, case: Case, verdict: Verdict) -> dict[str, Any]:
    return {
        "task_id": job.task.task_id, "task_type": job.task.task_type, "case_id": case.case_id,
        "group": case.group, "category": case.category, "label": case.label,
        "outcome": verdict.outcome, "reason": verdict.reason, "detail": verdict.detail[:2000],
        "confidence": verdict.confidence, "seconds": round(verdict.seconds, 6),
        "executions": verdict.executions, "round": job.round, "access": job.access,
        "verifier_hash": job.verifier_hash, "case_hash": case.candidate_hash,
        "suite_hash": job.suite_hash,
    }


def _key(job: TaskJob, case: Case) -> tuple[str, str, int, str, str]:
    return record_key({"task_id": job.task.task_id, "case_id": case.case_id, "round": job.round,
                       "access": job.access, "verifier_hash": job.verifier_hash})


def judge_task(job: TaskJob, store: JudgmentStore, open_session: OpenSession) -> int:
    """Judge the cases of one task that the store lacks; returns how many were judged."""
    pending = [c for c in job.cases if _key(job, c) not in store]
    if not pending:
        return 0
    if not job.verifier_hash:  # no verifier (a model judge has a hash but no directory)
        for case in pending:
            store.append(_record(job, case, Verdict(None, reason=MISSING_VERIFIER,
                                                    detail="no verifier was submitted")))
        store.sync()
        return len(pending)
    done = 0
    restarts = 0
    while done < len(pending):
        try:
            with open_session(job) as session:
                while done < len(pending):
                    case = pending[done]
                    verdict = session.judge(job.view.project(case.candidate))
                    store.append(_record(job, case, verdict))
                    done += 1
        except Exception as e:  # the sandbox itself failed; record it and restart the session
            restarts += 1
            log.warning("sandbox session for %s failed on case %s: %s", job.task.task_id,
                        pending[done].case_id if done < len(pending) else "-", e)
            if done < len(pending):
                store.append(_record(job, pending[done], Verdict(
                    None, reason=SANDBOX_ERROR, detail=f"{type(e).__name__}: {e}")))
                done += 1
            if restarts > _MAX_SESSION_RESTARTS:
                raise RuntimeError(
                    f"the sandbox failed {restarts} times on task {job.task.task_id}: {e}. "
                    "Check that the sandbox backend (sandbox.backend) works on this machine, "
                    "e.g. `bwrap --version`, or choose sandbox=unshare") from e
    store.sync()
    return done


def judge_all(jobs: Sequence[TaskJob], store: JudgmentStore, open_session: OpenSession, *,
              workers: int = 2, progress: Callable[[int], None] | None = None) -> int:
    """Judge every job, ``workers`` sessions at a time; returns the number of new judgments."""
    total = 0
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(judge_task, job, store, open_session) for job in jobs]
        for fut in futures:
            n = fut.result()
            total += n
            if progress:
                progress(n)
    return total
