"""Every markdown table the sweep leaderboard and the report write parses back with as many
cells per row as the header has, whatever the run names and cells contain.

The sweep leaderboard is written by the real ``finish_parent`` from a real MLflow store (SQLite
in a temporary directory) whose child runs carry Hydra-style names with ``|``, a backslash and
a newline; the report's tables go through the real ``write_table``.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from monitorbench.report.render import markdown, write_table
from monitorbench.report.tables import Diff, Est, Table
from monitorbench.tracking.sweep_report import ATTACK, HEADLINE, finish_parent

NAMES = ("generator=always_accept|schema_check,access=raw",
         "scaffold=agent\\|oneshot,seed=1", "note=two\nlines|and\r\nmore", "plain")


def split_row(line: str) -> list[str]:
    """Cells of one markdown table row, honouring backslash escapes (GFM: ``\\|`` is a pipe
    inside a cell, ``\\\\`` a backslash)."""
    assert line.startswith("|") and line.endswith("|"), line
    cells, cur, i, body = [], "", 0, line[1:-1]
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            cur, i = cur + body[i:i + 2], i + 2
            continue
        if body[i] == "|":
            cells.append(cur.strip())
            cur = ""
        else:
            cur += body[i]
        i += 1
    return cells + [cur.strip()]


def tables(text: str) -> list[list[list[str]]]:
    """Every table in a markdown text: blocks of consecutive lines starting with ``|``. A row
    broken by a raw newline leaves a continuation line, which fails the caller's checks."""
    out: list[list[list[str]]] = []
    block: list[list[str]] = []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            block.append(split_row(line))
        elif block:
            out.append(block)
            block = []
    return out


def assert_well_formed(text: str, n_rows: int) -> list[list[list[str]]]:
    found = tables(text)
    assert found, "no table"
    for block in found:
        header = block[0]
        assert all(set(c) <= {"-"} for c in block[1]), block[1]
        assert [len(r) for r in block] == [len(header)] * len(block), block
    assert sum(len(b) - 2 for b in found) == n_rows
    lines = [x for x in text.splitlines() if x and not x.startswith(("|", "#"))]
    return found if not lines else pytest.fail(f"stray lines outside tables: {lines}")


@pytest.fixture
def sweep(tmp_path: Path):
    """A real MLflow store with a parent run and one child run per name."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    exp = client.create_experiment("leaderboard", artifact_location=str(tmp_path / "artifacts"))
    parent = client.create_run(exp, run_name="sweep").info.run_id
    for i, name in enumerate(NAMES):
        child = client.create_run(exp, run_name=name,
                                  tags={"mlflow.parentRunId": parent}).info.run_id
        for k in HEADLINE + ATTACK + ("fpr_h/claims_success", "fpr_h/addresses_verifier"):
            if i == 3 and k.startswith("attack/"):
                continue  # a job without the adaptive attacker: its cells are missing, not 0
            client.log_metric(child, k, 10.0 * i + len(k) % 7)
        client.set_terminated(child, "FINISHED")
    return client, parent


def test_sweep_leaderboard_parses_back_with_the_header_width(tmp_path: Path, sweep) -> None:
    client, parent = sweep
    out = tmp_path / "multirun_x"
    finish_parent(client, parent, out)
    text = (out / "leaderboard.md").read_text(encoding="utf-8")
    pointer = (f"Every column (intervals, axes, attack categories, tasks broken): "
               f"{out / 'leaderboard.csv'}")
    assert text.rstrip().endswith(pointer)
    (block,) = assert_well_formed(text.replace(pointer, ""), len(NAMES))
    header = block[0]
    # headline columns (the console shows this table): adaptive beside static FPR_h, and the
    # submission and valid-output rates a reader checks beside FPR_h
    assert header == ["rank", "run", "BA_norm [95% CI]", "TPR", "TNR", "FPR_h", "FPR_h adaptive",
                      "submitted", "valid out", "tasks"]
    assert sorted(row[1] for row in block[2:]) == sorted(
        n.replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", "<br>")
        .replace("\n", "<br>") for n in NAMES)
    plain = next(row for row in block[2:] if row[1] == "plain")
    assert plain[header.index("FPR_h adaptive")] == "—"
    with open(out / "leaderboard.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert sorted(r["run"] for r in rows) == sorted(NAMES)
    assert {"attack/fpr_h_static", "attack/tasks_broken_adaptive",
            "fpr_h/claims_success"} <= set(rows[0])                # the CSV keeps every column


def test_one_ranking_on_the_common_pool_with_shared_ranks_for_ties() -> None:
    from monitorbench.metrics.ranking import rank_on_pool

    scored = {"wide": frozenset("abcd"), "narrow": frozenset("abc"), "tie": frozenset("abc"),
              "low": frozenset("abc"), "nothing": frozenset()}
    seen_pools = set()
    on_pool = {"wide": 50.0, "narrow": 50.04, "tie": 70.0, "low": 10.0}

    def value_on(name: str, pool: frozenset[str]) -> float:
        seen_pools.add(pool)
        return on_pool[name]

    ranked = rank_on_pool(scored, value_on)
    assert seen_pools == {frozenset("abc")}              # every row rated on the common pool
    assert [(r.name, r.rank, r.tasks_cell) for r in ranked] == [
        ("tie", 1, "3"), ("narrow", 2, "3"), ("wide", 2, "4 †"), ("low", 4, "3"),
        ("nothing", None, "0")]


def test_report_tables_escape_every_cell_and_header(tmp_path: Path) -> None:
    t = Table("weird", "A | table", ["configuration", "col|umn", "FPR_h static"],
              note="a note")
    t.rows = [[NAMES[0], Est(1.0, 0.5, 1.5), 2.0], [NAMES[2], Diff(-1.0, -2.0, 0.5, False), None],
              [NAMES[1], "x|y\\", 3]]
    assert_well_formed(markdown(t).replace("a note", ""), len(t.rows))
    md, _ = write_table(t, tmp_path)
    (block,) = tables(md.read_text(encoding="utf-8"))
    assert block[0] == ["configuration", "col\\|umn", "FPR_h static"]
    assert block[4][1] == "x\\|y\\\\"


def test_fpr_h_is_marked_where_a_row_submitted_below_100_percent(tmp_path: Path) -> None:
    """FPR_h 0.0 of a task without a verifier is no attack resistance (U is no acceptance): the
    sweep's table shows submission and valid-output rate beside FPR_h and marks it ‡."""
    from monitorbench.tracking.sweep_report import leaderboard_md

    rows = [{"rank": 1, "run": "full", "ba_norm": 50.0, "ba_norm_ci_low": 40.0,
             "ba_norm_ci_high": 60.0, "tpr": 80.0, "tnr": 70.0, "fpr_h": 10.0,
             "submission_rate": 100.0, "valid_output_rate": 99.0, "tasks": 5,
             "more_than_pool": ""},
            {"rank": 2, "run": "some", "ba_norm": 10.0, "ba_norm_ci_low": 0.0,
             "ba_norm_ci_high": 20.0, "tpr": 10.0, "tnr": 100.0, "fpr_h": 0.0,
             "submission_rate": 40.0, "valid_output_rate": 40.0, "tasks": 6,
             "more_than_pool": "†"}]
    text = leaderboard_md(rows, tmp_path / "leaderboard.csv")
    (block,) = tables(text.split("\n\n")[0])
    assert block[0][2:] == ["BA_norm [95% CI]", "TPR", "TNR", "FPR_h", "submitted", "valid out",
                            "tasks"]
    assert block[2][2:] == ["50.0 [40.0, 60.0]", "80.0", "70.0", "10.0", "100.0", "99.0", "5"]
    assert block[3][5:] == ["0.0 ‡", "40.0", "40.0", "6 †"]
    assert "‡ = submitted below 100%" in text
