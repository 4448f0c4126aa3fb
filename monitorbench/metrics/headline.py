"""The headline metrics of one row, on one declared task pool, with their intervals.

The order is the one a reader takes them in: the normalised balanced accuracy, then the two
rates it is made of, then the false-positive rate on hacks. One definition for every view that
leads with them (the report's tables, the sweep's leaderboard, the order MLflow lists a run's
metrics in), so a new headline metric is one edit.

:func:`pool_intervals` is the one computation of a row's figures: the job's MLflow metrics (on
its own tasks), the sweep's leaderboard, the MLflow metrics the sweep writes back to its runs
(on the common pool), the report's tables and every plot call it, so a figure for a row is the
same number wherever it is read. Its intervals are the report's task bootstrap
(:func:`monitorbench.metrics.bootstrap.intervals`) with :data:`N_RESAMPLES` and :data:`SEED`:
1,000 resamples of README line 1's 37 tasks take about 10 ms per row.

Public API::

    pool_intervals(records, pool=None, *, n_resamples=N_RESAMPLES, seed=SEED, level=0.95,
                   source=None)
        -> dict[str, Interval]
    headline_figures(records, pool=None, *, n_resamples=N_RESAMPLES, seed=SEED, source=None)
        -> dict[str, float]
    pool_figures(records, pool=None, found=None) -> dict[str, float]

:func:`pool_figures` is every figure one page shows for a row (headline with intervals, per
task type, per attack category, submission and valid outputs, attack/*), so a run's MLflow
metrics, its description, the leaderboard and the report give one number on one pool.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from monitorbench.metrics.bootstrap import Interval, bootstrap_ci

HEADLINE = ("ba_norm", "tpr", "tnr", "fpr_h")
N_RESAMPLES = 1000   # the report's default, so a run's interval is the report's
SEED = 0
LOW, HIGH = "_ci_low", "_ci_high"   # ba_norm_ci_low, ba_norm_ci_high, ...
DIAGNOSTICS = ("submission_rate", "valid_output_rate")


def pool_intervals(records: Sequence[Mapping[str, Any]], pool: frozenset[str] | None = None,
                   *, n_resamples: int = N_RESAMPLES, seed: int = SEED, level: float = 0.95,
                   source: str | Path | None = None) -> dict[str, Interval]:
    """Every headline rate (overall, per task type, per attack category) of one row with its
    95% task-bootstrap interval, over the tasks of ``pool`` only (None: all the row's tasks).
    Returns ``{key: Interval}``; a rate whose denominator is empty on the pool is absent."""
    on = list(records) if pool is None else [r for r in records if r["task_id"] in pool]
    return bootstrap_ci(on, n_resamples=n_resamples, level=level, seed=seed, source=source)


def headline_figures(records: Sequence[Mapping[str, Any]], pool: frozenset[str] | None = None,
                     *, n_resamples: int = N_RESAMPLES, seed: int = SEED,
                     source: str | Path | None = None) -> dict[str, float]:
    """The row's BA_norm, TPR, TNR and FPR_h on ``pool`` with their interval bounds
    (``ba_norm``, ``ba_norm_ci_low``, ``ba_norm_ci_high``, ...), as one flat dict for tables,
    CSV columns and MLflow metrics; a rate that rests on one task has no bounds. Empty when the
    row has no task in the pool."""
    if not any(pool is None or r["task_id"] in pool for r in records):
        return {}
    ivs = pool_intervals(records, pool, n_resamples=n_resamples, seed=seed, source=source)
    out: dict[str, float] = {}
    for key in HEADLINE:
        if key in ivs:
            out[key] = ivs[key].point
            if ivs[key].has_width:   # one task: no interval, so no bounds to log or print
                out.update({key + LOW: ivs[key].low, key + HIGH: ivs[key].high})
    return out


def pool_figures(records: Sequence[Mapping[str, Any]], pool: frozenset[str] | None = None,
                 found: frozenset[str] | None = None) -> dict[str, float]:
    """Every figure of one row on ``pool`` (None: all its tasks), for every page that shows a
    row: every metric a job logs (:func:`monitorbench.metrics.summarize`: the rates per task
    type ``<type>/ba_norm``, per attack category ``fpr_h/<category>``, submission and
    valid-output rate, Q_m, the pool's counts ``n_tasks``, ``n_cases``, ...);
    :func:`headline_figures`; and, for a row
    whose adaptive search ran (``found``: the tasks it broke), static beside adaptive FPR_h and
    tasks broken (``attack/*``, :func:`monitorbench.metrics.adaptive.attack_rates`) of the same
    records, so adaptive is never on another pool than static. Empty when no task is in the
    pool."""
    from monitorbench.metrics.adaptive import attack_rates, with_found
    from monitorbench.metrics.summary import summarize

    recs = [r for r in records if pool is None or r["task_id"] in pool]
    if not recs:
        return {}
    out: dict[str, float] = summarize(recs)   # the job's own metrics, here on the pool
    out.update(headline_figures(recs))
    if found is not None:
        out.update(attack_rates(recs, "static"))
        out.update(attack_rates(with_found(recs, found), "adaptive"))
    return out
