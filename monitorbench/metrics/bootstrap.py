"""Uncertainty of the headline rates: percentile bootstrap over tasks.

Why tasks, not cases: the headline rates weight tasks equally and cases within a task are not
independent (one verifier judges all of them), so the unit of resampling is the task. Resampling
is stratified by task type (each type keeps its task count), because the suite fixes how many
tasks of each type there are; only which tasks is uncertain. A type with a single task has no
within-type variation to resample: stratified, it would add none, and a run with one task per
type would print its point as an interval (-66.7 [-66.7, -66.7] for tasks at 0, -100, -100).
So when any type holds fewer than two tasks, every task is resampled across types together
(unstratified). Likewise a rate the stratified draw leaves at zero width although its tasks'
values differ (every type constant inside, the types apart: two accepting tool-call tasks and two
rejecting code tasks) is resampled across types: the stratified draw would claim to know it
exactly. Zero width remains only where every task has the same value. A rate that rests on fewer than two tasks (the per-type rate of a type with one
task, an attack category seen in one task) has no interval at all: its bounds are NaN and it
prints as ``n/a (1 task)``, never as a point posing as an interval.

A resample is represented as a row of draw counts per task; every rate is then a weighted mean
computed by :func:`monitorbench.metrics.rates.headline` for all rows at once (numpy only, no
Python loop over resamples). The point estimate goes through the same function with weights 1.

A paired comparison draws one set of task resamples and applies it to both configurations, so the
task-to-task variation they share cancels in the difference. ``excludes_zero`` says whether the
CI of (a − b) lies entirely above or below 0.

A resample may draw no task of a small subset (an attack category present in one task): that
row is undefined for that metric and is left out of its percentiles; ``n_defined`` says how many
rows remained (a metric with no defined row at all is left out of the result).

Public API::

    resample_weights(task_types: Sequence[str], n_resamples: int, seed: int, *,
                     by_type: bool | None = None) -> np.ndarray
    alone_rates(table: TaskTable) -> dict[str, np.ndarray]
    percentile_bounds(values: np.ndarray, level: float) -> tuple[float, float, int] | None
    bootstrap_ci(records: Sequence[Mapping], *, n_resamples: int = 1000, level: float = 0.95,
                 seed: int = 0, source: str | Path | None = None) -> dict[str, Interval]
    intervals(table: TaskTable, *, n_resamples: int = 1000, level: float = 0.95, seed: int = 0)
        -> dict[str, Interval]
    paired_bootstrap(records_a: Sequence[Mapping], records_b: Sequence[Mapping], *,
                     n_resamples: int = 1000, level: float = 0.95, seed: int = 0,
                     source_a: str | Path | None = "records_a",
                     source_b: str | Path | None = "records_b") -> dict[str, PairedDifference]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from monitorbench.errors import InputError
from monitorbench.metrics.rates import headline
from monitorbench.metrics.records import TaskTable, build_table


# The method in one sentence, for every page that shows these intervals (report, README).
METHOD = ("95% percentile bootstrap over tasks, stratified by task type when every type holds "
          "two tasks or more, else (or where stratifying leaves a point while the tasks vary) "
          "across types; a rate resting on one task has no interval (n/a (1 task))")
NO_BOUND = float("nan")   # the bounds of a rate that rests on one task: it has no interval


@dataclass(frozen=True)
class Interval:
    """A point estimate with its percentile bootstrap interval at ``level``."""

    point: float
    low: float
    high: float
    level: float
    n_resamples: int
    n_defined: int
    n_tasks: int = 0   # tasks the rate rests on; under 2: no interval (low, high NaN)

    @property
    def has_width(self) -> bool:
        """Whether there is an interval to show (at least two tasks define the rate)."""
        return not (np.isnan(self.low) or np.isnan(self.high))


@dataclass(frozen=True)
class PairedDifference:
    """Difference a − b of one metric with its paired percentile bootstrap interval."""

    diff: float
    low: float
    high: float
    level: float
    excludes_zero: bool
    n_resamples: int
    n_defined: int
    n_tasks: int = 0   # tasks the rate rests on; under 2: no interval (low, high NaN)


def _check_settings(n_resamples: int, level: float) -> None:
    if not isinstance(n_resamples, int) or isinstance(n_resamples, bool) or n_resamples < 1:
        raise InputError(None, "n_resamples", f"expected a positive integer, got {n_resamples!r}",
                         "use e.g. 1000 resamples")
    if not isinstance(level, float) or not 0.0 < level < 1.0:
        raise InputError(None, "level", f"expected a float in (0, 1), got {level!r}",
                         "use e.g. 0.95 for a 95% interval")


def stratified(task_types: Sequence[str]) -> bool:
    """Whether tasks are resampled within their type: only when every type holds two tasks or
    more (a single task's type would add no variance; see the module docstring)."""
    counts = [list(task_types).count(t) for t in set(task_types)]
    return bool(counts) and min(counts) >= 2


def resample_weights(task_types: Sequence[str], n_resamples: int, seed: int, *,
                     by_type: bool | None = None) -> np.ndarray:
    """Draw counts, shape (n_resamples, n_tasks): tasks resampled with replacement within each
    type, or across all types together when a type holds fewer than two tasks (``by_type``
    None: :func:`stratified` decides; False: across types whatever the counts)."""
    rng = np.random.default_rng(seed)
    types = np.asarray(task_types)
    if by_type is None:
        by_type = stratified(task_types)
    strata = sorted(set(task_types)) if by_type else [None]
    weights = np.zeros((n_resamples, len(types)))
    for ttype in strata:
        idx = np.flatnonzero(types == ttype) if ttype is not None else np.arange(len(types))
        n = len(idx)
        draws = rng.integers(0, n, size=(n_resamples, n))
        flat = (np.arange(n_resamples)[:, None] * n + draws).ravel()
        weights[:, idx] = np.bincount(flat, minlength=n_resamples * n).reshape(n_resamples, n)
    return weights


Rates = Callable[[np.ndarray], dict[str, np.ndarray]]


def _differ(values: np.ndarray) -> bool:
    """Whether the defined values are not all the same."""
    ok = values[~np.isnan(values)]
    return ok.size > 1 and bool(np.ptp(ok) > 0)


def _spread(rates: Rates, alone: Mapping[str, np.ndarray], task_types: Sequence[str], *,
           n_resamples: int, level: float, seed: int) -> dict[str, tuple[float, float, int]]:
    """Percentile bounds and defined rows of every rate ``rates`` computes for a weights array:
    from :func:`resample_weights`' draw, or, for a rate that draw leaves at zero width although
    its tasks differ (``alone``: each task's value by itself), from a draw across types."""
    boot = rates(resample_weights(task_types, n_resamples, seed))
    across: dict[str, np.ndarray] | None = None
    out: dict[str, tuple[float, float, int]] = {}
    for key, values in boot.items():
        bounds = percentile_bounds(values, level)
        if bounds is not None and bounds[0] == bounds[1] and _differ(alone[key]) \
                and stratified(task_types):
            if across is None:
                across = rates(resample_weights(task_types, n_resamples, seed, by_type=False))
            bounds = percentile_bounds(across[key], level)
        if bounds is not None:
            out[key] = bounds
    return out


def alone_rates(table: TaskTable) -> dict[str, np.ndarray]:
    """Each rate of each task by itself (NaN where the task does not define it)."""
    return headline(table, np.eye(table.n_tasks))


def percentile_bounds(values: np.ndarray, level: float) -> tuple[float, float, int] | None:
    """Equal-tailed percentile bounds over the defined rows; None if no row is defined."""
    ok = values[~np.isnan(values)]
    if ok.size == 0:
        return None
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(ok, [alpha, 1.0 - alpha])
    return float(low), float(high), int(ok.size)


def bootstrap_ci(records: Sequence[Mapping[str, Any]], *, n_resamples: int = 1000,
                 level: float = 0.95, seed: int = 0,
                 source: str | Path | None = None) -> dict[str, Interval]:
    """Percentile CI for every headline rate (overall, per task type, per attack category)."""
    table = build_table(records, source=source)
    return intervals(table, n_resamples=n_resamples, level=level, seed=seed)


def intervals(table: TaskTable, *, n_resamples: int = 1000, level: float = 0.95,
              seed: int = 0) -> dict[str, Interval]:
    """:func:`bootstrap_ci` on an already built table."""
    _check_settings(n_resamples, level)
    point = headline(table)
    alone = alone_rates(table)
    bounds = _spread(lambda w: headline(table, w), alone, table.task_types,
                    n_resamples=n_resamples, level=level, seed=seed)
    out: dict[str, Interval] = {}
    for key, (low, high, n_def) in bounds.items():
        n_tasks = int((~np.isnan(alone[key])).sum())
        if n_tasks < 2:
            low = high = NO_BOUND
        out[key] = Interval(float(point[key][0]), low, high, level, n_resamples, n_def, n_tasks)
    return out


def paired_bootstrap(records_a: Sequence[Mapping[str, Any]],
                     records_b: Sequence[Mapping[str, Any]], *, n_resamples: int = 1000,
                     level: float = 0.95, seed: int = 0,
                     source_a: str | Path | None = "records_a",
                     source_b: str | Path | None = "records_b") -> dict[str, PairedDifference]:
    """CI of a − b for every headline rate both configurations define, on the same tasks.

    Both record sets must come from the same suite and cover the same task ids; otherwise the
    pairing (and the difference) would be meaningless. ``source_a``/``source_b`` name the
    records' files in error messages.
    """
    _check_settings(n_resamples, level)
    a = build_table(records_a, source=source_a)
    b = build_table(records_b, source=source_b)
    if a.suite_hash != b.suite_hash:
        raise InputError(source_b, "suite_hash",
                         f"{b.suite_hash[:12]} differs from records_a's {a.suite_hash[:12]}",
                         "compare configurations judged on the same suite")
    if a.task_ids != b.task_ids:
        only = sorted(set(a.task_ids) ^ set(b.task_ids))[:5]
        raise InputError(source_b, "task_id",
                         f"the two configurations cover different tasks (e.g. {only})",
                         "score both on every task of the suite; a missing verifier stays in "
                         "as outcome U")
    point_a, point_b = headline(a), headline(b)
    alone_a, alone_b = alone_rates(a), alone_rates(b)
    keys = sorted(set(point_a) & set(point_b))

    def diffs(w: np.ndarray) -> dict[str, np.ndarray]:
        boot_a, boot_b = headline(a, w), headline(b, w)
        return {k: boot_a[k] - boot_b[k] for k in keys}

    bounds = _spread(diffs, {k: alone_a[k] - alone_b[k] for k in keys}, a.task_types,
                    n_resamples=n_resamples, level=level, seed=seed)
    out: dict[str, PairedDifference] = {}
    for key, (low, high, n_def) in sorted(bounds.items()):
        n = min(int((~np.isnan(alone_a[key])).sum()), int((~np.isnan(alone_b[key])).sum()))
        if n < 2:
            low = high = NO_BOUND
        out[key] = PairedDifference(float(point_a[key][0] - point_b[key][0]), low, high, level,
                                    low > 0.0 or high < 0.0, n_resamples, n_def, n)
    return out
