"""The report command on a small real sweep: in-process jobs into a tmp SQLite MLflow store."""

from __future__ import annotations

import base64
import csv
import re
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
from monitorbench.tracking.sweep_record import SweepPlace
from monitorbench.tracking.sweep_report import finish_parent

CONFIGS = [["generator=always_accept"], ["generator=always_reject"],
           ["generator=schema_check"], ["generator=schema_check", "scaffold=agent"]]


def _sweep(outputs: Path, suites: Path, experiment: str, configs: list[list[str]], *,
           max_tasks: int = 12) -> str:
    """What `python -m monitorbench +experiment=... -m` does: a parent run, jobs under it."""
    client = client_for(f"sqlite:///{outputs}/mlflow.db")
    exp = experiment_id(client, experiment, outputs)
    parent = start_run(client, exp, f"{experiment} sweep", {"monitorbench.role": "sweep"})
    for overrides in configs:
        cfg = compose_cfg(outputs, suites, [f"experiment_name={experiment}",
                                            f"task.max_tasks_per_type={max_tasks}", *overrides])
        run_job(cfg, place=SweepPlace(parent))
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
    out = outputs / "reports" / "harness" / parent   # one directory per sweep: its run id
    assert rep.out_dir == out
    for name in ("leaderboard", "ranking_tool_call", "delta_scaffold", "delta_scaffold_by_type",
                 "concentration", "diagnostics", "same_cases"):
        assert (out / "tables" / f"{name}.md").is_file() and (out / "tables" / f"{name}.csv")
    with open(out / "tables" / "leaderboard.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {"BA_norm", "BA_norm_low", "BA_norm_high", "Δ BA_norm to next_significant"} <= \
        set(rows[0])
    # one column per axis after the configuration, a count as a plain number, † on its own
    assert list(rows[0])[1:4] == ["configuration", "generator", "scaffold"]
    assert {(r["generator"], r["scaffold"]) for r in rows} == {
        ("always_accept", "oneshot"), ("always_reject", "oneshot"), ("schema_check", "oneshot"),
        ("schema_check", "agent")}
    assert all(r["tasks scored"].isdigit() and r["more_than_pool"] == "" for r in rows)
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
    assert {"report/plots/per_type.png", "report/tables/leaderboard.csv"} <= \
        {a.path for sub in ("report/plots", "report/tables")
         for a in client.list_artifacts(parent, sub)}
    # no file names a host: report.md links each plot relatively, and the link resolves both
    # next to report.md on disk and inside the parent run's downloaded report/ artifacts
    links = re.findall(r"!\[[^]]*\]\(([^)]+)\)", md)
    assert len(links) == 3 and all((out / link).is_file() for link in links)
    got = Path(client.download_artifacts(parent, "report", str(outputs / "dl")))
    assert (got / "report.md").read_text() == md
    assert all((got / link).read_bytes() == (out / link).read_bytes() for link in links)
    html = (got / "report.html").read_text()
    for text in (md, html):
        assert not re.search(r"https?://", text)
    # report.html (MLflow's preview shows it on any host) inlines the same plots
    inlined = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,([^"]+)"', html)
    assert [(alt, base64.b64decode(b64)) for alt, b64 in inlined] == \
        [(Path(link).stem, (out / link).read_bytes()) for link in links]
    assert "<h3>Leaderboard (paper Tables 2/12)</h3>" in html
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
    start_run(client, experiment_id(client, "quickstart", tmp_path), "a job", {})
    with pytest.raises(InputError) as err:       # a single job: re-running it is no advice
        build_report("quickstart", tracking_uri=uri, outputs=tmp_path)
    assert "single jobs, no sweep" in err.value.problem and " -m " in err.value.fix
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


# --- honest comparisons: common task pool, visible gaps, per-type pairs, attack columns -------

def _configs(outputs: Path):
    from monitorbench.report.source import find_sweep, load_configurations

    client = client_for(f"sqlite:///{outputs}/mlflow.db")
    return load_configurations(client, find_sweep(client, "harness"), experiment="harness",
                               outputs=outputs)


def _fewer(c, drop: int):
    """``c`` as if a setting had set its first ``drop`` tasks aside (as access=parsed does with
    BFCL tasks): the same real records without those tasks."""
    from monitorbench.report.source import Configuration

    gone = sorted({r["task_id"] for r in c.records})[:drop]
    return Configuration("fewer-" + c.run_id, dict(c.axes), dict(c.metrics),
                         [r for r in c.records if r["task_id"] not in gone], c.label + " fewer")


_PIPE = re.compile(r"(?<!\\)\|")


def _md_rows(text: str) -> list[list[str]]:
    """The cells of every table line of a markdown table (escaped pipes stay in their cell)."""
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    return [[c.strip() for c in _PIPE.split(ln)[1:-1]] for ln in lines]


def _shown(cell: str) -> float:
    return float(cell.split(" ")[0])


def test_rankings_use_the_common_pool_and_delta_is_the_visible_gap(report) -> None:
    from monitorbench.metrics import bootstrap_ci
    from monitorbench.report.analysis import Analysis
    from monitorbench.report.render import markdown
    from monitorbench.report.tables import leaderboard, type_rankings

    outputs, _, _ = report
    configs = _configs(outputs)
    schema = next(c for c in configs if c.label == "schema_check | oneshot")
    configs.append(_fewer(schema, 3))
    an = Analysis(configs, n_resamples=200)
    board = leaderboard(an, configs)
    pool = sorted({r["task_id"] for r in configs[-1].records})
    assert len(pool) == 9 and len(board.rows) == 5
    assert "common task pool: the 9 tasks" in board.note
    # a note is plain text: report.html once showed the markdown escape as a literal "\|"
    assert "† = scored more: " in board.note and "schema_check | oneshot (12)" in board.note
    for row in board.rows:
        c = next(x for x in configs if x.label == row[1])
        on_pool = bootstrap_ci([r for r in c.records if r["task_id"] in pool], n_resamples=200)
        assert row[2].point == pytest.approx(on_pool["ba_norm"].point)  # rated on the pool
        assert row[7] == ("9" if c is configs[-1] else "12 †")
    # the fewer-task copy equals its source on the pool: both rows show the same BA_norm
    same = [r for r in board.rows if r[1].startswith("schema_check | oneshot")]
    assert same[0][2] == same[1][2]
    assert same[0][0] == same[1][0]                                 # a tie shares its rank
    table = _md_rows(markdown(board))
    header, body = table[0], table[2:]
    assert all(len(r) == len(header) for r in table) and len(body) == 5
    ba, delta = header.index("BA_norm"), header.index("Δ BA_norm to next")
    for upper, lower in zip(body, body[1:]):
        gap = round(_shown(upper[ba]) - _shown(lower[ba]), 1)
        assert _shown(upper[delta]) == gap                      # Δ = the gap the reader sees
    assert body[-1][delta] == "—"
    (tool,) = type_rankings(an, configs)
    assert "the 9 tool_call tasks" in tool.note
    assert [r[1] for r in tool.rows] == [r[1] for r in board.rows]


def test_same_pools_state_the_common_pool_without_flags(report) -> None:
    _, _, rep = report
    board = rep.tables["leaderboard"]
    assert "common task pool: the 12 tasks" in board.note and "differ" not in board.note
    assert all(r[7] == "12" for r in board.rows)


def _retyped(c, state_tasks: set[str]):
    """``c`` with some tasks typed ``state``: the tests' suite has only BFCL (tool-call)
    tasks, and per-type pairing needs a second type; records are otherwise the real ones."""
    from monitorbench.report.source import Configuration

    recs = [dict(r, task_type="state") if r["task_id"] in state_tasks else r
            for r in c.records]
    return Configuration(c.run_id, dict(c.axes), dict(c.metrics), recs, c.label)


def test_per_type_delta_rows_count_their_own_type_only(report) -> None:
    from monitorbench.report.analysis import Analysis
    from monitorbench.report.render import markdown
    from monitorbench.report.tables import delta_table

    outputs, _, _ = report
    configs = [c for c in _configs(outputs) if c.axes["generator"] == "schema_check"]
    tasks = sorted({r["task_id"] for r in configs[0].records})
    configs = [_retyped(c, set(tasks[:5])) for c in configs]
    agent = next(c for c in configs if c.axes["scaffold"] == "agent")
    dropped = tasks[-1]                              # the agent twin lost one tool-call task
    agent.records = [r for r in agent.records if r["task_id"] != dropped]
    an = Analysis(configs, n_resamples=200)
    overall = delta_table(an, configs, "scaffold")
    by_type = delta_table(an, configs, "scaffold", by_type=True)
    assert overall.rows[0][-1] == 11
    counts = {row[1]: row[-1] for row in by_type.rows}
    assert counts == {"tool_call": 6, "state": 5}
    for t in (overall, by_type):
        rows = _md_rows(markdown(t))
        assert all(len(r) == len(t.columns) for r in rows)
        header, (row,) = rows[0], rows[2:] if t is overall else rows[2:3]
        for m in ("BA_norm", "TPR", "TNR"):
            gap = round(_shown(row[header.index(m)]) - _shown(row[header.index(f"{m} ref")]), 1)
            assert _shown(row[header.index(f"Δ {m}")]) == gap


def test_attack_table_has_static_beside_adaptive(report) -> None:
    from monitorbench.attack.metrics import attack_rates
    from monitorbench.metrics.adaptive import with_found
    from monitorbench.report.analysis import Analysis
    from monitorbench.report.render import markdown
    from monitorbench.report.source import Configuration
    from monitorbench.report.tables import attack_table, leaderboard

    outputs, _, _ = report
    configs = _configs(outputs)
    schema = next(c for c in configs if c.label == "schema_check | oneshot")
    tasks = sorted({r["task_id"] for r in schema.records})

    def share(tid: str) -> float:
        att = [r for r in schema.records if r["task_id"] == tid and r["group"] == "attack"]
        return sum(r["outcome"] == "P" for r in att) / len(att)
    # the task set aside below is one whose acceptance differs from schema_check's mean, so its
    # FPR_h over all its tasks differs from its FPR_h on the common pool
    mean = sum(map(share, tasks)) / len(tasks)
    aside = next(t for t in tasks if abs(share(t) - mean) > 1e-9)
    unbroken = next(t for t in tasks if t != aside and share(t) < 1.0)
    found = frozenset({aside, unbroken})
    ran = []
    for c in configs[:3]:
        recs = c.records if c is schema else [r for r in c.records if r["task_id"] != aside]
        # what the job logs: the attack stage's own metrics over the job's tasks
        m = {**attack_rates(recs, "static"),
             **attack_rates(with_found(recs, found if c is schema else ()), "adaptive"),
             "attack/queries": 7.0}
        ran.append(Configuration(c.run_id, c.axes, m, recs, c.label,
                                 found=found if c is schema else frozenset()))
    # a job whose attack stage left no per-task results (found None) gets no row
    old = Configuration("old", dict(schema.axes), {"attack/fpr_h_adaptive": 10.0},
                        schema.records, "old job")
    an = Analysis([*ran, old, configs[3]], n_resamples=50)
    t = attack_table(an, [*ran, old, configs[3]])
    assert t.columns == ["configuration", "FPR_h static", "FPR_h adaptive",
                         "tasks broken static", "tasks broken adaptive",
                         "broken static/adaptive of attacked", "queries"]
    assert [r[0] for r in t.rows] == [c.label for c in ran]
    board = {r[1]: r[5].point for r in leaderboard(an, an.configs).rows}
    n = len(tasks) - 1
    for row in t.rows:
        # static FPR_h is the leaderboard's (same common pool), adaptive never below it
        assert row[1] == pytest.approx(board[row[0]]) and row[2] >= row[1]
    by = {r[0]: r for r in t.rows}
    s_row = by["schema_check | oneshot"]
    logged = next(c for c in ran if c is not None and c.label == s_row[0]).metrics
    assert logged["attack/fpr_h_static"] != pytest.approx(s_row[1])  # own pool: not comparable
    assert s_row[2] > s_row[1]  # `unbroken` found on the pool; `aside` is off it
    accept, reject = by["always_accept | oneshot"], by["always_reject | oneshot"]
    assert accept[1] == accept[2] == 100.0 and accept[5] == f"{n}/{n} of {n}"
    assert reject[1] == reject[2] == reject[3] == 0.0 and reject[5] == f"0/0 of {n}"
    assert accept[6] == 7 and "never below static" in t.note
    rows = _md_rows(markdown(t))
    assert all(len(r) == 7 for r in rows)

def test_sweep_leaderboard_puts_static_and_adaptive_fpr_h_on_one_pool(report) -> None:
    """The sweep's table once showed schema_check · raw with adaptive FPR_h 78.0 below its
    FPR_h 78.2: FPR_h was on the common pool, adaptive as logged over all the job's tasks."""
    from monitorbench.tracking.judgments_csv import parse_csv_records
    from monitorbench.tracking.sweep_report import child_runs, leaderboard_rows

    outputs, parent, _ = report
    runs = child_runs(client_for(f"sqlite:///{outputs}/mlflow.db"), parent)
    records = {r.info.run_id: parse_csv_records(
        outputs / "runs" / r.data.tags["monitorbench.run_key"] / "judgments.csv") for r in runs}
    schema = next(r for r in runs if r.data.tags["monitorbench.generator"] == "schema_check"
                  and r.data.tags.get("monitorbench.scaffold") == "oneshot")
    tasks = sorted({x["task_id"] for x in records[schema.info.run_id]})
    aside = tasks[0]
    unbroken = next(t for t in tasks[1:] if any(  # a task with an attack it rejected
        x["task_id"] == t and x["group"] == "attack" and x["outcome"] != "P"
        for x in records[schema.info.run_id]))
    for r in runs:  # as if the others' access setting had set a task aside
        if r is not schema:
            records[r.info.run_id] = [x for x in records[r.info.run_id] if x["task_id"] != aside]
    found = {r.info.run_id: frozenset({aside, unbroken}) if r is schema else frozenset()
             for r in runs}
    rows = leaderboard_rows(runs, records, found)
    for row in rows:
        assert row["attack/fpr_h_static"] == pytest.approx(row["fpr_h"])
        assert row["attack/fpr_h_adaptive"] >= row["attack/fpr_h_static"]
    s_row = next(row for row in rows if row["run"] == schema.data.tags["mlflow.runName"])
    assert s_row["attack/fpr_h_adaptive"] > s_row["attack/fpr_h_static"]
