"""MLflow runs the way its users read them: opened when a job starts, short distinct names from
what the sweep varies, plain-string params, rounded headline metrics, a parent run that carries
the sweep's settings, and a failed job that still leaves a run saying why."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from cli_in_process import python_m, run_here
from mlflow_server import job_in_process, seed_store  # noqa: F401  (fixture)
from pipeline_helpers import ROOT, compose_cfg

pytestmark = pytest.mark.slow

# A job that is watched (or killed) mid-judging: 10 BFCL tool-call tasks, 232 cases at ~30 ms
# each with one sandbox worker, so it is still judging seconds after the first 2000 bytes of
# judgments (~4 cases) are written and the 0.2-0.3 s poll sees them. 40 tasks (~900 cases) and
# the whole suite (128 tasks, ~3,000 cases) showed nothing more, at 4-12x the judging time.
MID_JOB_TASKS = "task.max_tasks_per_type=10"
# The CLI jobs' settings, for the same job run in this process: no tracking URI (compose_cfg
# names one), so its store is outputs/mlflow.db and its run's params are the CLI job's.
IN_PROCESS = ["tracking.tracking_uri=null", "sandbox.workers=1"]


def _sweep(outputs: Path, suites: Path, args: list[str], monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> subprocess.CompletedProcess:
    """``python -m monitorbench ARGS`` to its end, in this process (tests/cli_in_process.py:
    the module's own ``run(argv)``, Hydra's sweep and its MLflow callback, without a Python
    start-up and MLflow's imports). A real sweep process is the killed one of the re-run test."""
    out = run_here(python_m, [*args, f"paths.suites={suites}", "sandbox.workers=1"],
                   monkeypatch, capsys, env={"MONITORBENCH_OUTPUTS": str(outputs)})
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out


def _runs(outputs: Path, experiment: str = "Default") -> list:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{outputs}/mlflow.db")
    exp = client.get_experiment_by_name(experiment)
    assert exp is not None
    return client.search_runs([exp.experiment_id])


def test_sweep_runs_have_distinct_short_names_plain_params_and_a_described_parent(
        tmp_path: Path, suites_dir: Path, store_template: Path, job_in_process: None,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    seed_store(store_template, tmp_path)
    _sweep(tmp_path, suites_dir, ["-m", "generator=always_accept,schema_check",
                                  "access=raw_parsed,parsed", "task.max_tasks_per_type=3"],
           monkeypatch, capsys)
    runs = _runs(tmp_path)
    [parent] = [r for r in runs if r.data.tags.get("monitorbench.role") == "sweep"]
    children = [r for r in runs if r is not parent]
    names = sorted(c.info.run_name for c in children)
    # The swept values name each run; the sample size is named too (3 tasks per type).
    assert names == ["accept·parsed·bfcl·3/type", "accept·r+p·bfcl·3/type",
                     "schema·parsed·bfcl·3/type", "schema·r+p·bfcl·3/type"]
    for c in children:
        assert c.info.status == "FINISHED"
        assert c.data.tags["mlflow.parentRunId"] == parent.info.run_id
        assert c.data.tags["monitorbench.access"] in ("raw_parsed", "parsed")
        params = c.data.params
        assert params["access.state"] == "record_exec"          # an enum value, not its repr
        assert not [v for v in params.values() if "AccessMode." in v or "Effort." in v]
        for key in ("ba_norm", "tpr", "tnr"):
            value = c.data.metrics[key]
            assert value == round(value, 2), (key, value)
        assert c.data.metrics["progress/generation"] == 3.0      # last point: all 3 verifiers
        # the sample's sizes are params (constants of the job, not curves), the rates metrics
        assert c.data.metrics["progress/judging"] == int(c.data.params["n_tasks"])  # 1 round
        assert int(c.data.params["n_cases"]) > 0
        assert not {"n_tasks", "n_cases", "group/gold/n"} & set(c.data.metrics)
        assert c.info.end_time - c.info.start_time > 0
    assert parent.data.params["sweep.generator"] == "always_accept,schema_check"
    assert parent.data.params["sweep.access"] == "raw_parsed,parsed"
    assert parent.data.params["override.task.max_tasks_per_type"] == "3"
    assert parent.data.tags["monitorbench.sweep_axes"] == "generator, access"
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    import json

    assert '"type": "table"' in parent.data.tags["mlflow.loggedArtifacts"]
    table = json.loads(Path(client.download_artifacts(
        parent.info.run_id, "leaderboard_table.json", str(tmp_path / "dl"))).read_text())
    rows = [dict(zip(table["columns"], row)) for row in table["data"]]
    assert sorted(r["run"] for r in rows) == names
    # ranked on the common pool: the same numbers in the table, leaderboard.md and the CSV
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    assert all(r["ba_norm"] is not None and r["tpr"] is not None for r in rows)
    for c in children:
        assert c.data.tags["monitorbench.git_commit"] and c.data.tags["monitorbench.version"]
        assert "attack/budget" not in c.data.metrics
    counts = {r["run"]: int(str(r["tasks"]).split()[0]) for r in rows}
    more = [run for run, n in counts.items() if n > min(counts.values())]  # parsed sets aside
    board = Path(client.download_artifacts(parent.info.run_id, "leaderboard.md",
                                           str(tmp_path / "dl"))).read_text()
    assert all(f"{run} (" in board for run in more)
    assert ("Task pools differ" in board) == bool(more)
    assert all((r["more_than_pool"] == "†") == (r["run"] in more) for r in rows)


def test_leaderboard_flags_rows_scored_on_a_larger_task_pool() -> None:
    from monitorbench.tracking.sweep_report import pool_note

    rows = [{"run": "a · raw_parsed", "tasks": 141}, {"run": "a · parsed", "tasks": 115}]
    note = pool_note(rows)
    assert note is not None and "† = scored more: a · raw_parsed (141)" in note
    assert pool_note([{"run": "x", "tasks": 5}, {"run": "y", "tasks": 5}]) is None


def test_a_job_that_fails_leaves_a_failed_run_with_the_error(
        tmp_path: Path, suites_dir: Path, store_template: Path, job_in_process: None) -> None:
    """The job runs in this process (what happens to its run is the job's doing, not the
    command line's; the CLI's exit status for bad input is tested in tests/test_cli.py)."""
    from monitorbench.errors import InputError
    from monitorbench.launch.run import run_job

    seed_store(store_template, tmp_path)
    missing = tmp_path / "no-such-verifiers"
    with pytest.raises(InputError, match="generator.dir"):
        run_job(compose_cfg(tmp_path, suites_dir, [*IN_PROCESS, "generator=replay",
                                                   f"generator.dir={missing}",
                                                   "task.max_tasks_per_type=2"]))
    [run] = _runs(tmp_path)
    assert run.info.status == "FAILED"
    assert "no-such-verifiers" in run.data.tags["monitorbench.error"]


def test_the_run_is_running_while_the_job_works(
        tmp_path: Path, suites_dir: Path, store_template: Path, job_in_process: None) -> None:
    """The run exists, RUNNING, before the job's judgments are done (not created at the end).
    The job runs in a thread of this process (what is watched is its MLflow run, not a
    process); this thread reads the store while it judges."""
    from monitorbench.launch.run import run_job

    seed_store(store_template, tmp_path)
    conf = compose_cfg(tmp_path, suites_dir, [*IN_PROCESS, "generator=always_accept",
                                              MID_JOB_TASKS])
    ended: list[BaseException | dict] = []
    job = threading.Thread(target=_capture, args=(lambda: run_job(conf), ended), daemon=True)
    job.start()
    try:
        seen = None
        deadline = time.time() + 180
        while time.time() < deadline and job.is_alive():
            judged = list((tmp_path / "runs").glob("*/judgments.jsonl"))
            if judged and judged[0].stat().st_size > 2000:
                seen = [r.info.status for r in _runs(tmp_path)]
                break
            time.sleep(0.1)
        assert seen == ["RUNNING"], (seen, ended)
    finally:
        job.join(600)
    assert len(ended) == 1 and isinstance(ended[0], dict), ended   # the job ended, no error
    assert [r.info.status for r in _runs(tmp_path)] == ["FINISHED"]


def _capture(call: Callable[[], dict], into: list) -> None:
    """Run ``call`` (in a thread), keeping what it returned or raised."""
    try:
        into.append(call())
    except BaseException as e:  # noqa: BLE001  handed to the test to report
        into.append(e)


def test_a_killed_job_resumes_its_own_run_instead_of_leaving_a_twin(
        tmp_path: Path, suites_dir: Path, store_template: Path, job_in_process: None) -> None:
    """SIGKILL mid-judging leaves the run RUNNING; the re-run of the same job continues that run
    (same id, FINISHED), while a job with other settings gets its own run. The killed job is a
    real process; the re-run and the other job run in this process with the same settings."""
    from monitorbench.launch.run import run_job

    seed_store(store_template, tmp_path)
    env = dict(os.environ, MONITORBENCH_OUTPUTS=str(tmp_path))
    env.pop("MLFLOW_TRACKING_URI", None)
    base = [sys.executable, "-m", "monitorbench", "generator=always_accept",
            f"paths.suites={suites_dir}", "sandbox.workers=1"]
    args = [*base, MID_JOB_TASKS]
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 180
    while time.time() < deadline and not any(
            f.stat().st_size > 2000 for f in (tmp_path / "runs").glob("*/judgments.jsonl")):
        time.sleep(0.2)
    assert proc.poll() is None, "the job ended before the kill"
    proc.kill()
    proc.wait()
    [killed] = _runs(tmp_path)
    assert killed.info.status == "RUNNING"  # SIGKILL: nothing could close it
    same = [*IN_PROCESS, "generator=always_accept"]
    done = run_job(compose_cfg(tmp_path, suites_dir, [*same, MID_JOB_TASKS]))
    # killed mid-judging
    assert (done["cache/judgments_reused"] > 0
            and done["cache/judgments_new"] > 0)
    [resumed] = _runs(tmp_path)
    assert resumed.info.run_id == killed.info.run_id and resumed.info.status == "FINISHED"
    run_job(compose_cfg(tmp_path, suites_dir, [*same, "task.max_tasks_per_type=2"]))
    assert len(_runs(tmp_path)) == 2


def test_a_harness_generation_logs_its_native_trajectory_but_no_links(
        tmp_path: Path, monkeypatch, store_template: Path) -> None:
    """A harness job's run holds, per task, the harness's own files (its HOME: mini-swe-agent's
    trajectory.json here, and its captured output) under ``native/<task>/``, beside the verifier
    and the converted trace, and names the harness program and version in a tag. A symlink the
    harness left in its HOME is not followed out of it.

    The generation directory is laid out by hand the way ``HarnessGenerator`` leaves it (the
    names come from the harness modules): running a real harness takes minutes and is covered
    in tests/generation/test_harnesses.py; what is tested here is what reaches MLflow."""
    from mlflow.tracking import MlflowClient

    from monitorbench.generation.base import SUBMITTED, GenerationResult
    from monitorbench.generation.harnesses.generator import OUTPUT_LOG
    from monitorbench.generation.harnesses.mini_swe import TRAJECTORY
    from monitorbench.generation.traces import TraceWriter
    from monitorbench.tracking.job import JobRun
    from pipeline_helpers import compose_cfg

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    seed_store(store_template, tmp_path)
    entry = tmp_path / "cache" / "generations" / "k1"
    (entry / "verifier").mkdir(parents=True)
    (entry / "verifier" / "main.py").write_text("print('PASS')\n")
    (entry / "home").mkdir()
    (entry / "home" / TRAJECTORY).write_text('{"messages": [{"role": "assistant"}]}')
    (entry / OUTPUT_LOG).write_text("mini-swe-agent: exit Submitted\n")
    secret = tmp_path / "host_secret.txt"
    secret.write_text("not for the run")
    (entry / "home" / "link.txt").symlink_to(secret)
    w = TraceWriter(entry / "trace.jsonl")
    w.write("start", {}, scaffold="mini_swe", harness="mini_swe", package="mini-swe-agent==2.4.6")
    w.write("model", {"model_calls": 1}, native=True, reply="THOUGHT: write main.py")
    w.write("end", {"model_calls": 1}, status="submitted")
    w.close()
    run_dir = tmp_path / "runs" / "r1"
    run_dir.mkdir(parents=True)
    for name in ("config.yaml", "judgments.csv", "metrics.json"):
        (run_dir / name).write_text("{}\n")
    gen = GenerationResult("bfcl.simple_python_1", SUBMITTED, entry / "verifier",
                           trace_path=entry / "trace.jsonl")

    cfg = compose_cfg(tmp_path, tmp_path / "suites", ["scaffold=mini_swe"])
    job = JobRun(cfg)
    job.finish(run_dir=run_dir, run_key="r1", metrics={"n_tasks": 1.0}, records=[],
               generations={gen.task_id: gen})

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    run = client.get_run(job.run_id)
    assert run.info.status == "FINISHED"
    assert run.data.tags["monitorbench.harness"] == "mini-swe-agent==2.4.6"  # name and version
    assert run.data.params["n_tasks"] == "1" and "n_tasks" not in run.data.metrics  # a size
    got = Path(client.download_artifacts(job.run_id, "native", str(tmp_path / "dl")))
    task = got / "bfcl.simple_python_1"
    files = sorted(str(p.relative_to(task)) for p in task.rglob("*") if p.is_file())
    assert files == [OUTPUT_LOG, f"home/{TRAJECTORY}"]
    assert (task / "home" / TRAJECTORY).read_text().startswith('{"messages"')
    top = {a.path for a in client.list_artifacts(job.run_id)}
    assert {"verifiers", "traces", "native"} <= top


def test_a_rerun_sweep_finds_the_same_runs_and_leaves_none_running(
        tmp_path: Path, suites_dir: Path, store_template: Path, job_in_process: None,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A sweep killed mid-job (its parent and that child stay RUNNING), then run twice more:
    both re-runs reopen the same parent and children (a configuration's run is found by its
    settings, not by the parent's id), and a child an older attempt left RUNNING under the
    parent is closed KILLED when the sweep ends. The killed sweep is a real process; the two
    re-runs are ``python -m monitorbench``'s ``run(argv)`` in this process."""
    seed_store(store_template, tmp_path)
    args = ["-m", "generator=always_accept,schema_check", "task.max_tasks_per_type=3"]
    env = dict(os.environ, MONITORBENCH_OUTPUTS=str(tmp_path))
    env.pop("MLFLOW_TRACKING_URI", None)
    proc = subprocess.Popen([sys.executable, "-m", "monitorbench", *args,
                             f"paths.suites={suites_dir}", "sandbox.workers=1"], cwd=ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and not list((tmp_path / "runs").glob("*/judgments.jsonl")):
        time.sleep(0.2)
    proc.kill()
    proc.wait()
    killed = {r.info.run_id for r in _runs(tmp_path) if r.info.status == "RUNNING"}
    assert len(killed) == 2, killed                       # the parent and the first job

    _sweep(tmp_path, suites_dir, args, monkeypatch, capsys)
    first = {r.info.run_id: r for r in _runs(tmp_path)}
    assert killed <= set(first) and len(first) == 3      # one parent, one run per job
    [parent] = [r for r in first.values() if r.data.tags.get("monitorbench.role") == "sweep"]
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    stuck = client.create_run(parent.info.experiment_id, run_name="stuck",
                              tags={"mlflow.parentRunId": parent.info.run_id}).info.run_id

    _sweep(tmp_path, suites_dir, args, monkeypatch, capsys)
    again = {r.info.run_id: r for r in _runs(tmp_path)}
    assert set(again) == set(first) | {stuck}
    assert not [r for r in again.values() if r.info.status == "RUNNING"]
    assert again[stuck].info.status == "KILLED"
    board = (Path(parent.data.tags["monitorbench.sweep_dir"]).parent).glob("*/leaderboard.md")
    assert all("stuck" not in b.read_text() for b in board)  # ranked: finished jobs only


def test_a_job_ends_with_the_command_that_views_its_cases_and_tags_its_run_with_it(
        tmp_path: Path, suites_dir: Path, store_template: Path, job_in_process: None,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The last lines lead from the numbers to the why (issue 48): under ``Outputs:`` the job
    prints ``View the cases: monitorbench view <run dir>``, its MLflow run holds the same
    command as the tag ``monitorbench.view``, and that command builds the run's pages."""
    import shlex

    from monitorbench.cli_view import main as view_main
    from monitorbench.launch.run import run_job

    seed_store(store_template, tmp_path)
    run_job(compose_cfg(tmp_path, suites_dir, [*IN_PROCESS, "generator=always_accept",
                                               "task=bfcl", "task.max_tasks_per_type=1"]))
    lines = capsys.readouterr().out.rstrip().splitlines()
    [outputs] = [i for i, line in enumerate(lines) if line.startswith("Outputs: ")]
    run_dir = lines[outputs].split()[1]
    assert lines[outputs + 1] == f"View the cases: monitorbench view {run_dir}"
    assert Path(run_dir) == tmp_path / "runs" / Path(run_dir).name
    [run] = _runs(tmp_path)
    assert run.info.status == "FINISHED"
    assert run.data.tags["monitorbench.view"] == f"monitorbench view {run_dir}"
    argv = shlex.split(run.data.tags["monitorbench.view"])[2:]
    assert view_main([*argv, "--out", str(tmp_path / "view")]) == 0
    assert (tmp_path / "view" / "index.html").is_file()
