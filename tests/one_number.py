"""One number wherever a researcher reads it: a sweep's BA_norm, TPR, TNR and FPR_h per row, read
back from every surface that shows them, must be the leaderboard CSV's (tests/test_mlflow_ui.py
runs README line 1's sweep against a real ``mlflow server`` and calls :func:`check_surfaces`).

Surfaces: the console's leaderboard (the sweep's stdout), ``leaderboard.csv``, the report's
``report.md`` leaderboard, the values every rate plot drew (``<plot>.json`` beside each
``.png``: the sweep's and the report's) and the child runs' MLflow metrics, which the runs
table sorts by. Text shows one decimal, MLflow two, the CSV full precision.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

HEADLINE = ("ba_norm", "tpr", "tnr", "fpr_h")
_PIPE = re.compile(r"(?<!\\)\|")


def md_tables(text: str) -> list[list[list[str]]]:
    """Every markdown table in ``text``: its rows of stripped cells, header first."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip().replace("\\|", "|") for c in _PIPE.split(line)[1:-1]]
            if not all(set(c) <= {"-"} for c in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def _by_name(table: list[list[str]], name_col: str) -> dict[str, dict[str, str]]:
    header = table[0]
    return {row[header.index(name_col)]: dict(zip(header, row)) for row in table[1:]}


def _shown(cell: str) -> str:
    """A text cell's number: ``53.8 [41.9, 65.3]`` and ``0.0 ‡`` read ``53.8`` and ``0.0``."""
    return cell.split()[0]


def check_surfaces(console: str, sweep_dir: Path, report_dir: Path, children: list[Any],
                   parent: Any) -> list[dict[str, Any]]:
    """Assert every surface shows the CSV's figures for every row; return the CSV's rows."""
    with open(sweep_dir / "leaderboard.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    names = [r["run"] for r in rows]
    (shown,) = [t for t in md_tables(console) if t[0][:3] == ["rank", "run", "BA_norm [95% CI]"]]
    board = _by_name(shown, "run")
    assert [r[1] for r in shown[1:]] == names                 # same order, ties included
    report = (report_dir / "report.md").read_text(encoding="utf-8")
    assert "\\|" not in (report_dir / "report.html").read_text(encoding="utf-8")
    lead = next(t for t in md_tables(report) if t[0][:2] == ["rank", "configuration"])
    label = {r["run"]: f"{r['generator']} | {r['access']}" for r in rows}
    assert [row[1] for row in lead[1:]] == [label[n] for n in names]
    in_report = _by_name(lead, "configuration")
    drawn = {"sweep": json.loads((sweep_dir / "tpr_vs_tnr.json").read_text()),
             "report": json.loads((report_dir / "plots" / "tpr_vs_tnr.json").read_text()),
             "per_type": json.loads((report_dir / "plots" / "per_type.json").read_text())}
    metrics = {c.info.run_name: c.data.metrics for c in children}
    for r in rows:
        name = r["run"]
        for key, title in zip(HEADLINE, ("BA_norm", "TPR", "TNR", "FPR_h")):
            want = f"{float(r[key]):.1f}"
            console_cell = board[name]["BA_norm [95% CI]" if key == "ba_norm" else title]
            assert _shown(console_cell) == want, (name, key, console_cell, want)
            report_cell = in_report[label[name]][title]
            assert _shown(report_cell) == want, (name, key, report_cell, want)
            assert abs(metrics[name][key] - float(r[key])) <= 0.0051, (name, key)
            assert abs(metrics[name][key + "_ci_low"] - float(r[key + "_ci_low"])) <= 0.0051
        # the report's interval is the leaderboard's: one bootstrap, one seed, one count
        low, high = (float(x) for x in re.findall(r"-?\d+\.\d", in_report[label[name]]
                                                  ["BA_norm"])[1:3])
        assert (low, high) == (round(float(r["ba_norm_ci_low"]), 1),
                               round(float(r["ba_norm_ci_high"]), 1)), name
        assert "[" in board[name]["BA_norm [95% CI]"]          # the console shows it too
        # a row that scored more than the pool keeps its own figures, under their own name
        assert ("own_pool/ba_norm" in metrics[name]) == (r["more_than_pool"] == "†"), name
        for where, plotted in (("sweep", drawn["sweep"][name]),
                               ("report", drawn["report"][label[name]])):
            assert {k: round(v, 6) for k, v in plotted.items()} == \
                {k: round(float(r[k]), 6) for k in ("tpr", "tnr")}, (where, name)
        assert round(drawn["per_type"][label[name]]["ba_norm"], 6) == round(float(r["ba_norm"]), 6)
    if any(r["more_than_pool"] for r in rows):   # the console says why the pools differ
        assert "sets aside" in console and "cases_indistinguishable" in console
    best = rows[0]
    assert abs(parent.data.metrics["ba_norm"] - float(best["ba_norm"])) <= 0.0051
    assert {"ba_norm_ci_low", "ba_norm_ci_high", "tpr", "tnr", "fpr_h"} <= set(parent.data.metrics)
    assert parent.data.params["n_tasks_common"] == best["pool_tasks"]
    return rows
