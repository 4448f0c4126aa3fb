"""Judging never waits on tracking: a real `mlflow server` killed mid-job, or down from the
start, costs seconds, not minutes. The job writes its local results (metrics.json,
judgments.csv, the console summary), ends with one line saying the run was not logged, and the
re-run once the server is back logs it, reusing every judgment."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from cli_in_process import python_m, run_here
from mlflow_server import (MlflowServer, free_port, job_in_process,  # noqa: F401  (fixture)
                           seed_store, start_server, stop_server)
from pipeline_helpers import ROOT, compose_cfg

pytestmark = pytest.mark.slow

ENDS_WITHIN_S = 60
NOT_LOGGED = "the run was not logged"
# Judged while the server is killed: 10 BFCL tasks, 232 cases at ~30 ms each with one sandbox
# worker, seconds of judging left after the first 200 bytes of judgments (25 tasks showed
# nothing more at 2.5x the judging).
TASKS = "task.max_tasks_per_type=10"


def _job(outputs: Path, suites: Path, uri: str, *extra: str) -> list[str]:
    """The job's ``python -m monitorbench`` arguments."""
    return ["generator=always_accept", f"paths.suites={suites}", f"paths.outputs={outputs}",
            "sandbox.workers=1", f"tracking.tracking_uri={uri}", *extra]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("MLFLOW_TRACKING_URI", None)
    return env


def _run(args: list[str], monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> subprocess.CompletedProcess:
    """``python -m monitorbench ARGS`` to its end, in this process (tests/cli_in_process.py:
    the module's own ``run(argv)``): its exit status, and its log and summary in ``stdout``
    (Hydra logs to stdout), as the command gives them. The server-killed job is a real
    process."""
    return run_here(python_m, args, monkeypatch, capsys)


def _rerun(outputs: Path, suites: Path, uri: str, *extra: str) -> dict[str, float]:
    """The same job again, in this process (its settings as :func:`_job` gives the CLI): a run
    that could not be logged fails it (``tracking.when_down=fail``) or leaves no run to find."""
    from monitorbench.launch.run import run_job

    return run_job(compose_cfg(outputs, suites, ["generator=always_accept", "sandbox.workers=1",
                                                 f"tracking.tracking_uri={uri}", *extra]))


def _results(outputs: Path) -> Path:
    [run_dir] = list((outputs / "runs").iterdir())
    assert json.loads((run_dir / "metrics.json").read_text())["n_tasks"] > 0
    assert (run_dir / "judgments.csv").stat().st_size > 0
    return run_dir


def _last_line(text: str) -> str:
    return [line for line in text.splitlines() if line.strip()][-1]


def _runs(server: MlflowServer, experiment: str) -> list:
    client = server.client()
    exp = client.get_experiment_by_name(experiment)
    return client.search_runs([exp.experiment_id]) if exp else []


@dataclass
class ServerHome:
    """The module's server: one store at one address, taken down and brought back by the tests
    (each with its own experiment). The server the log-later test brings up is the one the
    next test kills mid-job, so the module starts two servers, not three: a start costs ~15
    CPU-seconds (the ``mlflow server`` command and its uvicorn worker each import MLflow)."""

    root: Path
    port: int
    server: MlflowServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def up(self) -> MlflowServer:
        if self.server is None:
            self.server = start_server(self.root, self.port)
        return self.server

    def kill(self) -> None:
        """SIGKILL to the server's process group: no goodbye."""
        if self.server is not None:
            os.killpg(self.server.proc.pid, signal.SIGKILL)
            self.server.proc.wait()
            self.server = None

    def down(self) -> None:
        if self.server is not None:
            stop_server(self.server)
            self.server = None


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, store_template: Path) -> Iterator[ServerHome]:
    root = tmp_path_factory.mktemp("mlflow-home")
    seed_store(store_template, root)
    served = ServerHome(root, free_port())
    try:
        yield served
    finally:
        served.down()


def test_server_down_at_the_start_with_log_later_judges_then_the_rerun_logs(
        tmp_path: Path, suites_dir: Path, home: ServerHome, job_in_process: None,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    home.down()                                  # nothing listens at the server's address
    outputs = tmp_path / "out"
    extra = ("tracking.when_down=log_later", "tracking.experiment_name=log_later",
             "task.max_tasks_per_type=3")
    t0 = time.time()
    out = _run(_job(outputs, suites_dir, home.url, *extra), monkeypatch, capsys)
    assert time.time() - t0 < ENDS_WITHIN_S
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "Traceback" not in out.stdout + out.stderr
    assert NOT_LOGGED in _last_line(out.stdout)
    _results(outputs)

    server = home.up()
    _rerun(outputs, suites_dir, home.url, *extra)
    [run] = _runs(server, "log_later")
    assert run.info.status == "FINISHED" and run.data.metrics["cache/judgments_new"] == 0


def test_server_killed_mid_job_writes_local_results_and_the_rerun_logs(
        tmp_path: Path, suites_dir: Path, home: ServerHome, job_in_process: None) -> None:
    home.up()
    outputs = tmp_path / "out"
    extra = (TASKS, "tracking.experiment_name=server_killed")
    proc = subprocess.Popen([sys.executable, "-m", "monitorbench",
                             *_job(outputs, suites_dir, home.url, *extra)], cwd=ROOT,
                            env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        deadline = time.time() + 300
        while time.time() < deadline and proc.poll() is None and not any(
                f.stat().st_size > 200 for f in outputs.glob("runs/*/judgments.jsonl")):
            time.sleep(0.2)
        assert proc.poll() is None, "the job ended before judging was under way"
        home.kill()                              # the server dies, no goodbye
        killed_at = time.time()
        out, err = proc.communicate(timeout=600)
        took = time.time() - killed_at
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert took < ENDS_WITHIN_S, (took, out[-3000:])
    assert proc.returncode == 2, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
    assert NOT_LOGGED in _last_line(out), out[-2000:]
    assert "BA_norm" in out                      # the console summary was printed
    run_dir = _results(outputs)
    judged = (run_dir / "judgments.jsonl").read_text().count("\n")

    server = home.up()                           # same store, same address
    _rerun(outputs, suites_dir, home.url, *extra)   # logged, or it raises "not logged"
    [run] = _runs(server, "server_killed")       # the interrupted run, taken over: no twin
    assert run.info.status == "FINISHED"
    assert run.data.metrics["cache/judgments_new"] == 0
    assert int(run.data.params["n_tasks"]) == json.loads(   # a size: a param
        (run_dir / "metrics.json").read_text())["n_tasks"]
    assert (run_dir / "judgments.jsonl").read_text().count("\n") == judged


def test_server_down_at_the_start_fails_in_seconds_before_judging(
        tmp_path: Path, suites_dir: Path, job_in_process: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    uri = f"http://127.0.0.1:{free_port()}"      # nothing listens there
    t0 = time.time()
    out = _run(_job(tmp_path, suites_dir, uri), monkeypatch, capsys)
    assert time.time() - t0 < ENDS_WITHIN_S
    assert out.returncode == 2, out.stdout[-3000:]
    assert "Traceback" not in out.stdout + out.stderr
    line = _last_line(out.stdout)
    assert "unreachable" in line and "nothing was judged" in line, line
    assert not list(tmp_path.glob("runs/*/judgments.jsonl"))


def test_twin_jobs_on_a_fresh_sqlite_store_do_not_race_on_its_schema(tmp_path: Path) -> None:
    """Two processes opening one new SQLite store at once: MLflow's schema migrations ran
    twice and one failed with ``duplicate column name: step``; the store lock serialises them."""
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    code = ("import sys; from monitorbench.tracking.mlflow_logger import client_for; "
            "c = client_for(sys.argv[1]); print(len(c.search_experiments()))")
    procs = [subprocess.Popen([sys.executable, "-c", code, uri], cwd=ROOT, env=_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
