"""Close a sweep's parent run with a leaderboard (markdown + CSV) and cross-configuration plots.

Everything is also written into the sweep directory under outputs/, so the tables exist without
an MLflow UI at hand. Columns: run, the headline rates, attack acceptance static beside adaptive
(FPR_h, then tasks broken; only when some run ran the adaptive attacker), then FPR_h per attack
category. Run names hold Hydra overrides (``generator=a|b`` is legal), so every markdown cell is
escaped (:func:`md_cell`): an unescaped ``|`` or newline would shift a row's cells.
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

HEADLINE = ("ba_norm", "tpr", "tnr", "fpr_h")
ATTACK = ("attack/fpr_h_static", "attack/fpr_h_adaptive", "attack/tasks_broken_static",
          "attack/tasks_broken_adaptive")


def child_runs(client, parent_run_id: str) -> list[Any]:
    parent = client.get_run(parent_run_id)
    return client.search_runs([parent.info.experiment_id],
                              filter_string=f"tags.mlflow.parentRunId = '{parent_run_id}'",
                              max_results=5000)


def leaderboard_rows(runs: list[Any]) -> list[dict[str, Any]]:
    """One row per child run, sorted by BA_norm (best first): headline rates, static beside
    adaptive attack acceptance (when any run has it), FPR_h per attack category."""
    attacked = [k for k in ATTACK if any(k in r.data.metrics for r in runs)]
    rows = []
    for r in runs:
        m = r.data.metrics
        row: dict[str, Any] = {"run": r.data.tags.get("mlflow.runName", r.info.run_id)}
        if "n_tasks" in m:
            row["tasks"] = int(m["n_tasks"])
        for k in (*HEADLINE, *attacked):
            row[k] = m.get(k)
        for k in sorted(m):
            if k.startswith("fpr_h/"):
                row[k] = m[k]
        rows.append(row)
    rows.sort(key=lambda x: -(x["ba_norm"] if x["ba_norm"] is not None else -1e9))
    return rows


def md_cell(text: str) -> str:
    """``text`` safe inside a markdown table cell: backslashes and pipes escaped (a ``|`` would
    start a new cell), line breaks as ``<br>`` (a newline would end the row)."""
    text = text.replace("\\", "\\\\").replace("|", "\\|")
    return text.replace("\r\n", "<br>").replace("\r", "<br>").replace("\n", "<br>")


def pool_note(rows: list[dict[str, Any]]) -> str | None:
    """Rows scored on fewer tasks than the largest pool (e.g. ``access=parsed`` sets BFCL tasks
    aside) are not ranked like for like: say so under the table, naming them."""
    sizes = {row["run"]: row["tasks"] for row in rows if row.get("tasks") is not None}
    if len(set(sizes.values())) <= 1:
        return None
    most = max(sizes.values())
    fewer = ", ".join(f"{md_cell(run)} ({n})" for run, n in sizes.items() if n < most)
    return (f"Task pools differ: the largest has {most} tasks; scored on fewer: {fewer}. "
            "Rates over different pools are not directly comparable.")


def write_tables(rows: list[dict[str, Any]], out_dir: Path) -> tuple[Path, Path]:
    lead = ("run", "tasks", *HEADLINE, *ATTACK)
    present = {k for row in rows for k in row}
    cols = [k for k in lead if k in present] + sorted(present - set(lead))
    csv_path = out_dir / "leaderboard.csv"
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)

    def fmt(v: Any) -> str:
        return "—" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))

    lines = ["| " + " | ".join(md_cell(c) for c in cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(md_cell(fmt(row.get(c))) for c in cols) + " |" for row in rows]
    note = pool_note(rows)
    if note:
        lines += ["", note]
    md_path = out_dir / "leaderboard.md"
    md_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return md_path, csv_path


def finish_parent(client, parent_run_id: str, sweep_dir: Path) -> None:
    from monitorbench.tracking.plots import plot_concentration, plot_tpr_tnr

    sweep_dir.mkdir(parents=True, exist_ok=True)
    runs = child_runs(client, parent_run_id)
    try:
        if runs:
            rows = leaderboard_rows(runs)
            for p in write_tables(rows, sweep_dir):
                client.log_artifact(parent_run_id, str(p))
            # As an MLflow table too, so the UI shows the leaderboard as a table, not a file.
            cols = list(dict.fromkeys(k for row in rows for k in row))
            client.log_table(parent_run_id, data={c: [row.get(c) for row in rows] for c in cols},
                             artifact_file="leaderboard_table.json")
            summaries = {r.data.tags.get("mlflow.runName", r.info.run_id): r.data.metrics
                         for r in runs if "tpr" in r.data.metrics}
            if summaries:
                client.log_artifact(parent_run_id, str(plot_tpr_tnr(
                    summaries, sweep_dir / "tpr_vs_tnr.png", title="Sweep: TPR vs TNR")), "plots")
                with_q = {k: v for k, v in summaries.items() if "q_m" in v}
                if with_q:
                    client.log_artifact(parent_run_id, str(plot_concentration(
                        with_q, sweep_dir / "concentration.png")), "plots")
        client.log_metric(parent_run_id, "n_jobs", len(runs))
        client.set_terminated(parent_run_id, "FINISHED")
    except BaseException:
        client.set_terminated(parent_run_id, "FAILED")
        raise
    log.info("sweep parent %s closed with %d child runs; leaderboard in %s", parent_run_id,
             len(runs), sweep_dir)
