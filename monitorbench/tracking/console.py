"""The table a job prints when it ends (lm-evaluation-harness style): what was scored, the
headline rates per task type, the diagnostics a reader checks first, and where to look next.

It formats the job's metric dict (:func:`monitorbench.metrics.summarize` plus run counters) and
the per-type counts of the same judgments (:func:`type_counts`), so the printed numbers are the
logged ones. Only the headline columns are shown, so the table fits 120 columns; the run's
``metrics.json`` and ``judgments.csv`` hold everything else, and the block says so.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from monitorbench.metrics.bootstrap import NO_BOUND
from monitorbench.metrics.headline import HIGH, LOW
from monitorbench.suites.format import TASK_TYPES
from monitorbench.tracking.table_text import (NO_VERIFIER, NO_VERIFIER_NOTE, fpr_h_cell, md_table,
                                              rate, rate_ci)

COLUMNS = (("tasks", "n_tasks"), ("cases", "n_cases"), ("BA_norm", "ba_norm"), ("TPR", "tpr"),
           ("TNR", "tnr"), ("FPR_h", "fpr_h"))
ADAPTIVE = ("FPR_h adaptive", "attack/fpr_h_adaptive")   # a column only when the job attacked
WIDTH = 120


def _cell(metrics: Mapping[str, float], key: str) -> str:
    """A rate (``—`` when absent: an empty denominator, never 0), a count, overall BA_norm
    with its interval when the job computed it, or FPR_h marked when a task had no verifier."""
    if key not in metrics:
        return "—"
    value = metrics[key]
    if key.rsplit("/", 1)[-1] == "fpr_h":   # its row's submission: "<type>/" or overall
        return fpr_h_cell(value, metrics.get(key[:-len("fpr_h")] + "submission_rate"))
    if key.rsplit("/", 1)[-1].startswith("n_"):
        return str(int(value))
    if key == "ba_norm" and key + LOW in metrics:
        return rate_ci(value, metrics[key + LOW], metrics[key + HIGH])
    if key == "ba_norm" and metrics.get("n_tasks") == 1:   # one task: no interval to give
        return rate_ci(value, NO_BOUND, NO_BOUND)
    return rate(float(value))


def type_counts(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """``<type>/n_tasks``, ``<type>/n_cases`` and ``<type>/submission_rate`` of the scored
    judgments, so per-type rows show how many tasks and cases their rates rest on and mark
    FPR_h where a task of the type had no verifier (counted on the table the rates come from)."""
    from monitorbench.metrics import build_table
    from monitorbench.metrics.diagnostics import submitted_tasks

    if not records:
        return {}
    table = build_table(records)
    per_task = table.counts.sum(axis=(1, 2))
    submitted = submitted_tasks(table)
    out: dict[str, float] = {}
    for ttype in table.present_types():
        mask = table.type_mask(ttype)
        out[f"{ttype}/n_tasks"] = float(mask.sum())
        out[f"{ttype}/n_cases"] = float(per_task[mask].sum())
        out[f"{ttype}/submission_rate"] = 100.0 * float(submitted[mask].sum()) / float(mask.sum())
    return out


def summary_table(metrics: Mapping[str, float]) -> str:
    """Markdown rows: ``all`` and each task type the job scored; the adaptive attack's FPR_h
    beside the static one when the job ran the attacker (pooled over the job: ``all`` only);
    under the table, why an FPR_h is marked ``‡`` when one is."""
    columns = COLUMNS + ((ADAPTIVE,) if ADAPTIVE[1] in metrics else ())
    rows = [("all", "")] + [(t, f"{t}/") for t in TASK_TYPES if f"{t}/tpr" in metrics]
    cells = [[name, *("" if prefix and key == ADAPTIVE[1] else _cell(metrics, f"{prefix}{key}")
                      for _, key in columns)] for name, prefix in rows]
    table = md_table(["type", *(name for name, _ in columns)], cells)
    marked = any(NO_VERIFIER in cell for row in cells for cell in row[1:])
    return table + ("\n" + NO_VERIFIER_NOTE if marked else "")


VIEW_TAG = "monitorbench.view"   # the job's MLflow run: the command that opens its cases


def view_command(run_dir: str) -> str:
    """The command that shows a run's (or sweep's) cases, verifiers and traces: printed under
    ``Outputs:`` and tagged on the job's MLflow run, so the numbers lead to the why (issue 48)."""
    import shlex

    return f"monitorbench view {shlex.quote(str(run_dir))}"


def job_summary(name: str, metrics: Mapping[str, float], run_dir: str,
                mlflow_hint: str | None) -> str:
    """The whole end-of-job block: title, table, diagnostics, outputs and MLflow pointers."""
    diag = [f"submitted {_cell(metrics, 'submission_rate')}%",
            f"valid outputs {_cell(metrics, 'valid_output_rate')}%",
            f"set aside {int(metrics.get('tasks_set_aside', 0))} task(s)",
            f"infra failures {int(metrics.get('diag/infra_failures', 0))}"]
    pool = (f"Rates on this job's {int(metrics['n_tasks'])} scored tasks, BA_norm with its 95% "
            "interval; a sweep's leaderboard ranks on the tasks all its jobs scored"
            if "n_tasks" in metrics else "")
    parts = [f"\n{name}", summary_table(metrics), *([pool] if pool else []),
             "Diagnostics: " + ", ".join(diag),
             f"Outputs: {run_dir}  (every metric: metrics.json; every judgment: judgments.csv)",
             f"View the cases: {view_command(run_dir)}"]
    if mlflow_hint:
        parts.append(f"MLflow:  {mlflow_hint}")
    return "\n".join(parts)


def run_readme(name: str, full_name: str, metrics: Mapping[str, float]) -> str:
    """The job's run description in MLflow (``mlflow.note.content``, shown on the run's page)
    and its ``README.md`` artifact: the result table the console printed, what it is on, and
    where the rest is."""
    return "\n\n".join([
        f"**{full_name}**" + (f" (shown as `{name}`)" if name != full_name else ""),
        summary_table(metrics),
        f"Rates in percent on this job's {int(metrics.get('n_tasks', 0))} scored tasks; "
        "BA_norm with its 95% task-bootstrap interval. In a sweep, the headline metrics "
        "(ba_norm, tpr, tnr, fpr_h) are replaced by the leaderboard's, on the tasks all its "
        "jobs scored (tag monitorbench.pool).",
        "Artifacts: judgments/judgments.csv (every judgment), metrics.json (every metric), "
        "verifiers/, plots/."])


def point_hydra_dir(run_dir: str, mlflow_hint: str | None) -> None:
    """Leave ``results.txt`` in the Hydra job folder (``outputs/hydra/...``), which otherwise
    holds only Hydra's log and config: where the job's results and MLflow run are."""
    from pathlib import Path

    from hydra.core.hydra_config import HydraConfig

    if not HydraConfig.initialized():
        return
    folder = Path(HydraConfig.get().runtime.output_dir)
    lines = [f"results: {run_dir}  (metrics.json, judgments.csv)"]
    if mlflow_hint:
        lines.append(f"MLflow:  {mlflow_hint}")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
