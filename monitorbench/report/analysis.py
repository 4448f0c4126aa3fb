"""Uncertainty for a report: task-bootstrap CIs per configuration and paired CIs between two.

Both wrap :mod:`monitorbench.metrics.bootstrap` and cache per configuration (pair), because the
tables ask for the same intervals several times (leaderboard, per-type ranking, delta tables).
Two configurations can only be paired on tasks both scored: an access setting may set aside
tasks whose cases become indistinguishable, so pairs are restricted to the common tasks and the
tables say how many tasks a delta rests on.

Public API::

    Analysis(configs, *, n_resamples=1000, level=0.95, seed=0)
    Analysis.ci(config) -> dict[str, Interval]
    Analysis.summary(config) -> dict[str, float]
    Analysis.paired(a, b) -> Pairing
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from monitorbench.metrics import (Interval, PairedDifference, bootstrap_ci, build_table,
                                  paired_bootstrap, summarize)
from monitorbench.report.source import Configuration


@dataclass(frozen=True)
class Pairing:
    """a − b for every metric both define, on ``n_common`` tasks scored by both."""

    diffs: dict[str, PairedDifference]
    n_common: int


class Analysis:
    """Point estimates and intervals for the configurations of one sweep."""

    def __init__(self, configs: Sequence[Configuration], *, n_resamples: int = 1000,
                 level: float = 0.95, seed: int = 0) -> None:
        self.configs = list(configs)
        self.n_resamples, self.level, self.seed = n_resamples, level, seed
        self._ci: dict[str, dict[str, Interval]] = {}
        self._summary: dict[str, dict[str, float]] = {}
        self._pairs: dict[tuple[str, str], Pairing] = {}

    def ci(self, c: Configuration) -> dict[str, Interval]:
        if c.run_id not in self._ci:
            self._ci[c.run_id] = bootstrap_ci(c.records, n_resamples=self.n_resamples,
                                              level=self.level, seed=self.seed, source=c.label)
        return self._ci[c.run_id]

    def summary(self, c: Configuration) -> dict[str, float]:
        if c.run_id not in self._summary:
            self._summary[c.run_id] = summarize(c.records, source=c.label)
        return self._summary[c.run_id]

    def paired(self, a: Configuration, b: Configuration) -> Pairing:
        key = (a.run_id, b.run_id)
        if key not in self._pairs:
            # tasks each configuration scores (build_table drops a task that infrastructure
            # failures left without a positive or a negative case)
            common = (set(build_table(a.records, source=a.label).task_ids)
                      & set(build_table(b.records, source=b.label).task_ids))
            if not common:
                self._pairs[key] = Pairing({}, 0)
            else:
                diffs = paired_bootstrap(
                    [r for r in a.records if r["task_id"] in common],
                    [r for r in b.records if r["task_id"] in common],
                    n_resamples=self.n_resamples, level=self.level, seed=self.seed,
                    source_a=a.label, source_b=b.label)
                self._pairs[key] = Pairing(diffs, len(common))
        return self._pairs[key]
