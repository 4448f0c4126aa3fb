"""Run each task's verifier on its hidden cases, one sandbox session per task, P/F/U per case.

Only the projected candidate crosses into the sandbox; the label, group and category stay here
and are joined to the verdict when the record is written. Tasks run in parallel sessions
(threads: the work happens in the sandboxed processes), judgments go to the store as they are
made, and cases already in the store are skipped, which is what makes a killed run resumable.
A sandbox error is infrastructure, not the verifier: the case is retried in a fresh session,
every attempt is persisted, and one that persists is left for the metrics to count as an
infrastructure failure (never charged to the verifier) and for the run to check against its
threshold.

Judging stops early, without waiting for queued tasks, when it cannot usefully go on: on Ctrl-C
(KeyboardInterrupt in the main thread), when one task finds the sandbox broken, or when the
infrastructure failures already exceed what the run's threshold allows of its whole plan (the run
would fail anyway). Queued tasks are cancelled and running sandbox workers are killed, so the
threads return within about a second; every judgment made so far is already in the store, and a
verdict that only says the worker was killed by this stop is not written.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator, Sequence

from monitorbench.errors import MonitorbenchError
from monitorbench.judging.records import Judgment, JudgmentKey, Outcome, UReason
from monitorbench.judging.store import JudgmentStore
from monitorbench.judging.verdict_cache import VerdictCache
from monitorbench.sandbox.base import SandboxSession, Verdict
from monitorbench.suites.access import AccessView
from monitorbench.suites.format import Case, Task

log = logging.getLogger(__name__)

# Cases in a row that fail every attempt before judging stops: one bad case is retried and
# recorded, but a run of them means the backend itself is broken.
_MAX_FAILED_IN_A_ROW = 5
# Seconds a stopped run waits for its running tasks to notice (their workers are killed at once).
_STOP_GRACE = 1.5


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
    # How the verifier runs (judging.verdict_cache.setting_hash); "" when its verdicts are not
    # shared across runs (a model judge, or a caller without a verdict cache).
    setting: str = ""


OpenSession = Callable[[TaskJob], AbstractContextManager[SandboxSession]]


def judgment(job: TaskJob, case: Case, verdict: Verdict) -> Judgment:
    """The record of one verdict: the case's label, group and category joined to it here,
    on the framework side."""
    return Judgment(
        task_id=job.task.task_id, task_type=job.task.task_type, case_id=case.case_id,
        group=case.group, category=case.category, label=case.label,
        outcome=Outcome(verdict.outcome), reason=UReason(verdict.reason) if verdict.reason
        else None, detail=verdict.detail[:2000], confidence=verdict.confidence,
        seconds=round(verdict.seconds, 6), executions=verdict.executions, round=job.round,
        access=job.access, verifier_hash=job.verifier_hash, case_hash=case.candidate_hash,
        suite_hash=job.suite_hash)


def _key(job: TaskJob, case: Case) -> JudgmentKey:
    return (job.task.task_id, case.case_id, job.round, job.access, job.verifier_hash)


class InfraFailureError(RuntimeError):
    """Too many judgments of a run failed in the sandbox even after retries: its numbers
    would rest on a visibly smaller pool than configured, so the run stops instead."""


def check_infra_failures(records: Sequence[Judgment], *, max_pct: float, retries: int) -> None:
    """Raise :class:`InfraFailureError` when infrastructure failures exceed ``max_pct`` percent
    of the judged cases (all rounds). Below it they are only counted (``diag/infra_failures``)."""
    failed = [r for r in records if r.retryable]
    if not records or 100.0 * len(failed) / len(records) <= max_pct:
        return
    eg = "; ".join(f"{r.task_id}/{r.case_id} round {r.round}: {r.detail[:160]}"
                   for r in failed[:3])
    raise InfraFailureError(
        f"{len(failed)} of {len(records)} judged cases "
        f"({100.0 * len(failed) / len(records):.1f}%) hit sandbox errors that persisted "
        f"after {retries} retries in a fresh sandbox, above the limit of {max_pct}% "
        f"(task.max_infra_failure_pct). These are infrastructure failures, not the "
        f"verifier's; e.g. {eg}. Fix the sandbox (sandbox.backend, machine load, memory) and "
        "re-run: only the failed cases are judged again, every other judgment is reused")


class SandboxBrokenError(RuntimeError):
    """The sandbox failed on several cases in a row even with fresh sessions: the backend,
    not a case, is broken, and judging the rest would only pile up infrastructure failures."""


class _Stop:
    """What a run's judging threads share to stop together: the flag they check between cases,
    the sessions open now (killed when it is set), and the count of persisted infrastructure
    failures against the most the run's threshold allows (None: no limit)."""

    def __init__(self, max_failures: int | None = None) -> None:
        self.event = threading.Event()
        self.max_failures = max_failures
        self.failures = 0
        self._lock = threading.Lock()
        self._open: set[_Sessions] = set()

    @property
    def is_set(self) -> bool:
        return self.event.is_set()

    def track(self, sessions: "_Sessions", open_now: bool) -> None:
        with self._lock:
            (self._open.add if open_now else self._open.discard)(sessions)
        if open_now and self.is_set:
            sessions.interrupt()

    def failed(self) -> bool:
        """Count one persisted infrastructure failure; True when the run can no longer pass."""
        with self._lock:
            self.failures += 1
            return self.max_failures is not None and self.failures > self.max_failures

    def set(self) -> None:
        """Stop: no new case starts, and every running worker is killed now."""
        self.event.set()
        with self._lock:
            running = list(self._open)
        for sessions in running:
            sessions.interrupt()


class _Sessions:
    """The task's current sandbox session, replaced by a fresh one after a sandbox error."""

    def __init__(self, job: TaskJob, open_session: OpenSession, stop: _Stop) -> None:
        self._job, self._open, self._stop = job, open_session, stop
        self._stack: ExitStack | None = None
        self._session: SandboxSession | None = None

    def get(self) -> SandboxSession:
        if self._session is None:
            stack = ExitStack()
            self._session = stack.enter_context(self._open(self._job))
            self._stack = stack
            self._stop.track(self, True)
        return self._session

    def interrupt(self) -> None:
        """Kill the session's worker from another thread; the judging thread sees it exit."""
        kill = getattr(self._session, "interrupt", None)
        if kill is not None:
            kill()

    def drop(self) -> None:
        self._stop.track(self, False)
        stack, self._stack, self._session = self._stack, None, None
        if stack is not None:
            try:
                stack.close()
            except Exception as e:  # closing a broken session must not hide the next attempt
                log.warning("closing the sandbox session of %s failed: %s",
                            self._job.task.task_id, e)


def _cached(job: TaskJob, projected: dict, cache: VerdictCache | None
            ) -> tuple[str | None, Verdict | None]:
    """The verdict cache's key for this execution and its stored verdict (None, None when the
    job's verdicts are not shared)."""
    if cache is None or not job.setting:
        return None, None
    key = cache.key(verifier_hash=job.verifier_hash, suite_hash=job.suite_hash,
                    task_id=job.task.task_id, round=job.round, setting=job.setting,
                    projected=projected)
    return key, cache.get(key)


def _share(cache: VerdictCache | None, key: str | None, verdict: Verdict) -> None:
    """Offer a verdict the verifier made to other runs; failing to is not the run's failure."""
    if cache is None or key is None:
        return
    try:
        cache.put(key, verdict)
    except OSError as e:
        log.warning("could not store a verdict in the shared cache %s: %s", cache.root, e)


def _persist(store: JudgmentStore, job: TaskJob, case: Case, verdict: Verdict) -> None:
    """The judgment, then what the verifier printed making it (kept beside the judgments)."""
    made = judgment(job, case, verdict)
    store.append(made)
    store.append_output(made, verdict.stdout)


def _judge_case(job: TaskJob, case: Case, sessions: _Sessions, store: JudgmentStore,
                retries: int, stop: _Stop, cache: VerdictCache | None = None) -> bool | None:
    """Judge one case (or take its verdict from ``cache``, written by a run that showed the same
    verifier the same input in the same setting); a sandbox error is persisted and retried in a
    fresh session up to ``retries`` times. Returns True when it persisted (an infrastructure
    failure), None when the run was stopped meanwhile (nothing written: the worker was killed
    by the stop)."""
    projected = job.view.project(case.candidate)
    key, verdict = _cached(job, projected, cache)
    if verdict is not None:
        _persist(store, job, case, verdict)
        return False
    for attempt in range(1, retries + 2):
        try:
            verdict = sessions.get().judge(projected)
        except MonitorbenchError:  # bad input (e.g. a public dir without task.json): no retry
            raise
        except Exception as e:  # the sandbox itself failed (start, IPC): not the verifier
            verdict = Verdict(None, reason=UReason.sandbox_error.value,
                              detail=f"{type(e).__name__}: {e}")
        if verdict.reason != UReason.sandbox_error:
            _persist(store, job, case, verdict)
            _share(cache, key, verdict)
            return False
        if stop.is_set:
            return None
        log.warning("sandbox error on %s/%s (attempt %d of %d): %s", job.task.task_id,
                    case.case_id, attempt, retries + 1, verdict.detail[:300])
        store.append(judgment(job, case, replace(
            verdict, detail=f"attempt {attempt} of {retries + 1}: {verdict.detail}")))
        sessions.drop()
    return True


def judge_task(job: TaskJob, store: JudgmentStore, open_session: OpenSession, *,
               retries: int = 2, stop: _Stop | None = None,
               cache: VerdictCache | None = None, sessions: _Sessions | None = None) -> int:
    """Judge the cases of one task that the store lacks; returns how many were judged.

    A sandbox error (worker died, sandbox failed to start, IPC broken) is retried with a fresh
    session; one that persists stays in the store as ``sandbox_error``, which the metrics count
    as an infrastructure failure and never charged to the verifier. ``stop`` (from
    :func:`judge_all`) ends the task between cases, or mid-case by killing its worker.
    ``sessions``: the session to judge in, left open for the caller (:func:`judge_rounds`).
    """
    stop = stop or _Stop()
    pending = [c for c in job.cases if _key(job, c) not in store]
    if not pending or stop.is_set:
        return 0
    if not job.verifier_hash:  # no verifier (a model judge has a hash but no directory)
        for case in pending:
            store.append(judgment(job, case, Verdict(
                None, reason=UReason.missing_verifier.value,
                detail="no verifier was submitted")))
        store.sync()
        return len(pending)
    own = sessions is None
    sessions = sessions or _Sessions(job, open_session, stop)
    in_a_row = judged = 0
    try:
        for case in pending:
            failed = _judge_case(job, case, sessions, store, retries, stop, cache)
            if failed is None:
                break
            judged += 1
            in_a_row = in_a_row + 1 if failed else 0
            if failed and stop.failed():
                stop.set()
            if stop.is_set:
                break
            if in_a_row >= _MAX_FAILED_IN_A_ROW:
                raise SandboxBrokenError(
                    f"the sandbox failed on {in_a_row} cases in a row of task "
                    f"{job.task.task_id}, {retries + 1} attempts each (last: case "
                    f"{case.case_id}). Check that the sandbox backend (sandbox.backend) works "
                    "on this machine, e.g. `bwrap --version`, or choose sandbox=unshare; a "
                    "re-run judges the failed cases again")
    finally:
        if own:
            sessions.drop()
        store.sync()
    return judged


def judge_rounds(jobs: Sequence[TaskJob], store: JudgmentStore, open_session: OpenSession, *,
                 retries: int = 2, stop: _Stop | None = None,
                 cache: VerdictCache | None = None) -> list[int]:
    """:func:`judge_task` for each of ``jobs``, the rounds of one task (:func:`_by_task`), in
    one sandbox session: the number each judged.

    Why one session: a session's start is most of a small task's cost (a τ² session took 0.35 s,
    0.25 of it preparing the task's runtime, against about 10 ms a case), and three rounds paid
    it three times. What a round needs stays: every judgment still runs in a fresh child of the
    session's worker, which runs none of the verifier's code itself (the sandbox's contract,
    ``monitorbench.sandbox.base``: one session per verifier and task), so a later round's
    judgment starts from the same state as it would in a session of its own."""
    stop = stop or _Stop()
    sessions = _Sessions(jobs[0], open_session, stop)
    try:
        return [judge_task(job, store, open_session, retries=retries, stop=stop, cache=cache,
                           sessions=sessions) for job in jobs]
    finally:
        sessions.drop()


def _by_task(jobs: Sequence[TaskJob]) -> list[list[TaskJob]]:
    """The jobs in runs that one session can judge: consecutive jobs (plan_jobs makes a task's
    rounds in a row) with the same task, public directory and verifier."""
    groups: list[list[TaskJob]] = []
    for job in jobs:
        last = groups[-1][0] if groups else None
        if last is not None and (last.task.task_id, last.public_dir, last.verifier_dir,
                                 last.verifier_hash) == (job.task.task_id, job.public_dir,
                                                         job.verifier_dir, job.verifier_hash):
            groups[-1].append(job)
        else:
            groups.append([job])
    return groups


def judge_all(jobs: Sequence[TaskJob], store: JudgmentStore, open_session: OpenSession, *,
              workers: int = 2, retries: int = 2, max_infra_failure_pct: float | None = None,
              progress: Callable[[int], None] | None = None,
              cache: VerdictCache | None = None) -> int:
    """Judge every job, ``workers`` sessions at a time; returns the number of new judgments.

    ``retries``: fresh-session retries of a case whose sandbox failed (see :func:`judge_task`).
    ``max_infra_failure_pct``: the run's threshold (:func:`check_infra_failures`); once the
    persisted infrastructure failures exceed that share of *all* the jobs' cases the run fails
    whatever the rest gives, so the queued tasks are cancelled at once and
    :class:`InfraFailureError` is raised. An error in any task or a KeyboardInterrupt stops the
    others the same way (see the module docstring) and is re-raised.
    """
    n_cases = sum(len(j.cases) for j in jobs)
    stop = _Stop(None if max_infra_failure_pct is None
                 else int(max_infra_failure_pct * n_cases / 100.0))
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    futures = [pool.submit(judge_rounds, group, store, open_session, retries=retries,
                           stop=stop, cache=cache) for group in _by_task(jobs)]
    total = 0
    try:
        for fut in _as_done(futures, stop):
            for n in fut.result():
                total += n
                if progress:
                    progress(n)
    except BaseException:
        _stop_all(pool, futures, stop)
        raise
    pool.shutdown()
    if stop.is_set:
        raise InfraFailureError(
            f"{stop.failures} of the {n_cases} cases of this run hit sandbox errors that "
            f"persisted after {retries} retries in a fresh sandbox, already above the limit of "
            f"{max_infra_failure_pct}% (task.max_infra_failure_pct), so its queued tasks were "
            "cancelled. These are infrastructure failures, not the verifier's (see the "
            "warnings above). Fix the sandbox (sandbox.backend, machine load, memory) and "
            "re-run: only the failed and cancelled cases are judged, every other judgment is "
            "reused")
    return total


def _as_done(futures: list[Future[list[int]]], stop: _Stop) -> Iterator[Future[list[int]]]:
    """The futures as they finish; the first that raises is yielded at once (its result()
    re-raises), and once ``stop`` is set the unfinished ones are cancelled."""
    pending = set(futures)
    while pending:
        done, pending = wait(pending, timeout=0.5, return_when=FIRST_EXCEPTION)
        yield from done
        if stop.is_set:
            for fut in pending:
                fut.cancel()
            pending = {f for f in pending if not f.cancelled()}


def _stop_all(pool: ThreadPoolExecutor, futures: list[Future[list[int]]], stop: _Stop) -> None:
    """Cancel queued tasks, kill running workers, and give running tasks a moment to return
    (a task stops between cases; a killed worker ends its case at once)."""
    stop.set()
    pool.shutdown(wait=False, cancel_futures=True)
    wait([f for f in futures if not f.cancelled()], timeout=_STOP_GRACE)
