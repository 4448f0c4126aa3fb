"""The same small sweep with hydra/launcher=local: submitit runs each job as its own process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from slurm_helpers import SMALL_SWEEP, run_sweep, submitit_dirs, sweep_runs

pytestmark = pytest.mark.slow


def test_two_job_sweep_runs_as_local_processes_under_one_mlflow_parent(
        suites_dir: Path, tmp_path: Path) -> None:
    run_sweep(tmp_path, suites_dir, "local", SMALL_SWEEP)
    jobs = submitit_dirs(tmp_path)
    assert len(jobs) == 2
    # submitit-local names each job folder after the job's process id: two separate processes,
    # neither of them this one.
    assert all(j.name.isdigit() for j in jobs) and len({j.name for j in jobs}) == 2
    assert str(os.getpid()) not in {j.name for j in jobs}
    parent, children = sweep_runs(tmp_path)
    metrics = {c.data.tags["monitorbench.generator"]: c.data.metrics for c in children}
    assert {g: (m["tpr"], m["tnr"]) for g, m in metrics.items()} == {
        "always_accept": (100.0, 0.0), "always_reject": (0.0, 100.0)}
    assert parent.info.status == "FINISHED"
