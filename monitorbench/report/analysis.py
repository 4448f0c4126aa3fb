"""Uncertainty for a report: task-bootstrap CIs per configuration and paired CIs between two.

Both wrap :mod:`monitorbench.metrics.bootstrap` and cache per configuration (pair), because the
tables ask for the same intervals several times (leaderboard, per-type ranking, delta tables).
Two configurations can only be paired on tasks both scored: an access setting may set aside
tasks whose cases become indistinguishable, so pairs are restricted to the common tasks and the
tables say how many tasks (per task type, too) a delta rests on. For the same reason a ranking
asks for intervals on a given task pool (``ci(c, tasks)``): rates of configurations scored on
different pools are not ranked against each other.

Public API::

    Analysis(configs, *, n_resamples=1000, level=0.95, seed=0)
    Analysis.scored(config) -> frozenset[str]
    Analysis.ci(config, tasks=None) -> dict[str, Interval]
    Analysis.summary(config) -> dict[str, float]
    Analysis.paired(a, b, tasks=None) -> Pairing
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from monitorbench.metrics import (Interval, PairedDifference, build_table, paired_bootstrap,
                                  summarize)
from monitorbench.metrics.headline import pool_intervals
from monitorbench.report.source import Configuration


@dataclass(frozen=True)
class Pairing:
    """a − b for every metric both define, on ``n_common`` tasks scored by both."""

    diffs: dict[str, PairedDifference]
    n_common: int
    n_by_type: dict[str, int] = field(default_factory=dict)


class Analysis:
    """Point estimates and intervals for the configurations of one sweep."""

    def __init__(self, configs: Sequence[Configuration], *, n_resamples: int = 1000,
                 level: float = 0.95, seed: int = 0) -> None:
        self.configs = list(configs)
        self.n_resamples, self.level, self.seed = n_resamples, level, seed
        self._scored: dict[str, frozenset[str]] = {}
        self._ci: dict[tuple[str, frozenset[str] | None], dict[str, Interval]] = {}
        self._summary: dict[str, dict[str, float]] = {}
        self._pairs: dict[tuple[str, str, frozenset[str]], Pairing] = {}

    def scored(self, c: Configuration) -> frozenset[str]:
        """Tasks the configuration scores (build_table drops a task that infrastructure
        failures left without a positive or a negative case)."""
        if c.run_id not in self._scored:
            self._scored[c.run_id] = frozenset(build_table(c.records, source=c.label).task_ids)
        return self._scored[c.run_id]

    def ci(self, c: Configuration, tasks: frozenset[str] | None = None
           ) -> dict[str, Interval]:
        """Intervals over all the configuration's tasks, or over ``tasks`` only: the one
        computation of a row's figures (:func:`monitorbench.metrics.headline.pool_intervals`)
        that the sweep's leaderboard, the runs' MLflow metrics and the plots use too."""
        key = (c.run_id, self._pool(c, tasks))
        if key not in self._ci:
            self._ci[key] = pool_intervals(c.records, key[1], n_resamples=self.n_resamples,
                                           level=self.level, seed=self.seed, source=c.label)
        return self._ci[key]

    def summary(self, c: Configuration) -> dict[str, float]:
        if c.run_id not in self._summary:
            self._summary[c.run_id] = summarize(c.records, source=c.label)
        return self._summary[c.run_id]

    def paired(self, a: Configuration, b: Configuration,
               tasks: frozenset[str] | None = None) -> Pairing:
        """a − b on the tasks both scored (within ``tasks`` when given)."""
        common = self.scored(a) & self.scored(b)
        if tasks is not None:
            common &= tasks
        key = (a.run_id, b.run_id, common)
        if key not in self._pairs:
            if not common:
                self._pairs[key] = Pairing({}, 0)
            else:
                diffs = paired_bootstrap(
                    _on(a.records, common), _on(b.records, common),
                    n_resamples=self.n_resamples, level=self.level, seed=self.seed,
                    source_a=a.label, source_b=b.label)
                types = {r["task_id"]: r["task_type"] for r in a.records
                         if r["task_id"] in common}
                by_type = {t: sum(1 for v in types.values() if v == t)
                           for t in sorted(set(types.values()))}
                self._pairs[key] = Pairing(diffs, len(common), by_type)
        return self._pairs[key]

    def _pool(self, c: Configuration, tasks: frozenset[str] | None) -> frozenset[str] | None:
        """None (all tasks) when ``tasks`` covers every task the configuration scored."""
        return None if tasks is None or self.scored(c) <= tasks else tasks & self.scored(c)


def _on(records: Sequence[dict[str, Any]], tasks: frozenset[str] | None
        ) -> list[dict[str, Any]]:
    return list(records) if tasks is None else [r for r in records if r["task_id"] in tasks]
