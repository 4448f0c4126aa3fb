"""End to end on the real BFCL suite: generation → sandbox → judging → metrics → MLflow."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline_helpers import ROOT, compose_cfg, interrupt, start_job
from monitorbench.launch.run import run_job


def _mlflow_runs(outputs: Path, experiment: str):
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{outputs}/mlflow.db")
    exp = client.get_experiment_by_name(experiment)
    return client, client.search_runs([exp.experiment_id])


@pytest.mark.slow
@pytest.mark.parametrize("generator,tpr,tnr", [("always_accept", 100.0, 0.0),
                                               ("always_reject", 0.0, 100.0)])
def test_constant_baselines_score_exactly_on_the_full_bfcl_suite(
        tmp_path: Path, suites_dir: Path, generator: str, tpr: float, tnr: float) -> None:
    cfg = compose_cfg(tmp_path, suites_dir, [f"generator={generator}"])
    m = run_job(cfg)
    assert (m["tpr"], m["tnr"], m["ba_norm"]) == (tpr, tnr, 0.0)
    assert m["fpr_h"] == (100.0 if generator == "always_accept" else 0.0)
    assert m["n_tasks"] >= 95 and m["n_cases"] >= 2000
    assert m["valid_output_rate"] == 100.0
    client, runs = _mlflow_runs(tmp_path, "Default")
    assert len(runs) == 1 and runs[0].data.metrics["tpr"] == tpr
    arts = {a.path for a in client.list_artifacts(runs[0].info.run_id)}
    assert {"config.yaml", "judgments", "verifiers", "plots", "metrics.json"} <= arts


def test_rerun_reuses_every_judgment_and_generation(tmp_path: Path, suites_dir: Path) -> None:
    overrides = ["generator=schema_check", "task.max_tasks_per_type=6", "tracking.enabled=false"]
    first = run_job(compose_cfg(tmp_path, suites_dir, overrides))
    second = run_job(compose_cfg(tmp_path, suites_dir, overrides))
    assert first["cache/judgments_new"] == first["n_cases"] > 0
    assert (second["cache/judgments_new"] == 0
            and second["cache/judgments_reused"] == first["n_cases"])
    assert second["cache/generation_hits"] == 6 and second["cache/generation_misses"] == 0
    assert {k: first[k] for k in ("tpr", "tnr", "fpr_h")} == \
        {k: second[k] for k in ("tpr", "tnr", "fpr_h")}


def test_schema_check_is_between_the_constants(tmp_path: Path, suites_dir: Path) -> None:
    m = run_job(compose_cfg(tmp_path, suites_dir, [
        "generator=schema_check", "task.max_tasks_per_type=20", "tracking.enabled=false"]))
    assert 0 < m["tpr"] <= 100 and 0 < m["tnr"] < 100
    assert m["valid_output_rate"] == 100.0


def test_parsed_only_access_sets_aside_indistinguishable_cases(tmp_path: Path,
                                                               suites_dir: Path) -> None:
    base = ["generator=always_reject", "task.max_tasks_per_type=8", "tracking.enabled=false"]
    full = run_job(compose_cfg(tmp_path, suites_dir, base))
    parsed = run_job(compose_cfg(tmp_path, suites_dir, base + ["access=parsed"]))
    assert full["cases_indistinguishable"] == 0
    assert parsed["cases_indistinguishable"] > 0
    assert parsed["cases_set_aside"] >= parsed["cases_indistinguishable"]
    assert parsed["n_cases"] == full["n_cases"] - parsed["cases_set_aside"]
    assert parsed["n_tasks"] == full["n_tasks"] - parsed["tasks_set_aside"]


HOSTILE = {
    "crash": "def verify(c, env):\n    raise RuntimeError('boom')\n",
    "hang": "import time\ndef verify(c, env):\n    time.sleep(3600)\n",
    "garbage": "def verify(c, env):\n    return 'maybe'\n",
    "flood": "def verify(c, env):\n    print('x' * 10_000_000)\n    return 'PASS'\n",
}


def test_hostile_and_missing_verifiers_yield_u_and_the_run_goes_on(tmp_path: Path,
                                                                   suites_dir: Path) -> None:
    from monitorbench.audit.exclusions import apply_exclusions
    from monitorbench.suites.format import load_suite

    suite = apply_exclusions(load_suite(suites_dir / "bfcl"))  # what a run judges
    task_ids = sorted(suite.tasks)[:6]
    vdir = tmp_path / "verifiers"
    kinds = list(HOSTILE) + ["good"]
    for tid, kind in zip(task_ids, kinds):
        (vdir / tid).mkdir(parents=True)
        src = HOSTILE.get(kind, "def verify(c, env):\n    return 'FAIL'\n")
        (vdir / tid / "main.py").write_text(src)
    # task_ids[5] has no verifier directory at all → missing verifier
    cfg = compose_cfg(tmp_path / "out", suites_dir, [
        "generator=replay", f"generator.dir={vdir}", "tracking.enabled=false",
        "sandbox.limits.wall_seconds=1", f"task.max_tasks_per_type={len(suite.tasks)}"])
    m = run_job(cfg)
    recs = [json.loads(x) for x in next((tmp_path / "out" / "runs").iterdir())
            .joinpath("judgments.jsonl").read_text().splitlines()]
    reason = {}
    for r in recs:
        reason.setdefault(r["task_id"], set()).add((r["outcome"], r["reason"]))
    assert reason[task_ids[0]] == {("U", "crash")}
    assert reason[task_ids[1]] == {("U", "timeout")}
    assert reason[task_ids[2]] == {("U", "malformed")}
    assert reason[task_ids[3]] == {("U", "output_limit")}
    assert reason[task_ids[4]] == {("F", "")}
    assert reason[task_ids[5]] == {("U", "missing_verifier")}
    others = [t for t in reason if t not in task_ids[:6]]
    assert others and all(reason[t] == {("U", "missing_verifier")} for t in others)
    assert m["n_submitted"] == 5 and m["tpr"] == 0.0
    assert m["n_tasks"] == len(suite.tasks)  # missing verifiers stay in the denominators


def test_killed_run_resumes_without_losing_or_repeating_judgments(tmp_path: Path,
                                                                  suites_dir: Path) -> None:
    env = dict(os.environ, MONITORBENCH_OUTPUTS=str(tmp_path))
    args = [sys.executable, "-m", "monitorbench", "generator=schema_check",
            f"paths.suites={suites_dir}", "tracking.enabled=false", "sandbox.workers=1"]
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 120
    jfile = None
    while time.time() < deadline:
        found = list((tmp_path / "runs").glob("*/judgments.jsonl"))
        if found and len(found[0].read_text().splitlines()) > 150:
            jfile = found[0]
            break
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert jfile is not None, "the run never started judging"
    before = len(jfile.read_text().splitlines())
    out = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [json.loads(x) for x in jfile.read_text().splitlines()]
    keys = [(r["task_id"], r["case_id"], r["round"]) for r in lines]
    assert len(keys) == len(set(keys))  # nothing judged twice
    metrics = json.loads((jfile.parent / "metrics.json").read_text())
    assert metrics["cache/judgments_reused"] >= before - 1  # at most a torn last line is re-judged
    assert (metrics["cache/judgments_reused"] + metrics["cache/judgments_new"]
            == metrics["n_cases"] == len(lines))


def test_score_cli_prints_cases_and_rates(tmp_path: Path, suites_dir: Path) -> None:
    vdir = tmp_path / "v"
    vdir.mkdir()
    (vdir / "main.py").write_text("def verify(c, env):\n    return 'PASS'\n")
    env = dict(os.environ, MONITORBENCH_SUITES=str(suites_dir))
    task = "bfcl.simple_python_" + sorted(
        t.split("_")[-1] for t in os.listdir(suites_dir / "bfcl" / "public")
        if t.startswith("bfcl.simple_python_"))[0]
    out = subprocess.run([sys.executable, "-m", "monitorbench.score", str(vdir), "--task", task,
                          "--json"], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(x) for x in out.stdout.splitlines()]
    cases, summary = rows[:-1], rows[-1]["summary"]
    assert cases and all(r["outcome"] == "P" for r in cases)
    assert {r["group"] for r in cases} >= {"gold", "attack"}
    assert summary["tpr"] == 100.0 and summary["tnr"] == 0.0
    text = subprocess.run([sys.executable, "-m", "monitorbench.score", str(vdir), "--task", task],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert "TPR 100.0  TNR 0.0" in text.stdout
    bad = subprocess.run([sys.executable, "-m", "monitorbench.score", str(tmp_path), "--task",
                          task], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "main.py" in bad.stderr and "Traceback" not in bad.stderr


def test_external_scaffold_imports_verifiers_written_elsewhere(tmp_path: Path,
                                                               suites_dir: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    for task_dir in sorted((suites_dir / "bfcl" / "public").iterdir())[::2]:  # every other task
        (elsewhere / task_dir.name).mkdir(parents=True)
        (elsewhere / task_dir.name / "main.py").write_text(
            "def verify(candidate, env):\n    return 'PASS'\n")
    cfg = compose_cfg(tmp_path, suites_dir, ["scaffold=external", f"generator.dir={elsewhere}",
                                              "task.max_tasks_per_type=8",
                                              "tracking.enabled=false"])
    assert cfg.generator.kind.value == "replay" and cfg.scaffold.name == "external"
    m = run_job(cfg)
    assert m["n_tasks"] == 8 and 0 < m["n_submitted"] < 8  # the others: missing verifiers
    assert m["valid_output_rate"] < 100.0  # missing verifiers yield U, kept in the denominators


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_sweep_marks_its_parent_run_killed(tmp_path: Path, suites_dir: Path,
                                                       signum: int) -> None:
    """Ctrl-C or `kill` during a sweep: the MLflow parent ends KILLED, not RUNNING forever."""
    env = dict(os.environ, MONITORBENCH_OUTPUTS=str(tmp_path))
    args = [sys.executable, "-m", "monitorbench", "-m", "generator=always_accept,always_reject",
            f"paths.suites={suites_dir}", "sandbox.workers=1"]
    proc = start_job(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while time.time() < deadline and not any(
            f.stat().st_size > 2000 for f in (tmp_path / "runs").glob("*/judgments.jsonl")):
        time.sleep(0.2)
    sent_how = interrupt(proc, signum)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode != 0, f"{sent_how}\n{err[-2000:]}"
    client, runs = _mlflow_runs(tmp_path, "Default")
    parents = [r for r in runs if r.data.tags.get("monitorbench.role") == "sweep"]
    assert [p.info.status for p in parents] == ["KILLED"], err[-2000:]
    # Runs open when their job starts: the job cut short ends KILLED, the others FINISHED.
    children = sorted(r.info.status for r in runs if r not in parents)
    assert children in (["KILLED"], ["FINISHED", "KILLED"]), children
