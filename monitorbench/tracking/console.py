"""The table a job prints when it ends (lm-evaluation-harness style): what was scored, the
headline rates per task type, the diagnostics a reader checks first, and where to look next.

It formats the job's metric dict (:func:`monitorbench.metrics.summarize` plus run counters) and
computes nothing itself, so the printed numbers are the logged ones.
"""

from __future__ import annotations

from typing import Mapping

from monitorbench.suites.format import TASK_TYPES

COLUMNS = (("tasks", "n_tasks"), ("cases", "n_cases"), ("BA_norm", "ba_norm"), ("TPR", "tpr"),
           ("TNR", "tnr"), ("FPR_h", "fpr_h"))


def _cell(metrics: Mapping[str, float], key: str) -> str:
    if key not in metrics:
        return "—"   # an empty denominator (e.g. no attack case): absent, never 0
    value = metrics[key]
    return str(int(value)) if key.startswith("n_") else f"{value:.1f}"


def summary_table(metrics: Mapping[str, float]) -> str:
    """Markdown rows: ``all`` and each task type the job scored."""
    rows = [("all", "")] + [(t, f"{t}/") for t in TASK_TYPES if f"{t}/tpr" in metrics]
    lines = ["| type | " + " | ".join(name for name, _ in COLUMNS) + " |",
             "|---" * (len(COLUMNS) + 1) + "|"]
    for name, prefix in rows:
        # counts are pooled over the job; per-type rows show the per-type rates only
        cells = ["" if prefix and key.startswith("n_") else _cell(metrics, f"{prefix}{key}")
                 for _, key in COLUMNS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def job_summary(name: str, metrics: Mapping[str, float], run_dir: str,
                mlflow_hint: str | None) -> str:
    """The whole end-of-job block: title, table, diagnostics, outputs and MLflow pointers."""
    diag = [f"submitted {_cell(metrics, 'submission_rate')}%",
            f"valid outputs {_cell(metrics, 'valid_output_rate')}%",
            f"set aside {int(metrics.get('tasks_set_aside', 0))} task(s)",
            f"infra failures {int(metrics.get('diag/infra_failures', 0))}"]
    parts = [f"\n{name}", summary_table(metrics), "Diagnostics: " + ", ".join(diag),
             f"Outputs: {run_dir}"]
    if mlflow_hint:
        parts.append(f"MLflow:  {mlflow_hint}")
    return "\n".join(parts)
