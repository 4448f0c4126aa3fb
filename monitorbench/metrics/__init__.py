"""Metrics stage: judgment records in, the paper's rates and their uncertainty out.

Modules, one job each: :mod:`.records` (validation, per-task counts), :mod:`.rates` (TPR, TNR,
BA_norm, FPR_h with equal task weighting), :mod:`.diagnostics` (test-case-weighted pooled
diagnostics), :mod:`.concentration` (all-reject verifiers, Q_m), :mod:`.rounds` (median-round
selection), :mod:`.summary` (everything as one flat dict), :mod:`.bootstrap` (task-level CIs).

Public API::

    summarize(records, *, source=None) -> dict[str, float]
    select_median_round(records, *, source=None) -> RoundSelection
    bootstrap_ci(records, *, n_resamples=1000, level=0.95, seed=0, source=None)
        -> dict[str, Interval]
    paired_bootstrap(records_a, records_b, *, n_resamples=1000, level=0.95, seed=0,
                     source_a="records_a", source_b="records_b")
        -> dict[str, PairedDifference]
    load_judgments(path) -> list[dict]
    build_table(records, *, source=None) -> TaskTable
"""

from monitorbench.metrics.bootstrap import (Interval, PairedDifference, bootstrap_ci,
                                            paired_bootstrap)
from monitorbench.metrics.records import TaskTable, build_table, load_judgments
from monitorbench.metrics.rounds import RoundSelection, select_median_round
from monitorbench.metrics.summary import summarize

__all__ = [
    "Interval", "PairedDifference", "RoundSelection", "TaskTable", "bootstrap_ci",
    "build_table", "load_judgments", "paired_bootstrap", "select_median_round", "summarize",
]
