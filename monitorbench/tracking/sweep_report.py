"""Close a sweep's parent run with a leaderboard (markdown + CSV) and cross-configuration plots.

Everything is also written into the sweep directory under outputs/, so the tables exist without
an MLflow UI at hand. Every figure of a row is on the common task pool, computed by
:func:`monitorbench.metrics.headline.headline_figures` (the report's and the job's function),
and written back to the row's MLflow run, so the runs table sorts as the leaderboard ranks.
The console's and ``leaderboard.md``'s table: rank, run, BA_norm with its interval, TPR, TNR,
FPR_h (``‡`` when a task had no verifier), adaptive FPR_h, submission and valid-output rate,
tasks (``†``: scored more than the pool); ``leaderboard.csv`` holds every column as plain
numbers, one column per axis. Cells go through the one renderer
(:mod:`monitorbench.tracking.table_text`), which escapes them.
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path
from typing import Any, Callable

from monitorbench.metrics.headline import DIAGNOSTICS, HEADLINE, HIGH, LOW
from monitorbench.metrics.ranking import MORE_THAN_POOL
from monitorbench.suites.format import TASK_TYPES
from monitorbench.tracking.table_text import (NO_VERIFIER, NO_VERIFIER_NOTE, fpr_h_cell, md_cell,
                                              md_table, rate, rate_ci)

log = logging.getLogger(__name__)

AXES = ("generator", "scaffold", "access", "task")   # as tracking.job tags its runs
OWN_POOL = "own_pool/"   # a run's figures over all its tasks, when the sweep's pool is smaller
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
    (BA_norm on the common task pool, ties sharing a rank and listed by run name, ``†`` on a
    row that scored more). Every figure is on the pool (:func:`row_figures`); FPR_h per attack
    category as logged. One column per axis (``generator``, ``access``, ...). ``records``: run
    id -> its judgments; ``found``: run id -> the tasks its adaptive search broke."""
    from monitorbench.metrics.ranking import rank_on_pool

    by_name = {_name(r): r for r in runs}
    scored = scored_tasks(runs, records)
    on_pool: dict[str, dict[str, Any]] = {}

    def value_on(name: str, pool: frozenset[str]) -> float | None:
        on_pool[name] = {"pool_tasks": len(pool), **row_figures(
            records[by_name[name].info.run_id] or [], pool,
            (found or {}).get(by_name[name].info.run_id))}
        return on_pool[name].get("ba_norm")

    attacked = [k for k in ATTACK if any(k in r.data.metrics for r in runs)]
    axes = [a for a in AXES if any(f"monitorbench.{a}" in r.data.tags for r in runs)]
    rows = []
    for place in rank_on_pool(scored, value_on):
        run = by_name[place.name]
        m = run.data.metrics
        row: dict[str, Any] = {"rank": place.rank, "run": place.name,
                               "run_key": run.data.tags.get("monitorbench.run_key")}
        row.update({a: run.data.tags.get(f"monitorbench.{a}") for a in axes})
        row.update({"tasks": place.tasks or None,
                    "more_than_pool": MORE_THAN_POOL if place.more_than_pool else ""})
        row.update({k: m.get(k) for k in attacked})
        row.update({k: None for k in (*HEADLINE, *DIAGNOSTICS)})   # absent: "—", not 0
        figures = on_pool.get(place.name, {})
        if "ba_norm" not in figures:   # no records to recompute from: categories as logged
            row.update({k: m[k] for k in sorted(m) if k.startswith("fpr_h/")})
        row.update(figures)
        rows.append(row)
    return rows


def scored_tasks(runs: list[Any], records: dict[str, list[dict[str, Any]] | None]
                 ) -> dict[str, frozenset[str]]:
    """Run name -> the tasks its judgments scored (empty without records): what the common
    pool is taken over, for the leaderboard and for the figures written back to the runs."""
    from monitorbench.metrics import build_table

    return {_name(r): (frozenset(build_table(records[r.info.run_id]).task_ids)
                       if records.get(r.info.run_id) else frozenset()) for r in runs}


def row_figures(records: list[dict[str, Any]], pool: frozenset[str] | None,
                broke: frozenset[str] | None) -> dict[str, Any]:
    """A leaderboard row's figures on ``pool``: :func:`monitorbench.metrics.headline.
    pool_figures` (the one computation the report, the runs' metrics and their descriptions
    use too: headline with intervals, per type, per attack category, submission and valid
    outputs, and static beside adaptive attack figures when the run's search broke ``broke``;
    else the attack columns stay as logged), less the sample's sizes (MLflow params; the
    ``pool_tasks`` column) and the case tallies and Q_m a leaderboard does not show (the run's
    metrics hold them, :func:`_page_figures`). ``pool`` None: all the run's tasks."""
    from monitorbench.metrics.headline import pool_figures
    from monitorbench.tracking.job import is_count

    def shown(key: str) -> bool:
        scope, _, name = key.rpartition("/")
        return (key.startswith(("fpr_h/", "attack/")) or key in DIAGNOSTICS
                or (name.split("_ci_")[0] in HEADLINE and scope in ("", *TASK_TYPES)))

    return {k: v for k, v in pool_figures(records, pool, broke).items()
            if shown(k) and not is_count(k)}


def numbers(run: Any) -> dict[str, float]:
    """A job run's metrics with its sample's sizes, which it logs as params (``n_tasks``)."""
    from monitorbench.tracking.job import is_count

    counts = {k: float(v) for k, v in run.data.params.items() if is_count(k)}
    return {**counts, **run.data.metrics}


def _name(run: Any) -> str:
    return run.data.tags.get("mlflow.runName", run.info.run_id)


def pool_note(rows: list[dict[str, Any]], cell: Callable[[str], str] = md_cell) -> str | None:
    """Rows scored on different task pools (e.g. ``access=parsed`` sets BFCL tasks aside): say
    that the ranking is on the common pool and name the rows that scored more (``†``); ``cell``
    escapes a run name for the note's format (markdown by default)."""
    sizes = {row["run"]: _count(row["tasks"]) for row in rows if row.get("tasks") is not None}
    if len(set(sizes.values())) <= 1:
        return None
    least = min(sizes.values())
    more = ", ".join(f"{cell(run)} ({n})" for run, n in sizes.items() if n > least)
    return (f"Task pools differ ({least} to {max(sizes.values())} tasks): every rate here is "
            f"on the tasks all rows scored. {MORE_THAN_POOL} = scored more: {more}; its rates "
            f"over all of them are its run's {OWN_POOL}* metrics.")


def _count(tasks: Any) -> int:
    return int(str(tasks).split()[0])


# The console and markdown table: the headline columns and the diagnostics a reader checks
# beside FPR_h (it must fit 120 columns); the CSV beside it holds every column.
SHORT = (("rank", "rank"), ("run", "run"), ("BA_norm [95% CI]", "ba_norm"), ("TPR", "tpr"),
         ("TNR", "tnr"), ("FPR_h", "fpr_h"), ("FPR_h adaptive", "attack/fpr_h_adaptive"),
         ("submitted", "submission_rate"), ("valid out", "valid_output_rate"),
         ("tasks", "tasks"))


def _shown(v: Any) -> Any:
    """A rate as the UI table shows it (2 decimals, like the runs' metrics), else as is."""
    return round(v, 2) if isinstance(v, float) else v


def _short_cell(row: dict[str, Any], key: str) -> str:
    """A console cell: BA_norm with its interval, FPR_h marked when a task had no verifier,
    the task count with its ``†``."""
    value = row.get(key)
    if key == "ba_norm" and value is not None and "ba_norm" + LOW in row:
        return rate_ci(value, row["ba_norm" + LOW], row["ba_norm" + HIGH])
    if key == "fpr_h":
        return fpr_h_cell(value, row.get("submission_rate"))
    if key == "tasks" and value is not None:
        return f"{value} {row.get('more_than_pool', '')}".strip()
    return rate(value)


def leaderboard_md(rows: list[dict[str, Any]], csv_path: Path,
                   aside: str | None = None) -> str:
    """The console's and ``leaderboard.md``'s table, its notes (the pool, why tasks were set
    aside, the ``‡`` mark) and a pointer to the CSV."""
    present = {k for row in rows for k in row}
    short = [(title, key) for title, key in SHORT if key in present]
    lines = [md_table([t for t, _ in short], [[_short_cell(r, k) for _, k in short]
                                              for r in rows]), ""]
    lines += [n for n in (pool_note(rows), aside) if n]
    if any(NO_VERIFIER in _short_cell(r, "fpr_h") for r in rows):
        lines.append(NO_VERIFIER_NOTE)
    lines.append(f"Every column (intervals, axes, attack categories, tasks broken): {csv_path}")
    return "\n".join(lines) + "\n"


def write_tables(rows: list[dict[str, Any]], out_dir: Path,
                 aside: str | None = None) -> tuple[Path, Path]:
    """``leaderboard.csv`` (every column, plain numbers, one column per axis, the ``†`` flag in
    its own column, the run's directory name under ``outputs/runs`` as ``run_key``) and
    ``leaderboard.md`` (:func:`leaderboard_md`)."""
    lead = ("rank", "run", "run_key", *AXES, "tasks", "more_than_pool", "pool_tasks",
            *(k + s for k in HEADLINE for s in ("", LOW, HIGH)), *DIAGNOSTICS, *ATTACK)
    present = {k for row in rows for k in row}
    cols = [k for k in lead if k in present] + sorted(present - set(lead))
    csv_path = out_dir / "leaderboard.csv"
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    md_path = out_dir / "leaderboard.md"
    md_path.write_text(leaderboard_md(rows, csv_path, aside), encoding="utf-8")
    return md_path, csv_path


def finish_parent(client, parent_run_id: str, sweep_dir: Path,
                  runs_dir: Path | None = None) -> None:
    """Close the sweep's parent FINISHED with its leaderboard and plots, after closing children
    an interrupted attempt left RUNNING; write the leaderboard's figures back to each child
    (:func:`write_back`) and the best row's to the parent (:func:`log_best`), so MLflow ranks
    runs by the leaderboard's numbers. ``runs_dir``: the jobs' ``outputs/runs`` (judgments are
    read there first, else from each run's artifacts)."""
    from monitorbench.tracking.plots import plot_concentration, plot_tpr_tnr

    sweep_dir.mkdir(parents=True, exist_ok=True)
    runs = close_stuck(client, child_runs(client, parent_run_id))
    try:
        if runs:
            records = {r.info.run_id: run_records(client, r, runs_dir) for r in runs}
            found = {r.info.run_id: run_found(client, r, runs_dir) for r in runs}
            rows = leaderboard_rows(runs, records, found)
            for p in write_tables(rows, sweep_dir, set_aside_note(runs)):
                client.log_artifact(parent_run_id, str(p))
            # As an MLflow table too, so the UI shows the leaderboard as a table, not a file.
            cols = list(dict.fromkeys(k for row in rows for k in row))
            client.log_table(parent_run_id, data={c: [_shown(row.get(c)) for row in rows]
                                                  for c in cols},
                             artifact_file="leaderboard_table.json")
            write_back(client, runs, rows, records, found)
            log_best(client, parent_run_id, rows)
            ranked = {row["run"]: row for row in rows if row.get("tpr") is not None}
            if ranked:
                client.log_artifact(parent_run_id, str(plot_tpr_tnr(
                    ranked, sweep_dir / "tpr_vs_tnr.png",
                    title="Sweep: TPR vs TNR on the common pool "
                          f"({next(iter(ranked.values()))['pool_tasks']} tasks)")), "plots")
            with_q = {_name(r): numbers(r) for r in runs if "q_m" in r.data.metrics}
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


def _figures(row: dict[str, Any]) -> dict[str, float]:
    """The row's headline figures and interval bounds, as MLflow shows metrics (2 decimals)."""
    keys = [k + s for k in HEADLINE for s in ("", LOW, HIGH)]
    return {k: round(float(row[k]), 2) for k in keys if row.get(k) is not None}


def write_back(client, runs: list[Any], rows: list[dict[str, Any]],
               records: dict[str, list[dict[str, Any]] | None],
               found: dict[str, frozenset[str] | None] | None = None) -> None:
    """One pool per run page: each child's figures (headline with intervals, per type, per
    attack category, attack/*, submission; :func:`monitorbench.metrics.headline.pool_figures`)
    become the leaderboard's, on the common pool, so sorting MLflow's runs table ranks as the
    leaderboard does; a run that scored more keeps its figures over all its tasks as
    ``own_pool/...``, and a figure its own tasks define but the pool does not is logged NaN
    (MLflow cannot delete a metric). Its description is rebuilt from the same figures and names
    the pool. Logged at step 0 with a later timestamp, so they are the values MLflow shows."""
    from monitorbench.metrics.ranking import common_pool
    from monitorbench.tracking.mlflow_logger import log_params_metrics

    by_name = {_name(r): r for r in runs}
    pool = common_pool(scored_tasks(runs, records))
    for row in rows:
        run = by_name[row["run"]]
        recs = records.get(run.info.run_id)
        if not _figures(row) or not recs:
            continue
        broke = (found or {}).get(run.info.run_id)
        on_pool, own = _page_figures(recs, pool, broke)
        metrics = {k: (round(v, 2) if v == v else v) for k, v in on_pool.items()}
        if row.get("more_than_pool"):
            metrics.update({OWN_POOL + k: round(v, 2) for k, v in own.items() if v == v})
        log_params_metrics(client, run.info.run_id, {}, metrics)
        where = (f"headline metrics on the sweep's common pool of {row['pool_tasks']} tasks "
                 f"(this run scored {row['tasks']})")
        client.set_tag(run.info.run_id, "monitorbench.pool", where)
        client.set_tag(run.info.run_id, "mlflow.note.content", sweep_readme(
            run.data.tags.get("mlflow.note.content", ""), row, recs, pool, broke))


def _page_figures(recs: list[dict[str, Any]], pool: frozenset[str],
                  broke: frozenset[str] | None) -> tuple[dict[str, float], dict[str, float]]:
    """A run's metrics on the pool (NaN for a figure only its own tasks define) and over all
    its tasks, every metric a job logs (:func:`pool_figures`) less the sample's sizes."""
    from monitorbench.metrics.headline import pool_figures
    from monitorbench.tracking.job import is_count

    on_pool, own = ({k: v for k, v in pool_figures(recs, on, broke).items() if not is_count(k)}
                    for on in (pool, None))
    on_pool.update({k: float("nan") for k in own if k not in on_pool})
    return on_pool, own


def sweep_readme(note: str, row: dict[str, Any], recs: list[dict[str, Any]],
                 pool: frozenset[str], broke: frozenset[str] | None) -> str:
    """The run's description after its sweep: its title, then the table of exactly the figures
    its metrics hold (on the common pool, named), and for a run that scored more its own-pool
    table, named as its ``own_pool/*`` metrics."""
    from monitorbench.metrics.headline import pool_figures
    from monitorbench.tracking.console import summary_table, type_counts

    title = note.split("\n\n")[0] if note.startswith("**") else f"**{row['run']}**"
    on = [r for r in recs if r["task_id"] in pool]
    parts = [title, f"{_IN_SWEEP} rank {row['rank']}. Rates in percent on the sweep's common "
             f"pool of {row['pool_tasks']} tasks (this run scored {row['tasks']}); these are "
             "the run's metrics (ba_norm, tpr, tnr, fpr_h, <type>/*, attack/*), the "
             "leaderboard's and the report's. BA_norm with its 95% task-bootstrap interval.",
             summary_table({**pool_figures(recs, pool, broke), **type_counts(on)})]
    if row.get("more_than_pool"):
        parts += [f"Own pool: all {_count(row['tasks'])} tasks this run scored, its "
                  f"{OWN_POOL}* metrics.", summary_table({**pool_figures(recs, None, broke),
                                                          **type_counts(recs)})]
    parts.append("Artifacts: judgments/judgments.csv (every judgment), metrics.json (the job's "
                 "metrics on its own tasks), verifiers/, plots/.")
    return "\n\n".join(parts)


_IN_SWEEP = "**In its sweep's leaderboard:**"


def log_best(client, parent_run_id: str, rows: list[dict[str, Any]]) -> None:
    """The parent run holds the leaderboard's first row (its figures, submission and
    valid-output rate), its name as a tag and the pool size as ``n_tasks_common``, so the
    sweep's row in MLflow's runs table is not empty."""
    from monitorbench.tracking.mlflow_logger import log_params_metrics

    best = rows[0]
    if best.get("rank") is None:
        return
    metrics = {**_figures(best), **{k: round(float(best[k]), 2) for k in DIAGNOSTICS
                                     if best.get(k) is not None}}
    logged = client.get_run(parent_run_id).data.params.get("n_tasks_common")
    pool = str(best["pool_tasks"])
    params = {"n_tasks_common": pool} if logged is None else {}
    if logged not in (None, pool):   # a param cannot change: a re-run's pool as a metric
        metrics["n_tasks_common"] = float(pool)
    log_params_metrics(client, parent_run_id, params, metrics)
    client.set_tag(parent_run_id, "monitorbench.best_run", str(best["run"]))


def set_aside_note(runs: list[Any]) -> str | None:
    """Why pools differ: which access settings set tasks aside, and why (their remaining cases
    were indistinguishable under the setting, ``cases_indistinguishable``)."""
    aside: dict[str, tuple[int, int]] = {}
    for r in runs:
        m, access = r.data.metrics, r.data.tags.get("monitorbench.access", _name(r))
        if m.get("tasks_set_aside"):
            aside[access] = (int(m["tasks_set_aside"]), int(m.get("cases_indistinguishable", 0)))
    if not aside:
        return None
    parts = ", ".join(f"`{a}` sets aside {n} task(s) ({c} cases indistinguishable)"
                      for a, (n, c) in sorted(aside.items()))
    return (f"Set aside: {parts}: under that access setting those tasks keep no PASS or no "
            "FAIL case a verifier could tell apart (cases_indistinguishable), so they are not "
            "scored there and fall out of the common pool.")
