"""The end-of-job table prints the logged numbers: rows per scored type, absent rates as "—"."""

from __future__ import annotations

from monitorbench.tracking.console import job_summary, summary_table


def test_summary_table_rows_and_absent_rates() -> None:
    metrics = {"n_tasks": 5.0, "n_cases": 90.0, "ba_norm": 41.94, "tpr": 100.0, "tnr": 41.94,
               "tool_call/ba_norm": 50.0, "tool_call/tpr": 100.0, "tool_call/tnr": 50.0,
               "tool_call/fpr_h": 20.0, "state/ba_norm": 10.0, "state/tpr": 60.0,
               "state/tnr": 50.0, "tool_call/n_tasks": 3.0, "tool_call/n_cases": 50.0,
               "state/n_tasks": 2.0, "state/n_cases": 40.0}
    lines = summary_table(metrics).splitlines()
    assert lines[0] == "| type | tasks | cases | BA_norm | TPR | TNR | FPR_h |"
    assert lines[2] == "| all | 5 | 90 | 41.9 | 100.0 | 41.9 | — |"   # no pooled FPR_h
    assert lines[3] == "| tool_call | 3 | 50 | 50.0 | 100.0 | 50.0 | 20.0 |"
    assert lines[4] == "| state | 2 | 40 | 10.0 | 60.0 | 50.0 | — |"
    assert len(lines) == 5  # no code row: the job scored no code task
    assert all(line.count("|") == lines[0].count("|") for line in lines)


def test_job_summary_points_to_outputs_and_mlflow() -> None:
    text = job_summary("schema_check · parsed", {"n_tasks": 1.0, "tpr": 1.0, "tnr": 1.0,
                                                 "submission_rate": 100.0}, "/o/runs/k",
                       "mlflow ui --backend-store-uri sqlite:///x")
    assert "schema_check · parsed" in text and "Outputs: /o/runs/k" in text
    lines = text.splitlines()
    assert lines[lines.index(next(x for x in lines if x.startswith("Outputs: "))) + 1] == (
        "View the cases: monitorbench view /o/runs/k")   # the why, beside the numbers
    assert "MLflow:  mlflow ui --backend-store-uri sqlite:///x" in text
    assert "submitted 100.0%" in text and "infra failures 0" in text


def test_adaptive_column_only_when_attacked_and_the_table_fits_120_columns() -> None:
    metrics = {"n_tasks": 128.0, "n_cases": 2958.0, "ba_norm": 41.94, "tpr": 100.0,
               "tnr": 41.94, "fpr_h": 55.5, "attack/fpr_h_static": 55.5,
               "attack/fpr_h_adaptive": 71.25, "tool_call/tpr": 100.0, "tool_call/tnr": 41.9,
               "tool_call/ba_norm": 41.9, "tool_call/n_tasks": 128.0,
               **{f"fpr_h/category_{i}": 1.0 for i in range(15)}}
    lines = summary_table(metrics).splitlines()
    assert lines[0].endswith("| FPR_h | FPR_h adaptive |")
    assert lines[2].endswith("| 55.5 | 71.2 |") and lines[3].endswith("|  |")
    assert "category" not in "\n".join(lines)                # per-category: in metrics.json
    assert max(len(line) for line in lines) <= 120
    assert "FPR_h adaptive" not in summary_table({"tpr": 1.0, "tnr": 1.0})
    text = job_summary("x", metrics, "/o/runs/k", None)
    assert "metrics.json" in text and "judgments.csv" in text


def test_type_counts_come_from_the_scored_judgments() -> None:
    from monitorbench.tracking.console import type_counts

    assert type_counts([]) == {}


def _task(tid: str, ttype: str, submitted: bool) -> list[dict]:
    """One task's judgments: a verifier that accepts everything, or none at all (every case
    U missing_verifier), so its attack is accepted or, without a verifier, not."""
    def rec(case: str, label: str, group: str) -> dict:
        outcome, reason = ("P", "") if submitted else ("U", "missing_verifier")
        return {"task_id": tid, "task_type": ttype, "case_id": case, "group": group,
                "category": "omission" if group == "attack" else "c", "label": label,
                "outcome": outcome, "reason": reason, "round": 1, "suite_hash": "b" * 64}
    return [rec("p0", "PASS", "gold"), rec("n0", "FAIL", "ordinary_error"),
            rec("a0", "FAIL", "attack")]


def test_fpr_h_is_marked_where_a_task_had_no_verifier_and_the_table_says_why() -> None:
    from monitorbench.metrics import summarize
    from monitorbench.tracking.console import run_readme, type_counts
    from monitorbench.tracking.table_text import NO_VERIFIER_NOTE

    records = (_task("t0", "tool_call", True) + _task("t1", "tool_call", True)
               + _task("s0", "state", True) + _task("s1", "state", False))
    metrics = {**summarize(records), **type_counts(records)}
    assert metrics["submission_rate"] == 75.0 and metrics["state/submission_rate"] == 50.0
    lines = summary_table(metrics).splitlines()
    assert lines[2].endswith("| 75.0 ‡ |")            # all: 3 of 4 tasks submitted
    assert lines[3].endswith("| 100.0 |")             # tool_call: every task submitted
    assert lines[4].endswith("| 50.0 ‡ |")            # state: the U task pulls FPR_h down
    assert lines[-1] == NO_VERIFIER_NOTE
    assert NO_VERIFIER_NOTE in run_readme("n", "n", metrics)
    full = {**summarize(records[:6]), **type_counts(records[:6])}   # both submitted
    assert "‡" not in summary_table(full) + job_summary("n", full, "/o", None)


def test_a_one_task_job_prints_no_interval_for_its_ba_norm() -> None:
    """A rate on one task has no bootstrap interval: the table says so instead of a point
    dressed as an interval (``-100.0 [-100.0, -100.0]``)."""
    from monitorbench.metrics import summarize
    from monitorbench.metrics.headline import headline_figures

    records = _task("s1", "state", False)
    metrics = {**summarize(records), **headline_figures(records)}
    assert "ba_norm_ci_low" not in metrics
    row = summary_table(metrics).splitlines()[2]
    assert row.startswith("| all | 1 | 3 | -100.0 [n/a (1 task)] |"), row


def test_the_view_command_quotes_a_run_dir_with_spaces() -> None:
    """A printed command is pasted into a shell: a path with a space must stay one argument."""
    from monitorbench.tracking.console import view_command

    assert view_command("/my outputs/runs/k") == "monitorbench view '/my outputs/runs/k'"


def test_a_sweep_ends_with_the_command_that_views_its_cases(tmp_path, capsys) -> None:
    """The sweep's last lines, like a job's: Outputs, then the view command for the sweep dir
    (the viewer reads a sweep directory as well as a run's)."""
    from monitorbench.launch.callbacks import _print_summary

    _print_summary(tmp_path, "sqlite:///x.db", "1")
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [f"Outputs: {tmp_path}", f"View the cases: monitorbench view {tmp_path}"]
