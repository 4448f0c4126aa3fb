"""Slurm requests that can never run fail fast, with the reason and the fix (issue: Slurm hangs
silently). The parsing rules are checked on sinfo/squeue text; the behaviour against the real
one-node cluster (slurm/localcluster.sh, 2 CPUs)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from monitorbench.errors import InputError
from monitorbench.launch.slurm_guard import (PendingWatch, fatal_pending, parse_sinfo,
                                             slurm_minutes, violations)
from slurm_helpers import ROOT, Cluster, sweep_args, sweep_env, sweep_runs, wait_for
from slurm_helpers import slurm_cluster  # noqa: F401  (session fixture)

SINFO = "debug*|2|20000|infinite|up\nbig|64|512000|2-00:00:00|up\nbig|128|1024000|2-00:00:00|up\n"


@pytest.mark.parametrize("text,minutes", [("infinite", None), ("30", 30), ("10:30", 10.5),
                                          ("01:00:00", 60), ("2-00:00:00", 2880), ("1-12", 2160)])
def test_slurm_time_formats(text: str, minutes: float | None) -> None:
    assert slurm_minutes(text) == minutes


def test_parse_sinfo_keeps_default_and_largest_node() -> None:
    parts = parse_sinfo(SINFO)
    assert parts["debug"].default and parts["debug"].cpus == 2
    assert parts["big"].cpus == 128 and parts["big"].memory_mb == 1024000
    assert parts["big"].time_limit_min == 2880 and not parts["big"].default


def test_violations_name_the_numbers_and_the_override() -> None:
    parts = parse_sinfo(SINFO)
    ok = {"partition": None, "cpus_per_task": 2, "mem_gb": 4, "timeout_min": 60}
    assert violations(ok, parts) == []
    [cpu] = violations({**ok, "cpus_per_task": 3}, parts)
    assert "cpus_per_task=3" in cpu and "2 CPUs" in cpu and "hydra.launcher.cpus_per_task=2" in cpu
    [mem] = violations({**ok, "mem_gb": 64}, parts)
    assert "20000 MB" in mem and "hydra.launcher.mem_gb=19" in mem
    [limit] = violations({**ok, "partition": "big", "timeout_min": 4000}, parts)
    assert "2880 min" in limit and "hydra.launcher.timeout_min=2880" in limit
    [typo] = violations({**ok, "partition": "bgi"}, parts)
    assert "'bgi' does not exist" in typo and "big, debug" in typo


def test_fatal_pending_ignores_reasons_that_clear() -> None:
    text = "11|PENDING|Resources\n12|PENDING|PartitionConfig\n13|RUNNING|None\n14|PENDING|Priority\n"
    assert fatal_pending(text) == [("12", "PartitionConfig")]


@pytest.mark.service
@pytest.mark.slow
def test_unsatisfiable_request_is_refused_before_submission(
        slurm_cluster: Cluster, suites_dir: Path, tmp_path: Path) -> None:
    started = time.monotonic()
    out = subprocess.run(sweep_args(suites_dir, "slurm", ["generator=always_accept,always_reject",
                                                          "task.max_tasks_per_type=2",
                                                          "hydra.launcher.cpus_per_task=3"]),
                         cwd=ROOT, env=sweep_env(tmp_path, slurm_cluster.env),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert time.monotonic() - started < 60
    text = out.stdout + out.stderr
    assert "cpus_per_task=3" in text and "has 2 CPUs" in text
    assert "hydra.launcher.cpus_per_task=2" in text
    assert not list(tmp_path.glob("hydra/*/*/.submitit/*")), "a job was submitted anyway"


@pytest.mark.service
@pytest.mark.slow
def test_pending_watch_cancels_a_job_that_can_never_start(slurm_cluster: Cluster,
                                                          tmp_path: Path) -> None:
    """A job submitted past the pre-check (here straight through sbatch) that pends with
    PartitionConfig is found, reported and cancelled within seconds."""
    job = slurm_cluster.run("sbatch", "--parsable", "--cpus-per-task=3", "--wrap", "true",
                            "-o", "/dev/null").strip()
    root = tmp_path / ".submitit"
    (root / job).mkdir(parents=True)
    watch = PendingWatch(root, interval=0.5)
    saved = dict(os.environ)
    os.environ.update(slurm_cluster.env)  # the watch calls squeue/scancel on this cluster
    try:
        watch.start()
        wait_for(lambda: watch.failure, 30, "the watch to give up on the job")
    finally:
        watch.stop()
        os.environ.clear()
        os.environ.update(saved)
    assert "PartitionConfig" in watch.failure and job in watch.failure
    assert "PartitionConfig" in (tmp_path / "slurm_failure.txt").read_text()
    wait_for(lambda: slurm_cluster.job_fields(job)["JobState"] == "CANCELLED", 30,
             f"job {job} to be cancelled")


@pytest.mark.service
@pytest.mark.slow
def test_default_launcher_settings_fit_the_local_cluster(
        slurm_cluster: Cluster, suites_dir: Path, tmp_path: Path) -> None:
    """No sandbox.workers or cpus override: the defaults must run on a 2-CPU node."""
    out = subprocess.run(sweep_args(suites_dir, "slurm", ["generator=always_accept,always_reject",
                                                          "task.max_tasks_per_type=5"]),
                         cwd=ROOT, env=sweep_env(tmp_path, slurm_cluster.env),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    parent, children = sweep_runs(tmp_path)
    assert len(children) == 2 and all(c.info.status == "FINISHED" for c in children)


def test_check_request_without_slurm_names_the_alternative(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    from monitorbench.launch.slurm_guard import check_request

    monkeypatch.setenv("PATH", str(tmp_path))  # no sinfo on PATH
    with pytest.raises(InputError, match="hydra/launcher=local"):
        check_request({"partition": None, "cpus_per_task": 2, "mem_gb": 4, "timeout_min": 60})
