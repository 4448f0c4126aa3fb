"""Helpers for launcher tests: the local Slurm cluster, sweeps in a subprocess, MLflow read-back.

A module with a unique name, not a conftest.py: a conftest here would shadow tests/conftest.py
for the modules that do `from conftest import ...`. Test modules import the `slurm_cluster`
fixture from here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCALCLUSTER = ROOT / "slurm" / "localcluster.sh"
# Two jobs of 3 BFCL tasks each: enough for a parent, two children and their TPR/TNR; each job's
# time is mostly its start-up (10 tasks per job judged ~160 more cases and showed nothing more).
SMALL_SWEEP = ["generator=always_accept,always_reject", "task.max_tasks_per_type=3",
               "sandbox.workers=1"]


@dataclass
class Cluster:
    """A running one-node cluster: its directory and the environment that reaches it."""

    dir: Path
    env: dict[str, str]

    def run(self, *args: str, check: bool = True) -> str:
        """Run a Slurm client command (scontrol, squeue, ...) against this cluster."""
        out = subprocess.run(list(args), env=self.env, capture_output=True, text=True,
                             timeout=30)
        if check and out.returncode != 0:
            raise AssertionError(f"{' '.join(args)} failed: {out.stderr}")
        return out.stdout

    def job_fields(self, job_id: str) -> dict[str, str]:
        """`scontrol show job -o` of one job (the first record of an array) as a dict."""
        line = self.run("scontrol", "show", "job", "-o", job_id).splitlines()[0]
        return dict(tok.split("=", 1) for tok in line.split() if "=" in tok)


def cluster_env(exports: str) -> dict[str, str]:
    """The process environment plus the `export K=V` lines localcluster.sh prints."""
    env = dict(os.environ)
    for line in exports.splitlines():
        if line.startswith("export ") and "=" in line:
            key, value = line[len("export "):].split("=", 1)
            env[key] = value.replace("$PATH", env.get("PATH", ""))
    return env


def skip_reason() -> str | None:
    """Why the local cluster cannot run here, or None when it can."""
    missing = [b for b in ("slurmctld", "slurmd", "munged", "sbatch") if shutil.which(b) is None]
    if missing:
        return (f"{', '.join(missing)} not installed: apt-get install slurm-wlm munge "
                "(bash scripts/install.sh test does it)")
    if os.geteuid() != 0:
        return "the local cluster runs its daemons as SlurmUser=root; run the tests as root"
    return None


def localcluster(command: str, directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(LOCALCLUSTER), command, str(directory)],
                          capture_output=True, text=True, timeout=120)


def sweep_args(suites: Path, launcher: str, overrides: list[str]) -> list[str]:
    return [sys.executable, "-m", "monitorbench", "-m", f"hydra/launcher={launcher}",
            f"paths.suites={suites}", *overrides]


def sweep_env(outputs: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(base if base is not None else os.environ)
    env["MONITORBENCH_OUTPUTS"] = str(outputs)
    env.pop("MLFLOW_TRACKING_URI", None)  # the sweep logs to sqlite under outputs
    return env


def run_sweep(outputs: Path, suites: Path, launcher: str, overrides: list[str],
              env: dict[str, str] | None = None, timeout: int = 400) -> subprocess.CompletedProcess:
    out = subprocess.run(sweep_args(suites, launcher, overrides), cwd=ROOT,
                         env=sweep_env(outputs, env), capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out


def sweep_runs(outputs: Path, experiment: str = "Default") -> tuple[Any, list[Any]]:
    """The sweep's parent run and its child runs, from the sweep's own MLflow store."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{outputs}/mlflow.db")
    exp = client.get_experiment_by_name(experiment)
    assert exp is not None, f"no MLflow experiment {experiment!r} in {outputs}"
    runs = client.search_runs([exp.experiment_id])
    parents = [r for r in runs if r.data.tags.get("monitorbench.role") == "sweep"]
    assert len(parents) == 1, f"expected one sweep parent run, got {len(parents)}"
    parent = parents[0]
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
    return parent, children


def kill_job_tasks(job_id: str, outputs: Path) -> int:
    """SIGKILL every process of Slurm job ``job_id`` that runs with ``outputs`` (found by the
    environment Slurm and sweep_env give it); returns how many were signalled.

    The local cluster tracks processes by parent pid (proctrack/linuxproc, no cgroups), and its
    KillWait SIGKILL did not reach a requeued step in time: the step ended 7 s after the requeue,
    its job finishing all 928 judgments in between. Tests that need the attempt cut short send
    the SIGKILL that KillWait promises themselves."""
    want = {f"SLURM_JOB_ID={job_id}".encode(), f"MONITORBENCH_OUTPUTS={outputs}".encode()}
    killed = 0
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and want <= set(
                    (proc / "environ").read_bytes().split(b"\0")):
                os.kill(int(proc.name), 9)
                killed += 1
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue  # exited while we looked
    return killed


def submitit_dirs(outputs: Path) -> list[Path]:
    """The per-job submitit folders (`<job id>` or `<array id>_<index>`) of every sweep."""
    return sorted(p for p in outputs.glob("hydra/*/multirun_*/.submitit/*")
                  if p.is_dir() and any(p.glob("*_result.pkl")))


def wait_for(predicate, timeout: float, what: str, interval: float = 0.2) -> Any:
    """Poll until predicate() is truthy; fail with `what` after timeout seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Start the cluster once; stop it in teardown even when a test (or the start) failed."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    directory: Path = tmp_path_factory.mktemp("slurm-local")
    try:
        started = localcluster("start", directory)
        if started.returncode != 0:
            logs = "\n".join(f"--- {p.name}\n{p.read_text()[-1500:]}"
                             for p in sorted(directory.glob("**/*.log")))
            pytest.fail(f"slurm/localcluster.sh start failed:\n{started.stderr}\n{logs}")
        yield Cluster(directory, cluster_env(started.stdout))
    finally:
        stopped = localcluster("stop", directory)
        assert stopped.returncode == 0, stopped.stderr
