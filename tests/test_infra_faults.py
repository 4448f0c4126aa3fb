"""Sandbox errors are infrastructure, not the verifier: retried, never charged, counted, bounded.

Every fault here is real: a real bubblewrap worker process is SIGKILLed from outside by the test
while it judges a chosen case (a verifier cannot kill its own worker: cases run in a PID namespace
of their own), and the real client notices the dead worker. Nothing in the judging loop, the
store or the metrics is replaced.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

from pipeline_helpers import compose_cfg
from monitorbench.audit.exclusions import apply_exclusions
from monitorbench.config import AccessConfig
from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.judging.judge import InfraFailureError, TaskJob, judge_task
from monitorbench.judging.records import Outcome
from monitorbench.judging.store import JudgmentStore
from monitorbench.launch.run import run_job, select_tasks
from monitorbench.metrics import summarize
from monitorbench.report.source import parse_csv_records
from monitorbench.sandbox.base import Limits, SandboxSpec
from monitorbench.sandbox.bwrap import bwrap_usable
from monitorbench.sandbox.factory import make_sandbox
from monitorbench.suites.access import view_for
from monitorbench.suites.format import load_suite
from monitorbench.suites.registry import masked_paths

pytestmark = pytest.mark.skipif(not bwrap_usable(), reason="needs a working bubblewrap")

# On the chosen candidates the verifier names its process KILL_NAME and waits; the test's
# watcher (killing_sessions) sees the name in the host's /proc and SIGKILLs that whole session
# from outside, as Slurm's signal or the OOM killer would. Every retry dies too, so the case ends
# as an infrastructure failure.
KILL_NAME = "mb-infra-kill"
KILLING_VERIFIER = '''import ctypes, json, time
KILL = set(json.loads({chosen!r}))
def verify(candidate, env):
    if json.dumps(candidate, sort_keys=True, separators=(",", ":"), ensure_ascii=False) in KILL:
        ctypes.CDLL(None).prctl(15, b"mb-infra-kill", 0, 0, 0)  # PR_SET_NAME
        time.sleep(5)
    return "PASS"
'''
# Sleeps on the chosen candidates so the test's kill lands while the case is being judged, until
# the test has killed a worker on that case: it then writes killed/<sha256 of the candidate> into
# the verifier directory (bound read-only, live), so the retry answers at once instead of
# sleeping again.
SLOW_VERIFIER = '''import hashlib, json, pathlib, time
SLOW = set(json.loads({chosen!r}))
KILLED = pathlib.Path(__file__).parent / "killed"
def verify(candidate, env):
    key = json.dumps(candidate, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if key in SLOW and not (KILLED / hashlib.sha256(key.encode()).hexdigest()).exists():
        time.sleep(1.5)
    return "PASS"
'''


@contextmanager
def killing_sessions() -> Iterator[None]:
    """While the block runs, SIGKILL the sandbox session (the process group this process
    started) of every process named KILL_NAME, polling the host's /proc every 20 ms."""
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.02):
            for entry in os.listdir("/proc"):
                try:
                    if entry.isdigit() and (Path("/proc", entry, "comm").read_text().strip()
                                            == KILL_NAME):
                        _kill_session(int(entry))
                except (OSError, ValueError):
                    continue  # gone meanwhile

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join()


def _kill_session(pid: int) -> None:
    """Walk up from ``pid`` to the sandbox process this test process started (it leads its own
    process group) and SIGKILL that group: the bwrap session and its worker."""
    while pid > 1:
        stat = Path("/proc", str(pid), "stat").read_text()
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        if ppid == os.getpid():
            os.killpg(pid, signal.SIGKILL)
            return
        pid = ppid


def _key(candidate: dict[str, Any]) -> str:
    return canonical_json(candidate)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_a_worker_killed_mid_case_is_retried_in_a_fresh_session(tmp_path: Path,
                                                               suites_dir: Path) -> None:
    suite = apply_exclusions(load_suite(suites_dir / "bfcl"))
    task = suite.tasks[sorted(suite.tasks)[0]]
    view = view_for(AccessConfig(), task.task_type)
    cases = suite.cases[task.task_id]
    assert (chosen := {c.case_id for c in cases if c.label == "PASS"})
    vdir = tmp_path / "v"
    (vdir / "killed").mkdir(parents=True)
    (vdir / "main.py").write_text(SLOW_VERIFIER.format(chosen=json.dumps(
        sorted(_key(view.project(c.candidate)) for c in cases if c.case_id in chosen))))
    sandbox = make_sandbox("bwrap")
    spec = SandboxSpec(limits=Limits(), masked_paths=masked_paths("bfcl"))
    killed: list[str] = []

    @contextmanager
    def open_session(job: TaskJob) -> Iterator[Any]:
        """The real bwrap session; on the first attempt of each chosen case, the test SIGKILLs
        the real worker's process group 0.3 s into the judgment (the verifier sleeps 1.5 s),
        then marks the case killed so that its retry does not sleep."""
        with sandbox.session(job.verifier_dir, job.public_dir, spec) as real:
            judge = real.judge

            def judge_with_fault(candidate: dict[str, Any]) -> Any:
                case = next(c.case_id for c in cases if view.project(c.candidate) == candidate)
                if case not in chosen or case in killed:
                    return judge(candidate)
                killed.append(case)
                mark = vdir / "killed" / sha256_text(_key(candidate))

                def kill() -> None:
                    os.killpg(real.proc.pid, signal.SIGKILL)
                    mark.touch()

                timer = threading.Timer(0.3, kill)
                timer.start()
                try:
                    return judge(candidate)
                finally:
                    timer.cancel()

            real.judge = judge_with_fault  # type: ignore[method-assign]
            yield real

    store = JudgmentStore(tmp_path / "judgments.jsonl")
    job = TaskJob(task, cases, suite.public_dir(task.task_id), vdir, "vhash", view,
                  suite.suite_hash, 1, "raw_parsed")
    assert judge_task(job, store, open_session, retries=2) == len(cases)
    store.close()
    assert sorted(killed) == sorted(chosen)
    lines = _lines(tmp_path / "judgments.jsonl")
    errors = [r for r in lines if r["reason"] == "sandbox_error"]
    # one persisted failed attempt per chosen case, then a real verdict from a fresh worker
    assert sorted(r["case_id"] for r in errors) == sorted(chosen)
    assert all(r["detail"].startswith("attempt 1 of 3") and "worker exited" in r["detail"]
               for r in errors)
    final = JudgmentStore(tmp_path / "judgments.jsonl").records()
    assert len(final) == len(cases) and all(r.outcome is Outcome.P for r in final)
    s = summarize([r.to_dict() for r in final])
    assert s["tpr"] == 100.0 and s["diag/infra_failures"] == 0 and s["n_cases"] == len(cases)


def test_persistent_faults_are_never_charged_and_too_many_fail_the_run(
        tmp_path: Path, suites_dir: Path) -> None:
    overrides = ["generator=replay", f"generator.dir={tmp_path / 'v'}", "tracking.enabled=false",
                 "task.max_tasks_per_type=3"]
    cfg = compose_cfg(tmp_path / "out", suites_dir, overrides)
    sel = select_tasks(cfg, [("bfcl", apply_exclusions(load_suite(suites_dir / "bfcl")))])
    view = view_for(AccessConfig(), "tool_call")
    # the first gold case of two of the three tasks dies in the sandbox, every attempt
    chosen = {(t.task_id, next(c.case_id for c in sel.cases[t.task_id] if c.group == "gold"))
              for t in sel.tasks[:2]}
    kill = sorted(_key(view.project(c.candidate)) for t in sel.tasks for c in sel.cases[t.task_id]
                  if (t.task_id, c.case_id) in chosen)
    for t in sel.tasks:
        (tmp_path / "v" / t.task_id).mkdir(parents=True)
        (tmp_path / "v" / t.task_id / "main.py").write_text(
            KILLING_VERIFIER.format(chosen=json.dumps(kill)))
    n_cases = sum(len(sel.cases[t.task_id]) for t in sel.tasks)
    assert 100.0 * len(chosen) / n_cases > 2.0  # above the default limit

    # Two failures of 66 cases are above 2 % whatever the other cases give: judging stops at
    # the second, and the task still queued is cancelled instead of judged.
    with killing_sessions(), pytest.raises(
            InfraFailureError, match=rf"2 of the {n_cases} cases .* above the limit of 2.0% "
                                     r".* queued tasks were cancelled"):
        run_job(cfg)
    run_dir = next((tmp_path / "out" / "runs").iterdir())
    assert not (run_dir / "metrics.json").exists()  # no numbers from a run that failed
    first = {(r["task_id"], r["case_id"]) for r in _lines(run_dir / "judgments.jsonl")
             if r["reason"] != "sandbox_error"}
    assert len(first) < n_cases - len(chosen)  # cancelled: not every good case was judged

    # The same configuration with a looser limit: same run (the limit is not in the run key),
    # so the failed and the cancelled cases are judged, and the failed ones fail again.
    with killing_sessions():
        m = run_job(compose_cfg(tmp_path / "out", suites_dir,
                                overrides + ["task.max_infra_failure_pct=10"]))
    lines = _lines(run_dir / "judgments.jsonl")
    errors = [r for r in lines if r["reason"] == "sandbox_error"]
    assert {(r["task_id"], r["case_id"]) for r in errors} == chosen
    assert len(errors) == 2 * 3 * len(chosen)  # two runs x (1 try + 2 retries) per case
    assert all("worker exited" in r["detail"] for r in errors)
    good = [(r["task_id"], r["case_id"]) for r in lines if r["reason"] != "sandbox_error"]
    assert len(good) == len(set(good)) == n_cases - len(chosen)  # each judged once, none lost
    assert (m["cache/judgments_new"] == n_cases - len(first)
            and m["cache/judgments_reused"] == len(first))
    # never charged: the always-PASS verifier keeps TPR 100 and no U; only counted
    assert m["diag/infra_failures"] == len(chosen) and m["n_cases"] == n_cases - len(chosen)
    assert m["tpr"] == 100.0 and m["valid_output_rate"] == 100.0
    # the report re-derives the same numbers from the run's judgments table
    table = parse_csv_records(run_dir / "judgments.csv")
    assert summarize(table) == {k: v for k, v in m.items() if k in summarize(table)}


def test_a_backend_that_cannot_start_stops_the_task_with_a_clear_error(
        tmp_path: Path, suites_dir: Path) -> None:
    """The real worker client pointed at a broken backend invocation (a bwrap binary that does
    not exist): every attempt fails to start, so after a few cases in a row judging stops and
    says what to check, instead of recording every case as a failure."""
    from monitorbench.judging.judge import SandboxBrokenError
    from monitorbench.sandbox.client import WorkerSession, minimal_env

    suite = apply_exclusions(load_suite(suites_dir / "bfcl"))
    task = suite.tasks[sorted(suite.tasks)[0]]
    cases = suite.cases[task.task_id]
    assert len(cases) > 5
    opened: list[int] = []

    def open_session(job: TaskJob) -> WorkerSession:
        opened.append(1)
        return WorkerSession(["/nonexistent/bwrap"], minimal_env(), SandboxSpec())

    store = JudgmentStore(tmp_path / "judgments.jsonl")
    job = TaskJob(task, cases, suite.public_dir(task.task_id), tmp_path, "vhash",
                  view_for(AccessConfig(), task.task_type), suite.suite_hash, 1, "raw_parsed")
    with pytest.raises(SandboxBrokenError, match=r"5 cases in a row .* sandbox.backend"):
        judge_task(job, store, open_session, retries=2)
    store.close()
    lines = _lines(tmp_path / "judgments.jsonl")
    assert len(lines) == 5 * 3 == len(opened)  # every attempt persisted, each in a new session
    assert all(r["reason"] == "sandbox_error" and "nonexistent" in r["detail"] for r in lines)
    assert len(JudgmentStore(tmp_path / "judgments.jsonl")) == 0  # a re-run judges them again


def test_a_build_killed_midway_leaves_no_temp_directory_after_the_next_build(
        tmp_path: Path) -> None:
    """SIGKILL (no handler can run) during a real BFCL build leaves its ``.<suite>.<random>``
    temp directory; the next build of that suite removes it under the build lock. A 16-task
    build (4 per category, its own suite directory) is enough: the temp directory, the lock and
    the clean-up are the same for every size, and the full 128-task build and its audit took
    ~15 CPU-seconds more."""
    import subprocess
    import sys
    import time

    from monitorbench.audit.prepare import build_suite
    from monitorbench.suites.registry import suite_dir

    options = {"tasks_per_category": 4}
    target = suite_dir(tmp_path, "bfcl", options)
    code = ("import sys; from pathlib import Path; from monitorbench.audit.prepare import "
            f"build_suite; build_suite(Path(sys.argv[1]), 'bfcl', {options!r})")
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)])
    deadline = time.monotonic() + 120
    while not [p for p in tmp_path.glob(f".{target.name}.*") if p.is_dir()]:
        assert proc.poll() is None and time.monotonic() < deadline, "the build never started"
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    (left,) = [p for p in tmp_path.glob(f".{target.name}.*") if p.is_dir()]
    assert not target.exists()
    assert build_suite(tmp_path, "bfcl", options) == target
    assert not left.exists() and (target / "manifest.json").is_file()
    assert [p.name for p in tmp_path.glob(f".{target.name}.*") if p.is_dir()] == []


def test_a_sandbox_that_hangs_at_start_fails_the_attempt_within_the_start_timeout(
        tmp_path: Path, suites_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real worker client started with a command that never says it is ready (``sleep``:
    a hung sandbox start, as a stuck mount or a wedged bwrap gives). Each attempt is an
    infrastructure failure after the start timeout, waited once per attempt, not the per-case
    wall clock and not twice. The product's START_TIMEOUT (10 s) is lowered to 3 s here: the
    client reads it at each start, and 3 s still tells one wait per attempt (6 s) from two
    (12 s) within the 5 s margin for a loaded machine."""
    import time

    from monitorbench.sandbox import client
    from monitorbench.sandbox.client import WorkerSession, minimal_env

    assert client.START_TIMEOUT <= 10
    timeout = 3.0
    monkeypatch.setattr(client, "START_TIMEOUT", timeout)
    suite = apply_exclusions(load_suite(suites_dir / "bfcl"))
    task = suite.tasks[sorted(suite.tasks)[0]]
    job = TaskJob(task, suite.cases[task.task_id][:1], suite.public_dir(task.task_id),
                  tmp_path, "vhash", view_for(AccessConfig(), task.task_type),
                  suite.suite_hash, 1, "raw_parsed")
    store = JudgmentStore(tmp_path / "judgments.jsonl")
    t0 = time.monotonic()
    judge_task(job, store, lambda job: WorkerSession(["sleep", "600"], minimal_env(),
                                                     SandboxSpec()), retries=1)
    took = time.monotonic() - t0
    store.close()
    lines = _lines(tmp_path / "judgments.jsonl")
    assert [r["reason"] for r in lines] == ["sandbox_error", "sandbox_error"]
    assert all(f"no answer within {timeout:.1f} s" in r["detail"] for r in lines)
    assert 2 * timeout <= took < 2 * timeout + 5   # two attempts, one wait each
