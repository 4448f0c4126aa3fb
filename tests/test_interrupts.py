"""Ctrl-C stops a real job at once, keeps what it judged, and the re-run judges only the rest.

The job is a real ``python -m monitorbench`` process (Hydra, bubblewrap sandbox, a local
SQLite MLflow store) judging replayed verifiers that take 0.3 s per case, so judging lasts
long enough to be interrupted in the middle. The test sends SIGINT, as Ctrl-C in a terminal
does, once some judgments are on disk.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline_helpers import ROOT, interrupt, start_job
from monitorbench.audit.exclusions import apply_exclusions
from monitorbench.sandbox.bwrap import bwrap_usable
from monitorbench.suites.format import load_suite

pytestmark = pytest.mark.skipif(not bwrap_usable(), reason="needs a working bubblewrap")

SLOW_VERIFIER = '''import time
def verify(candidate, env):
    time.sleep(0.3)
    return "PASS"
'''
TASKS = 4  # per type; BFCL has one type here: 4 tasks, ~90 cases, ~15 s of judging


def _job(tmp: Path, suites: Path) -> list[str]:
    return [sys.executable, "-m", "monitorbench", "generator=replay",
            f"generator.dir={tmp / 'v'}", f"paths.outputs={tmp / 'out'}",
            f"paths.suites={suites}", f"tracking.tracking_uri=sqlite:///{tmp / 'mlflow.db'}",
            f"task.max_tasks_per_type={TASKS}", f"hydra.run.dir={tmp / 'hydra'}"]


def _lines(tmp: Path) -> list[dict]:
    files = list((tmp / "out" / "runs").glob("*/judgments.jsonl"))
    if not files:
        return []
    return [json.loads(x) for x in files[0].read_text().splitlines() if x.endswith("}")]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_ctrl_c_stops_within_2s_keeps_judgments_and_the_rerun_judges_the_rest(
        tmp_path: Path, suites_dir: Path) -> None:
    suite = apply_exclusions(load_suite(suites_dir / "bfcl"))
    for tid in suite.tasks:
        (tmp_path / "v" / tid).mkdir(parents=True)
        (tmp_path / "v" / tid / "main.py").write_text(SLOW_VERIFIER)
    proc = start_job(_job(tmp_path, suites_dir), cwd=tmp_path, env=_env(),
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while len(_lines(tmp_path)) < 10:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "judging never started"
        time.sleep(0.1)
    sent = time.monotonic()
    sent_how = interrupt(proc, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    took = time.monotonic() - sent
    assert proc.returncode == 130, f"{sent_how}\n{err}"
    assert took < 2.0, f"exit took {took:.1f} s after SIGINT"
    assert "Traceback" not in err
    hint = [x for x in err.splitlines() if x.startswith("interrupted:")]
    assert len(hint) == 1 and "run the same command again to resume" in hint[0], err
    kept = _lines(tmp_path)
    assert 10 <= len(kept) and all(r["outcome"] == "P" for r in kept)  # nothing half-written
    assert f"{len(kept)} judgments are kept" in hint[0]
    assert _mlflow_statuses(tmp_path) == ["KILLED"]

    rerun = subprocess.run(_job(tmp_path, suites_dir), cwd=tmp_path, env=_env(),
                           capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    metrics = json.loads(next((tmp_path / "out" / "runs").glob("*/metrics.json")).read_text())
    assert metrics["cache/judgments_reused"] == len(kept)
    final = _lines(tmp_path)
    keys = [(r["task_id"], r["case_id"]) for r in final]
    assert len(keys) == len(set(keys)) == metrics["n_cases"]  # each case judged once
    assert metrics["cache/judgments_new"] == len(final) - len(kept)
    assert final[:len(kept)] == kept  # the kept judgments were reused, not redone


def _mlflow_statuses(tmp: Path) -> list[str]:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp / 'mlflow.db'}")
    exps = client.search_experiments()
    return [r.info.status for r in client.search_runs([e.experiment_id for e in exps])]


def test_score_piped_into_head_ends_quietly(tmp_path: Path, suites_dir: Path) -> None:
    """`python -m monitorbench.score … | head -1`: the reader leaves after one line; score
    ends with status 0 and no BrokenPipeError traceback."""
    task = sorted(load_suite(suites_dir / "bfcl").tasks)[0]
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "main.py").write_text("def verify(candidate, env):\n    return 'PASS'\n")
    r = subprocess.run(
        ["bash", "-c", 'set -o pipefail; "$@" 2>"$ERR" | head -1', "score",
         sys.executable, "-m", "monitorbench.score", str(tmp_path / "v"), "--task", task,
         "--suites-dir", str(suites_dir), "--outputs-dir", str(tmp_path / "out")],
        env={**_env(), "ERR": str(tmp_path / "err")}, cwd=tmp_path, capture_output=True,
        text=True, timeout=300)
    err = (tmp_path / "err").read_text()
    assert r.returncode == 0 and r.stdout.startswith("case"), (r.stdout, err[-1500:])
    assert "Traceback" not in err and "BrokenPipe" not in err
