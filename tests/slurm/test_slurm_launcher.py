"""Sweeps through a real one-node Slurm cluster (slurm/localcluster.sh) with hydra/launcher=slurm."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from slurm_helpers import (ROOT, SMALL_SWEEP, Cluster, cluster_env, kill_job_tasks, localcluster,
                           run_sweep, submitit_dirs, sweep_args, sweep_env, sweep_runs, wait_for)
from slurm_helpers import slurm_cluster  # noqa: F401  (session fixture)

pytestmark = [pytest.mark.service, pytest.mark.slow]


def test_localcluster_is_idempotent_and_reports_its_env(slurm_cluster: Cluster) -> None:
    again = localcluster("start", slurm_cluster.dir)
    assert again.returncode == 0 and "already running" in again.stderr
    assert cluster_env(again.stdout)["SLURM_CONF"] == str(slurm_cluster.dir / "slurm.conf")
    status = localcluster("status", slurm_cluster.dir)
    assert status.returncode == 0
    assert "idle" in slurm_cluster.run("sinfo", "-h", "-o", "%T")
    # The stand-in answers submitit's query for a job slurmctld knows.
    job = slurm_cluster.run("sbatch", "--parsable", "--wrap", "true", "-o", "/dev/null").strip()
    wait_for(lambda: slurm_cluster.job_fields(job)["JobState"] == "COMPLETED", 30,
             f"job {job} to complete")
    sacct = slurm_cluster.run("sacct", "-o", "JobID,State,NodeList", "--parsable2", "-j", job)
    assert sacct.splitlines() == ["JobID|State|NodeList", f"{job}|COMPLETED|localhost"]


def test_stop_cancels_jobs_and_leaves_no_daemons(slurm_cluster: Cluster, tmp_path: Path) -> None:
    """A second cluster next to the session's: its own ports; stop ends its jobs and daemons."""
    started = localcluster("start", tmp_path)
    assert started.returncode == 0, started.stderr
    own = Cluster(tmp_path, cluster_env(started.stdout))
    pids = [int((tmp_path / f).read_text()) for f in
            ("slurmctld.pid", "slurmd.pid", "munge/munged.pid")]
    job = own.run("sbatch", "--parsable", "--wrap", "sleep 600", "-o", "/dev/null").strip()
    wait_for(lambda: own.job_fields(job)["JobState"] == "RUNNING", 30, "the job to start")
    assert "idle" in slurm_cluster.run("sinfo", "-h", "-o", "%T")  # the other cluster is apart
    stopped = localcluster("stop", tmp_path)
    assert stopped.returncode == 0, stopped.stderr
    for pid in pids:
        assert not _running(pid), f"daemon {pid} still running"
    leftover = subprocess.run(["pgrep", "-f", f"{tmp_path}/spool"], capture_output=True, text=True)
    assert leftover.stdout == "", "the job's batch script outlived the cluster"
    assert localcluster("status", tmp_path).returncode == 3
    assert localcluster("stop", tmp_path).returncode == 0  # stopping twice is fine


def test_two_job_sweep_runs_as_slurm_jobs_under_one_mlflow_parent(
        slurm_cluster: Cluster, suites_dir: Path, tmp_path: Path) -> None:
    run_sweep(tmp_path, suites_dir, "slurm", SMALL_SWEEP, env=slurm_cluster.env)
    jobs = submitit_dirs(tmp_path)
    assert len(jobs) == 2
    for job in jobs:  # array tasks <array id>_<index>, finished on the cluster
        assert slurm_cluster.job_fields(job.name)["JobState"] == "COMPLETED"
    parent, children = sweep_runs(tmp_path)
    by_gen = {c.data.tags["monitorbench.generator"]: c for c in children}
    assert sorted(by_gen) == ["always_accept", "always_reject"]
    assert (by_gen["always_accept"].data.metrics["tpr"],
            by_gen["always_accept"].data.metrics["tnr"]) == (100.0, 0.0)
    assert (by_gen["always_reject"].data.metrics["tpr"],
            by_gen["always_reject"].data.metrics["tnr"]) == (0.0, 100.0)
    assert all(c.info.status == "FINISHED" for c in children)
    assert parent.info.status == "FINISHED"


def test_a_sweep_with_the_docker_sandbox_runs_on_the_cluster(
        slurm_cluster: Cluster, suites_dir: Path, tmp_path: Path, docker_image: str) -> None:
    """As a cluster user would: `sandbox=docker` on the Slurm launcher; the jobs judge in
    containers of the run's engine (the jobs inherit DOCKER_HOST) with the recipe's image."""
    since = subprocess.run(["docker", "system", "info", "-f", "{{.SystemTime}}"],
                           capture_output=True, text=True, check=True).stdout.strip()
    env = {**slurm_cluster.env, "DOCKER_HOST": os.environ["DOCKER_HOST"]}
    run_sweep(tmp_path, suites_dir, "slurm", [*SMALL_SWEEP, "sandbox=docker"], env=env)
    jobs = submitit_dirs(tmp_path)
    assert len(jobs) == 2
    assert all(slurm_cluster.job_fields(j.name)["JobState"] == "COMPLETED" for j in jobs)
    _, children = sweep_runs(tmp_path)
    by_gen = {c.data.tags["monitorbench.generator"]: c.data.metrics for c in children}
    assert (by_gen["always_accept"]["tpr"], by_gen["always_reject"]["tnr"]) == (100.0, 100.0)
    until = subprocess.run(["docker", "system", "info", "-f", "{{.SystemTime}}"],
                           capture_output=True, text=True, check=True).stdout.strip()
    started = subprocess.run(["docker", "events", "--since", since, "--until", until,
                              "--filter", "event=start", "--filter", "label=monitorbench.session",
                              "--format", "{{.From}}"],
                             capture_output=True, text=True, check=True).stdout.split()
    assert started and set(started) == {docker_image}, started   # judged in containers


def _running(pid: int) -> bool:
    """Alive and not a zombie (this machine's init reaps exited daemons lazily)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _judgments(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


# How a running job gets sent back to the queue:
#   preempt: USR2, what Slurm sends `signal_delay_s` before the time limit or on preemption;
#            submitit checkpoints the job (same overrides) and requeues it itself;
#   requeue: `scontrol requeue` by an admin or a preempting job: SIGTERM (submitit ignores it),
#            SIGKILL after KillWait, and the original submission runs again.
INTERRUPT = {"preempt": ("scancel", "--signal=USR2"), "requeue": ("scontrol", "requeue")}


@pytest.mark.parametrize("how", sorted(INTERRUPT))
def test_interrupted_job_is_requeued_and_resumes_without_repeating_judgments(
        slurm_cluster: Cluster, suites_dir: Path, tmp_path: Path, how: str) -> None:
    """The rerun of a requeued job must pick up its judgment store and generation cache.
    40 tasks (~900 cases): interrupted after 150 judgments (a requeue's SIGKILL sent at once,
    see kill_job_tasks), the first attempt is cut short with hundreds left for the rerun (100
    tasks made the rerun judge ~2,000 cases, a minute, for nothing more)."""
    args = sweep_args(suites_dir, "slurm", ["generator=always_accept",
                                             "task.max_tasks_per_type=40", "sandbox.workers=1"])
    proc = subprocess.Popen(args, cwd=ROOT, env=sweep_env(tmp_path, slurm_cluster.env),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        jfile = wait_for(lambda: next(iter(tmp_path.glob("runs/*/judgments.jsonl")), None), 120,
                         "the job to start judging")
        wait_for(lambda: len(jfile.read_text().splitlines()) > 150, 120, "150 judgments")
        job = wait_for(lambda: submitit_job_id(tmp_path), 30, "the submitit job folder")
        slurm_cluster.run(*INTERRUPT[how], job)
        if how == "requeue":  # KillWait's SIGKILL, which the local cluster delivers late
            assert kill_job_tasks(job, tmp_path) >= 1, f"no process of job {job} found"
        before = len(jfile.read_text().splitlines())
        # Slurm holds a requeued batch job for ~2 minutes (BeginTime); release it now.
        wait_for(lambda: slurm_cluster.job_fields(job).get("Restarts") == "1"
                 and slurm_cluster.job_fields(job)["JobState"] == "PENDING", 60,
                 f"job {job} to be requeued")
        slurm_cluster.run("scontrol", "update", f"JobId={job}", "StartTime=now")
        out, _ = proc.communicate(timeout=400)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out[-4000:]
    log = "".join(p.read_text() for p in tmp_path.glob("hydra/*/*/.submitit/*/*_log.*"))
    if how == "preempt":
        assert "this job is preempted" in log
    assert slurm_cluster.job_fields(job)["Restarts"] == "1"

    records = _judgments(jfile)
    # A sandbox worker killed by Slurm's signal mid-case leaves a sandbox_error record that the
    # rerun judges again (judging/store.py RETRY_REASONS); every other judgment is done once.
    retried = [r for r in records if r["reason"] == "sandbox_error"]
    done = [(r["task_id"], r["case_id"], r["round"], r["verifier_hash"]) for r in records
            if r["reason"] != "sandbox_error"]
    assert len(done) == len(set(done)), "a finished judgment was repeated after the requeue"
    assert {(r["task_id"], r["case_id"], r["round"], r["verifier_hash"]) for r in retried} \
        <= set(done), "a sandbox failure from the interrupted attempt was never judged again"
    metrics = json.loads((jfile.parent / "metrics.json").read_text())
    assert metrics["cache/judgments_reused"] >= before - 1 - len(retried)  # + at most a torn line
    assert metrics["cache/judgments_new"] > 0  # the first attempt was really cut short
    assert (metrics["cache/judgments_reused"] + metrics["cache/judgments_new"]
            == metrics["n_cases"] == len(done))
    assert metrics["cache/generation_hits"] == metrics["n_tasks"]  # no generation repeated
    assert metrics["tpr"] == 100.0  # the interruption left no U behind
    _, children = sweep_runs(tmp_path)
    assert len(children) == 1 and children[0].info.status == "FINISHED"


def submitit_job_id(outputs: Path) -> str | None:
    """The Slurm job id of the sweep's single job: the name of its submitit folder (a one-job
    sweep is submitted as a plain job, not an array)."""
    for d in outputs.glob("hydra/*/*/.submitit/*"):
        if d.name.isdigit():
            return d.name
    return None
