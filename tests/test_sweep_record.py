"""A sweep tells its jobs their parent run and the settings it varies through its own record in
the sweep directory, not through the environment: Slurm, submitit-local and in-process jobs
read it by the sweep directory their config names, and nothing leaks into later sweeps of the
same process. (End to end, with real jobs: tests/test_mlflow_runs.py and tests/slurm/.)"""

from __future__ import annotations

import os
from pathlib import Path

from hydra import compose, initialize_config_dir
from omegaconf import open_dict

from pipeline_helpers import ROOT
from monitorbench.pipeline.prepare import typed_config


def _compose(tmp_path: Path, overrides: list[str], hydra: bool = True):
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        return compose("config", return_hydra_config=hydra, overrides=[
            f"paths.outputs={tmp_path}", f"tracking.tracking_uri=sqlite:///{tmp_path}/mlflow.db",
            "task.max_tasks_per_type=3", *overrides])


def _ours() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith("MONITORBENCH")}


def test_the_sweep_record_names_the_parent_and_the_axes_and_leaves_the_environment(
        tmp_path: Path) -> None:
    from mlflow.tracking import MlflowClient

    from monitorbench.launch.callbacks import MlflowSweepCallback
    from monitorbench.tracking.job import axis_labels, run_name
    from monitorbench.tracking.sweep_record import SweepPlace, read_record

    sweep = _compose(tmp_path, [])
    with open_dict(sweep):
        sweep.hydra.sweep.dir = str(tmp_path / "sweep")
        sweep.hydra.overrides.task = ["generator=always_accept,schema_check",
                                      "sandbox.workers=1,2", "task.max_tasks_per_type=3"]
    before = _ours()
    callback = MlflowSweepCallback()
    callback.on_multirun_start(sweep)
    record = read_record(tmp_path / "sweep")
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    try:
        assert _ours() == before                               # nothing process-global
        assert record.axes == ("generator", "sandbox.workers")
        parent = client.get_run(record.parent_run_id)
        assert parent.data.tags["monitorbench.role"] == "sweep"

        job = typed_config(_compose(tmp_path, ["generator=schema_check", "sandbox.workers=2"],
                                    hydra=False))
        place = SweepPlace(record.parent_run_id,
                           axis_labels(job, record.axes, {"generator": "schema_check"}))
        assert run_name(job, place) == (f"schema·{job.access.alias}·{job.task.name}"
                                        "·workers=2·3/type")
        assert run_name(job, place, full=True) == (
            f"schema_check·{job.access.name}·{job.task.name}·workers=2·3/type")
    finally:
        callback._close_abandoned(str(client.tracking_uri), record.parent_run_id)
        callback.parent_run_id = None                         # the exit hook has nothing left
    assert client.get_run(record.parent_run_id).info.status == "KILLED"


def test_a_job_outside_a_recorded_sweep_has_no_parent(tmp_path: Path) -> None:
    from monitorbench.tracking.sweep_record import SweepRecord, read_record

    assert read_record(tmp_path / "no_sweep_here") == SweepRecord(None, ())
