"""The report command on a small real sweep: in-process jobs into a tmp SQLite MLflow store."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline_helpers import ROOT, compose_cfg
from monitorbench.errors import InputError
from monitorbench.launch.run import run_job
from monitorbench.report import build_report
from monitorbench.report.tables import Diff, Est
from monitorbench.tracking.mlflow_logger import client_for, experiment_id, start_run
from monitorbench.tracking.sweep_report import finish_parent

CONFIGS = [["generator=always_accept"], ["generator=always_reject"],
           ["generator=schema_check"], ["generator=schema_check", "scaffold=agent"]]


def _sweep(outputs: Path, suites: Path, experiment: str, configs: list[list[str]]) -> str:
    """What `python -m monitorbench +experiment=... -m` does: a parent run, jobs under it."""
    client = client_for(f"sqlite:///{outputs}/mlflow.db")
    exp = experiment_id(client, experiment, outputs)
    parent = start_run(client, exp, f"{experiment} sweep", {"monitorbench.role": "sweep"})
    for overrides in configs:
        cfg = compose_cfg(outputs, suites, [f"experiment_name={experiment}",
                                            "task.max_tasks_per_type=12", *overrides])
        run_job(cfg, parent_run_id=parent)
    finish_parent(client, parent, outputs / "sweep")
    return parent


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, suites_dir: Path):
    outputs = tmp_path_factory.mktemp("report_outputs")
    parent = _sweep(outputs, suites_dir, "harness", CONFIGS)
    rep = build_report("harness", tracking_uri=f"sqlite:///{outputs}/mlflow.db",
                       outputs=outputs, n_resamples=300)
    return outputs, parent, rep


def _row(table, label: str) -> list:
    return next(r for r in table.rows if label in r)


def test_leaderboard_has_every_configuration_with_cis(report) -> None:
    _, parent, rep = report
    assert rep.parent_run_id == parent
    board = rep.tables["leaderboard"]
    labels = [r[1] for r in board.rows]
    assert sorted(labels) == sorted(["always_accept | oneshot", "always_reject | oneshot",
                                     "schema_check | oneshot", "schema_check | agent"])
    assert labels[0].startswith("schema_check")  # the only configuration with BA_norm > 0
    for row in board.rows:
        for cell in row[2:6]:
            assert isinstance(cell, Est) and cell.low <= cell.point <= cell.high
    accept = _row(board, "always_accept | oneshot")
    assert (accept[3].point, accept[4].point) == (100.0, 0.0)   # TPR, TNR of the constant
    schema = _row(board, "schema_check | oneshot")
    assert schema[4].low < schema[4].point < schema[4].high    # a real interval, not a point
    assert board.rows[-1][-1] is None                          # last rank has no "next"


def test_significance_separates_constants_but_not_identical_configs(report) -> None:
    _, _, rep = report
    board = rep.tables["leaderboard"]
    # identical configurations (the scripted baseline ignores the scaffold) are ranked next to
    # each other with a zero, non-significant difference
    first, second = board.rows[0], board.rows[1]
    assert {first[1], second[1]} == {"schema_check | oneshot", "schema_check | agent"}
    assert first[-1] == Diff(0.0, 0.0, 0.0, False)
    # the scaffold delta table pairs each configuration with its oneshot twin: Δ = 0 everywhere
    delta = rep.tables["delta_scaffold"]
    (row,) = delta.rows
    assert row[1] == "agent" and row[2] == "oneshot"
    diffs = [c for c in row if isinstance(c, Diff)]
    assert diffs and all(d.diff == 0.0 and not d.significant for d in diffs)


def test_paired_tpr_difference_of_the_constants_is_significant(report) -> None:
    from monitorbench.report.analysis import Analysis
    from monitorbench.report.source import find_sweep, load_configurations

    outputs, _, _ = report
    client = client_for(f"sqlite:///{outputs}/mlflow.db")
    configs = load_configurations(client, find_sweep(client, "harness"), experiment="harness",
                                  outputs=outputs)
    by = {c.label: c for c in configs}
    an = Analysis(configs, n_resamples=300)
    p = an.paired(by["always_accept | oneshot"], by["always_reject | oneshot"])
    assert p.diffs["tpr"].diff == 100.0 and p.diffs["tpr"].excludes_zero
    assert p.diffs["tnr"].diff == -100.0 and p.diffs["tnr"].excludes_zero
    assert p.diffs["ba_norm"].diff == 0.0 and not p.diffs["ba_norm"].excludes_zero
    assert p.n_common == 12


def test_files_tables_plots_and_parent_artifacts(report) -> None:
    outputs, parent, rep = report
    out = outputs / "reports" / "harness"
    assert rep.out_dir == out
    for name in ("leaderboard", "ranking_tool_call", "delta_scaffold", "delta_scaffold_by_type",
                 "concentration", "diagnostics", "same_cases"):
        assert (out / "tables" / f"{name}.md").is_file() and (out / "tables" / f"{name}.csv")
    with open(out / "tables" / "leaderboard.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {"BA_norm", "BA_norm_low", "BA_norm_high", "Δ BA_norm to next_significant"} <= \
        set(rows[0])
    with open(out / "tables" / "diagnostics.csv", newline="") as f:
        diag = list(csv.DictReader(f))
    assert diag and all(r["infra failures"] == "0" for r in diag)  # a healthy sandbox
    md = (out / "report.md").read_text()
    assert "[" in md and "| rank | configuration |" in md
    for png in ("tpr_vs_tnr", "per_type", "concentration"):
        data = (out / "plots" / f"{png}.png").read_bytes()
        assert data[:4] == b"\x89PNG" and len(data) > 10_000
    client = client_for(f"sqlite:///{outputs}/mlflow.db")
    logged = {a.path for a in client.list_artifacts(parent, "report")}
    assert {"report/report.md", "report/tables", "report/plots"} <= logged
    conc = rep.tables["concentration"]
    reject = _row(conc, "always_reject | oneshot")
    assert reject[1] == reject[2] == 12 and reject[4] == 100.0  # every task all-reject, Q_m 100
    same = rep.tables["same_cases"]
    assert len(same.rows) == 4 and len({r[1] for r in same.rows}) == 1  # one task, 4 configs


def test_missing_experiment_or_unfinished_sweep_is_a_clear_error(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    with pytest.raises(InputError) as err:
        build_report("nope", tracking_uri=uri, outputs=tmp_path)
    assert "'nope'" in err.value.problem and "+experiment=nope" in err.value.fix
    client = client_for(uri)
    start_run(client, experiment_id(client, "empty", tmp_path), "empty sweep",
              {"monitorbench.role": "sweep"})
    with pytest.raises(InputError) as err:
        build_report("empty", tracking_uri=uri, outputs=tmp_path)
    assert "no sweep with a finished job" in err.value.problem
    env = dict(os.environ, MLFLOW_TRACKING_URI=uri)
    cli = subprocess.run([sys.executable, "-m", "monitorbench.report", "--experiment", "nope"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert cli.returncode == 2 and "nope" in cli.stderr and "Traceback" not in cli.stderr


def test_run_and_report_agree_on_a_main_py_without_verify(tmp_path: Path,
                                                          suites_dir: Path) -> None:
    """'Submitted' is defined once (metrics.diagnostics.submitted_tasks): a main.py without a
    callable verify is no verifier, for the run's metrics and for the report alike."""
    from monitorbench.audit.exclusions import apply_exclusions
    from monitorbench.launch.run import select_tasks
    from monitorbench.report.analysis import Analysis
    from monitorbench.report.source import Configuration, parse_csv_records
    from monitorbench.suites.format import load_suite

    overrides = ["generator=replay", f"generator.dir={tmp_path / 'v'}",
                 "tracking.enabled=false", "task.max_tasks_per_type=3"]
    cfg = compose_cfg(tmp_path / "out", suites_dir, overrides)
    tasks = select_tasks(cfg, [("bfcl", apply_exclusions(load_suite(suites_dir / "bfcl")))]).tasks
    sources = ["def verify(c, env):\n    return 'PASS'\n",        # a verifier
               "def check(c, env):\n    return 'PASS'\n"]         # main.py, but no verify
    for t, src in zip(tasks, sources):                           # the third: no directory
        (tmp_path / "v" / t.task_id).mkdir(parents=True)
        (tmp_path / "v" / t.task_id / "main.py").write_text(src)
    m = run_job(cfg)
    run_dir = next((tmp_path / "out" / "runs").iterdir())
    config = Configuration("run", {}, m, parse_csv_records(run_dir / "judgments.csv"), "run")
    s = Analysis([config]).summary(config)
    assert m["n_submitted"] == 1 and m["submission_rate"] == pytest.approx(100 / 3)
    assert s["n_submitted"] == m["n_submitted"]
    assert {k: s[k] for k in s} == {k: m[k] for k in s}  # every rate, not only submission
    no_verify = [r for r in config.records if r["task_id"] == tasks[1].task_id]
    assert no_verify and {r["reason"] for r in no_verify} == {"missing_verifier"}
