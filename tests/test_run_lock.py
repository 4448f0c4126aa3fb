"""One job per run key: an identical second job refuses naming the holder, or waits and reuses.

Real jobs throughout: two ``python -m monitorbench`` processes started together on one outputs
directory (bubblewrap sandbox, replayed verifiers that take 0.2 s per case, so the twins overlap),
and in-process ``run_job`` against a lock this test holds the way another job's process would
(replayed verifiers that answer at once: there the test, not judging, holds the lock).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mlflow_server import job_in_process, seed_store  # noqa: F401  (fixture)
from pipeline_helpers import ROOT, compose_cfg
from monitorbench.launch.run import run_job
from monitorbench.launch.run_lock import RunBusyError, run_lock
from monitorbench.sandbox.bwrap import bwrap_usable
from monitorbench.suites.format import load_suite

pytestmark = pytest.mark.skipif(not bwrap_usable(), reason="needs a working bubblewrap")

SLOW_VERIFIER = '''import time
def verify(candidate, env):
    time.sleep(0.2)
    return "PASS"
'''
FAST_VERIFIER = '''def verify(candidate, env):
    return "PASS"
'''


def _verifiers(tmp: Path, suites: Path, source: str = SLOW_VERIFIER) -> Path:
    for tid in load_suite(suites / "bfcl").tasks:
        (tmp / "v" / tid).mkdir(parents=True)
        (tmp / "v" / tid / "main.py").write_text(source)
    return tmp / "v"


def test_two_identical_jobs_started_together_judge_each_case_once(
        tmp_path: Path, suites_dir: Path) -> None:
    vdir = _verifiers(tmp_path, suites_dir)
    cmd = [sys.executable, "-m", "monitorbench", "generator=replay", f"generator.dir={vdir}",
           f"paths.outputs={tmp_path / 'out'}", f"paths.suites={suites_dir}",
           "tracking.enabled=false", "task.max_tasks_per_type=2", "wait_for_lock=true"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    twins = [subprocess.Popen([*cmd, f"hydra.run.dir={tmp_path / f'hydra{i}'}"], cwd=tmp_path,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in (0, 1)]
    results = [(p.wait(timeout=600), *p.communicate()) for p in twins]
    assert [rc for rc, _, _ in results] == [0, 0], [err[-2000:] for _, _, err in results]
    (run_dir,) = (tmp_path / "out" / "runs").iterdir()   # one run key, one directory
    lines = [json.loads(x) for x in (run_dir / "judgments.jsonl").read_text().splitlines()]
    keys = [(r["task_id"], r["case_id"], r["round"]) for r in lines]
    n_cases = json.loads((run_dir / "metrics.json").read_text())["n_cases"]
    assert len(keys) == len(set(keys)) == n_cases   # each case judged once, by one twin


def test_a_second_job_refuses_naming_the_holder_or_waits_for_it(
        tmp_path: Path, suites_dir: Path) -> None:
    vdir = _verifiers(tmp_path, suites_dir, FAST_VERIFIER)
    overrides = ["generator=replay", f"generator.dir={vdir}", "tracking.enabled=false",
                 "task.max_tasks_per_type=1"]
    first = run_job(compose_cfg(tmp_path / "out", suites_dir, overrides))
    (run_dir,) = (tmp_path / "out" / "runs").iterdir()
    with run_lock(run_dir):   # as a running identical job holds it
        with pytest.raises(RunBusyError, match=rf"in use by another job .*pid {os.getpid()} .*"
                                               r"wait_for_lock=true"):
            run_job(compose_cfg(tmp_path / "out", suites_dir, overrides))

    holder = threading.Thread(target=_hold, args=(run_dir, 1.0))
    holder.start()
    time.sleep(0.2)
    t0 = time.monotonic()
    again = run_job(compose_cfg(tmp_path / "out", suites_dir,
                                overrides + ["wait_for_lock=true"]))
    holder.join()
    assert time.monotonic() - t0 >= 0.7   # it waited for the holder
    assert (again["cache/judgments_new"] == 0
            and again["cache/judgments_reused"] == first["cache/judgments_new"])


def test_a_refused_twin_leaves_the_holders_mlflow_run_alone(
        tmp_path: Path, suites_dir: Path, store_template: Path, job_in_process: None) -> None:
    """The twin finds the holder's MLflow run (same configuration) but must not mark it FAILED
    with its own refusal: the run belongs to the job that holds the lock."""
    from mlflow.tracking import MlflowClient

    vdir = _verifiers(tmp_path, suites_dir, FAST_VERIFIER)
    seed_store(store_template, tmp_path / "out")
    overrides = ["generator=replay", f"generator.dir={vdir}", "task.max_tasks_per_type=1"]
    run_job(compose_cfg(tmp_path / "out", suites_dir, overrides))
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'out'}/mlflow.db")
    (run,) = client.search_runs([client.get_experiment_by_name("Default").experiment_id])
    client.update_run(run.info.run_id, status="RUNNING")   # as the live holder's run is
    (run_dir,) = (tmp_path / "out" / "runs").iterdir()
    with run_lock(run_dir):
        with pytest.raises(RunBusyError):
            run_job(compose_cfg(tmp_path / "out", suites_dir, overrides))
    after = client.get_run(run.info.run_id)
    assert after.info.status == "RUNNING" and "monitorbench.error" not in after.data.tags


def _hold(run_dir: Path, seconds: float) -> None:
    with run_lock(run_dir):
        time.sleep(seconds)


def test_a_new_run_directory_adopts_the_judgments_of_its_key_from_before_audits(
        tmp_path: Path) -> None:
    """The audit's hash joined the run key; the same configuration's directory under the key
    from before is copied (not moved) into the new one, and only when the new one has none."""
    from monitorbench.launch.run_lock import adopt_judgments

    old, new = tmp_path / "runs" / "oldkey", tmp_path / "runs" / "newkey"
    old.mkdir(parents=True)
    (old / "judgments.jsonl").write_text('{"a": 1}\n{"a": 2}\n')
    new.mkdir()
    adopt_judgments(new, old)
    assert (new / "judgments.jsonl").read_text() == (old / "judgments.jsonl").read_text()
    (new / "judgments.jsonl").write_text('{"a": 1}\n{"a": 2}\n{"a": 3}\n')
    adopt_judgments(new, old)   # the new directory's own judgments are never replaced
    assert len((new / "judgments.jsonl").read_text().splitlines()) == 3
    adopt_judgments(tmp_path / "runs" / "third", tmp_path / "runs" / "absent")
    assert not (tmp_path / "runs" / "third" / "judgments.jsonl").exists()
