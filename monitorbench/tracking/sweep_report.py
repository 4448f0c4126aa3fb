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

from monitorbench.metrics.headline import HEADLINE
from monitorbench.metrics.ranking import MORE_THAN_POOL

log = logging.getLogger(__name__)

ATTACK = ("attack/fpr_h_static", "attack/fpr_h_adaptive", "attack/tasks_broken_static",
          "attack/tasks_broken_adaptive")


def child_runs(client, parent_run_id: str) -> list[Any]:
    parent = client.get_run(parent_run_id)
    return client.search_runs([parent.info.experiment_id],
                              filter_string=f"tags.mlflow.parentRunId = '{parent_run_id}'",
                              max_results=5000)


def close_stuck(client, runs: list[Any]) -> list[Any]:
    """At the sweep's end no job of it is still working: a child still RUNNING was left by an
    earlier, interrupted attempt (Ctrl-C, a killed node). Mark it KILLED, so the UI shows no run
    RUNNING for ever, and return the finished children, the ones the leaderboard ranks."""
    for r in runs:
        if r.info.status == "RUNNING":
            client.set_tag(r.info.run_id, "monitorbench.error",
                           "left RUNNING by an interrupted attempt; closed when its sweep ended")
            client.set_terminated(r.info.run_id, "KILLED")
            log.warning("closed stuck MLflow run %s (%s) as KILLED", r.info.run_id,
                        r.data.tags.get("mlflow.runName", ""))
    return [r for r in runs if r.info.status == "FINISHED"]


def run_records(client, run: Any, runs_dir: Path | None) -> list[dict[str, Any]] | None:
    """The job's scored judgments: its run directory's ``judgments.csv`` when this machine has
    it, else the run's artifact; None when neither is there."""
    from monitorbench.tracking.judgments_csv import parse_csv_records

    key = run.data.tags.get("monitorbench.run_key")
    if key and runs_dir is not None and (runs_dir / key / "judgments.csv").is_file():
        return parse_csv_records(runs_dir / key / "judgments.csv")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        try:
            return parse_csv_records(Path(client.download_artifacts(
                run.info.run_id, "judgments/judgments.csv", tmp)))
        except Exception:  # no artifact (or unreachable): left unranked
            return None


def run_found(client, run: Any, runs_dir: Path | None) -> frozenset[str] | None:
    """Tasks the job's adaptive search broke (``attack/attack.json`` in its run directory when
    this machine has it, else the run's artifact); None when it ran no attack stage or neither
    is there."""
    import json
    import tempfile

    if "attack/fpr_h_adaptive" not in run.data.metrics:
        return None
    key = run.data.tags.get("monitorbench.run_key")
    local = runs_dir / key / "attack" / "attack.json" if key and runs_dir is not None else None
    with tempfile.TemporaryDirectory() as tmp:
        try:
            path = local if local is not None and local.is_file() else Path(
                client.download_artifacts(run.info.run_id, "attack/attack.json", tmp))
            tasks = json.loads(path.read_text(encoding="utf-8"))["tasks"]
        except Exception:  # no artifact (or unreachable): adaptive stays as logged
            return None
    return frozenset(t["task_id"] for t in tasks if t["found"])


def leaderboard_rows(runs: list[Any], records: dict[str, list[dict[str, Any]] | None],
                     found: dict[str, frozenset[str] | None] | None = None
                     ) -> list[dict[str, Any]]:
    """One row per child run, ranked by :func:`monitorbench.metrics.ranking.rank_on_pool`
    (BA_norm on the common task pool, ties sharing a rank, ``†`` on a row that scored more):
    headline rates on the pool, static beside adaptive attack acceptance (FPR_h on the pool
    when ``found`` has the tasks the run's search broke, :mod:`monitorbench.metrics.adaptive`;
    else as logged), FPR_h per attack category as logged. ``records``: run id -> its
    judgments."""
    from monitorbench.metrics import build_table, summarize
    from monitorbench.metrics.adaptive import static_adaptive_fpr_h
    from monitorbench.metrics.ranking import rank_on_pool

    by_name = {_name(r): r for r in runs}
    scored = {_name(r): (frozenset(build_table(records[r.info.run_id]).task_ids)
                         if records.get(r.info.run_id) else frozenset()) for r in runs}
    on_pool: dict[str, dict[str, float]] = {}
    pooled: dict[str, list[dict[str, Any]]] = {}

    def value_on(name: str, pool: frozenset[str]) -> float | None:
        recs = [x for x in records[by_name[name].info.run_id] or [] if x["task_id"] in pool]
        pooled[name] = recs
        on_pool[name] = summarize(recs) if recs else {}
        return on_pool[name].get("ba_norm")

    attacked = [k for k in ATTACK if any(k in r.data.metrics for r in runs)]
    rows = []
    for place in rank_on_pool(scored, value_on):
        m = by_name[place.name].data.metrics
        row: dict[str, Any] = {"rank": place.rank, "run": place.name,
                               "tasks": place.tasks_cell if place.tasks else None}
        row.update({k: on_pool.get(place.name, {}).get(k) for k in HEADLINE})
        row.update({k: m.get(k) for k in attacked})
        broke = (found or {}).get(by_name[place.name].info.run_id)
        if broke is not None and pooled.get(place.name):
            # one pool for both: adaptive as logged is over all the job's tasks
            row["attack/fpr_h_static"], row["attack/fpr_h_adaptive"] = \
                static_adaptive_fpr_h(pooled[place.name], broke)
        row.update({k: m[k] for k in sorted(m) if k.startswith("fpr_h/")})
        rows.append(row)
    return rows


def numbers(run: Any) -> dict[str, float]:
    """A job run's metrics with its sample's sizes, which it logs as params (``n_tasks``)."""
    from monitorbench.tracking.job import is_count

    counts = {k: float(v) for k, v in run.data.params.items() if is_count(k)}
    return {**counts, **run.data.metrics}


def _name(run: Any) -> str:
    return run.data.tags.get("mlflow.runName", run.info.run_id)


def md_cell(text: str) -> str:
    """``text`` safe inside a markdown table cell: backslashes and pipes escaped (a ``|`` would
    start a new cell), line breaks as ``<br>`` (a newline would end the row)."""
    text = text.replace("\\", "\\\\").replace("|", "\\|")
    return text.replace("\r\n", "<br>").replace("\r", "<br>").replace("\n", "<br>")


def pool_note(rows: list[dict[str, Any]]) -> str | None:
    """Rows scored on different task pools (e.g. ``access=parsed`` sets BFCL tasks aside): say
    that the ranking is on the common pool and name the rows that scored more (``†``)."""
    sizes = {row["run"]: _count(row["tasks"]) for row in rows if row.get("tasks") is not None}
    if len(set(sizes.values())) <= 1:
        return None
    least = min(sizes.values())
    more = ", ".join(f"{md_cell(run)} ({n})" for run, n in sizes.items() if n > least)
    return (f"Task pools differ ({least} to {max(sizes.values())} tasks): every rate here is "
            f"on the tasks all rows scored. {MORE_THAN_POOL} = scored more: {more}; its rates "
            "over all of them are in its run's metrics.")


def _count(tasks: Any) -> int:
    return int(str(tasks).split()[0])


# The console and markdown table: the headline columns only (it must fit 120 columns); the CSV
# beside it holds every column.
SHORT = (("rank", "rank"), ("run", "run"), ("BA_norm", "ba_norm"), ("TPR", "tpr"),
         ("TNR", "tnr"), ("FPR_h", "fpr_h"), ("FPR_h adaptive", "attack/fpr_h_adaptive"),
         ("tasks", "tasks"))


def _shown(v: Any) -> Any:
    """A rate as the UI table shows it (2 decimals, like the runs' metrics), else as is."""
    return round(v, 2) if isinstance(v, float) else v


def _fmt(v: Any) -> str:
    return "—" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))


def write_tables(rows: list[dict[str, Any]], out_dir: Path) -> tuple[Path, Path]:
    """``leaderboard.csv`` (every column) and ``leaderboard.md`` (headline columns, the pool
    note and a pointer to the CSV)."""
    lead = ("rank", "run", "tasks", *HEADLINE, *ATTACK)
    present = {k for row in rows for k in row}
    cols = [k for k in lead if k in present] + sorted(present - set(lead))
    csv_path = out_dir / "leaderboard.csv"
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    short = [(title, key) for title, key in SHORT if key in present]
    lines = ["| " + " | ".join(title for title, _ in short) + " |", "|" + "---|" * len(short)]
    lines += ["| " + " | ".join(md_cell(_fmt(row.get(k))) for _, k in short) + " |"
              for row in rows]
    note = pool_note(rows)
    lines += ["", *([note] if note else []),
              f"Every column (attack categories, tasks broken): {csv_path}"]
    md_path = out_dir / "leaderboard.md"
    md_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return md_path, csv_path


def finish_parent(client, parent_run_id: str, sweep_dir: Path,
                  runs_dir: Path | None = None) -> None:
    """Close the sweep's parent FINISHED with its leaderboard and plots, after closing children
    an interrupted attempt left RUNNING. ``runs_dir``: the jobs' ``outputs/runs`` (judgments
    are read there first, else from each run's artifacts)."""
    from monitorbench.tracking.plots import plot_concentration, plot_tpr_tnr

    sweep_dir.mkdir(parents=True, exist_ok=True)
    runs = close_stuck(client, child_runs(client, parent_run_id))
    try:
        if runs:
            rows = leaderboard_rows(runs, {r.info.run_id: run_records(client, r, runs_dir)
                                           for r in runs},
                                    {r.info.run_id: run_found(client, r, runs_dir) for r in runs})
            for p in write_tables(rows, sweep_dir):
                client.log_artifact(parent_run_id, str(p))
            # As an MLflow table too, so the UI shows the leaderboard as a table, not a file.
            cols = list(dict.fromkeys(k for row in rows for k in row))
            client.log_table(parent_run_id, data={c: [_shown(row.get(c)) for row in rows]
                                                  for c in cols},
                             artifact_file="leaderboard_table.json")
            summaries = {r.data.tags.get("mlflow.runName", r.info.run_id): numbers(r)
                         for r in runs if "tpr" in r.data.metrics}
            if summaries:
                client.log_artifact(parent_run_id, str(plot_tpr_tnr(
                    summaries, sweep_dir / "tpr_vs_tnr.png", title="Sweep: TPR vs TNR")), "plots")
                with_q = {k: v for k, v in summaries.items() if "q_m" in v}
                if with_q:
                    client.log_artifact(parent_run_id, str(plot_concentration(
                        with_q, sweep_dir / "concentration.png")), "plots")
        client.set_tag(parent_run_id, "monitorbench.n_jobs", str(len(runs)))  # not a curve
        client.set_terminated(parent_run_id, "FINISHED")
    except BaseException:
        client.set_terminated(parent_run_id, "FAILED")
        raise
    log.info("sweep parent %s closed with %d child runs; leaderboard in %s", parent_run_id,
             len(runs), sweep_dir)
