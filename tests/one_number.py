"""One number wherever a researcher reads it: a sweep's BA_norm, TPR, TNR and FPR_h per row, read
back from every surface that shows them, must be the leaderboard CSV's (tests/test_mlflow_ui.py
runs README line 1's sweep against a real ``mlflow server`` and calls :func:`check_surfaces`).

Surfaces: the console's leaderboard (the sweep's stdout), ``leaderboard.csv``, the report's
``report.md`` leaderboard and attack table, the values every rate plot drew (``<plot>.json``
beside each ``.png``: the sweep's and the report's) and the child runs' MLflow metrics, which
the runs table sorts by, and their descriptions (the first thing on a run's page). Besides the
headline: adaptive FPR_h, tasks broken (static, adaptive) and the per-type rates, all on the
one common pool; a run that scored more shows its own figures under ``own_pool/`` in both its
metrics and its description. Text shows one decimal, MLflow two, the CSV full precision.
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
    _check_pages(rows, {c.info.run_name: c for c in children}, board, report)
    best = rows[0]
    assert abs(parent.data.metrics["ba_norm"] - float(best["ba_norm"])) <= 0.0051
    assert {"ba_norm_ci_low", "ba_norm_ci_high", "tpr", "tnr", "fpr_h"} <= set(parent.data.metrics)
    assert parent.data.params["n_tasks_common"] == best["pool_tasks"]
    return rows


ATTACK = {"attack/fpr_h_adaptive": "FPR_h adaptive", "attack/tasks_broken_static":
          "tasks broken static", "attack/tasks_broken_adaptive": "tasks broken adaptive"}
PER_TYPE = ("tool_call", "state", "code")


def _one(cell: str, value: str) -> bool:
    """A text cell shows the CSV's value at one decimal."""
    return _shown(cell) == f"{float(value):.1f}"


def _check_pages(rows: list[dict[str, str]], runs: dict[str, Any], board: dict[str, Any],
                 report: str) -> None:
    """Adaptive FPR_h, tasks broken and per-type rates: the CSV's on every surface, and each
    run's description shows exactly its metrics, naming the pool (own-pool ones as such)."""
    attack = [t for t in md_tables(report) if t[0][:2] == ["configuration", "FPR_h static"]]
    by_label = _by_name(attack[0], "configuration") if attack else {}
    for r in rows:
        name, m = r["run"], runs[r["run"]].data.metrics
        note = runs[name].data.tags["mlflow.note.content"]
        assert f"common pool of {r['pool_tasks']} tasks" in note, name
        pages = md_tables(note)
        on_pool = _by_name(pages[0], "type")
        for key, title in zip(HEADLINE, ("BA_norm", "TPR", "TNR", "FPR_h")):
            assert _one(on_pool["all"][title], r[key]), (name, key, on_pool["all"][title])
        for key, title in ATTACK.items():
            if r.get(key) in (None, ""):
                continue
            assert abs(m[key] - float(r[key])) <= 0.0051, (name, key, m[key], r[key])
            label = f"{r['generator']} | {r['access']}"
            if label in by_label:
                assert _one(by_label[label][title], r[key]), (name, key)
        if r.get("attack/fpr_h_adaptive"):
            assert _one(on_pool["all"]["FPR_h adaptive"], r["attack/fpr_h_adaptive"]), name
            assert _one(board[name]["FPR_h adaptive"], r["attack/fpr_h_adaptive"]), name
        for ttype in PER_TYPE:
            for key, title in zip(HEADLINE, ("BA_norm", "TPR", "TNR", "FPR_h")):
                k = f"{ttype}/{key}"
                if r.get(k) in (None, ""):
                    continue
                assert abs(m[k] - float(r[k])) <= 0.0051, (name, k, m[k], r[k])
                assert _one(on_pool[ttype][title], r[k]), (name, k, on_pool[ttype][title])
        own = "own_pool/ba_norm" in m
        assert own == (len(pages) == 2) == ("Own pool" in note), name
        if own:
            shown = float(_shown(_by_name(pages[1], "type")["all"]["BA_norm"]))
            assert abs(shown - m["own_pool/ba_norm"]) <= 0.051, name


def check_widths(rows: list[dict[str, str]], children: list[Any], client: Any,
                 runs_dir: Path) -> int:
    """No interval the sweep logged (``leaderboard.csv``, which the console and the report
    print, and every child's MLflow ``*_ci_low``/``*_ci_high``) is a point while the tasks it
    rests on have different values: each task's value alone is read back from the run's own
    judgments. Returns how many intervals were checked."""
    import numpy as np

    from monitorbench.metrics import build_table
    from monitorbench.metrics.bootstrap import alone_rates
    from monitorbench.tracking.sweep_report import run_records

    records = {c.info.run_name: run_records(client, c, runs_dir) for c in children}
    pool = frozenset.intersection(*(frozenset(r["task_id"] for r in recs)
                                    for recs in records.values()))
    metrics = {c.info.run_name: c.data.metrics for c in children}
    checked = 0
    for r in rows:
        assert int(r["pool_tasks"]) == len(pool), r["run"]
        alone = {"": alone_rates(build_table([x for x in records[r["run"]]
                                              if x["task_id"] in pool])),
                 "own_pool/": alone_rates(build_table(records[r["run"]]))}
        bounds = {k: float(v) for k, v in r.items() if "_ci_" in k and v not in ("", None)}
        bounds.update({k: v for k, v in metrics[r["run"]].items() if "_ci_" in k})
        for key, low in bounds.items():
            if not key.endswith("_ci_low"):
                continue
            prefix = "own_pool/" if key.startswith("own_pool/") else ""
            rate = key.removeprefix(prefix).removesuffix("_ci_low")
            values = alone[prefix][rate]
            values = values[~np.isnan(values)]
            high = bounds[key.removesuffix("_ci_low") + "_ci_high"]
            assert values.size >= 2, (r["run"], key, "an interval on one task")
            assert low < high or np.ptp(values) == 0, (r["run"], key, low, high, values)
            checked += 1
    return checked
