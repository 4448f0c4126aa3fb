"""Score stage: the reported judgment round and the paper's metrics of one set of judgments."""

from __future__ import annotations

from typing import Any, Sequence

from monitorbench.judging.records import Judgment
from monitorbench.metrics.headline import headline_figures
from monitorbench.metrics.rounds import select_median_round
from monitorbench.metrics.summary import summarize


def score(judgments: Sequence[Judgment], *, several_rounds: bool, source: str | None = None
          ) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """The records of the reported round as plain dicts, and their metrics. With
    ``several_rounds`` (a task type judged more than once) the reported round is the median-BA
    round (paper App. E), else the records are the judgments as they are. The metrics carry the
    headline rates' intervals (``ba_norm_ci_low``, ``ba_norm_ci_high``, ...) on the job's own
    tasks."""
    records: list[dict[str, Any]] = [j.to_dict() for j in judgments]
    if several_rounds:
        records = [dict(r) for r in select_median_round(records, source=source).records]
    metrics = dict(summarize(records, source=source))
    # the headline rates' task-bootstrap intervals, as the sweep's leaderboard and the report
    # compute them (one function, one seed and repeat count)
    metrics.update({k: v for k, v in headline_figures(records, source=source).items()
                    if k not in metrics})
    return records, metrics
