"""Static and adaptive attack numbers, computed by one code path from judgment records.

Static and adaptive FPR_h are the paper's FPR_h (:func:`monitorbench.metrics.rates.headline`:
mean over tasks with attack cases of the share of attack cases accepted) applied to two record
sets: the static one (every case of the attacked tasks, judged once by the attack stage) and
the adaptive one (the same records plus one attack record per mutant the search found and the
verifier accepted). The task denominator is the same (tasks with attack cases: the search never
adds a task), and with no search the two sets are equal, so the numbers agree exactly.

"Tasks broken" and :func:`attack_rates` are defined once in
:mod:`monitorbench.metrics.adaptive` (below tracking, so a sweep's leaderboard and its runs'
metrics use them too) and re-exported here for the attack stage.

Public API::

    tasks_broken(table: TaskTable) -> dict[str, float]
    attack_rates(records: Sequence[Mapping], tag: str) -> dict[str, float]
"""

from __future__ import annotations

from monitorbench.metrics.adaptive import attack_rates, tasks_broken

__all__ = ["attack_rates", "tasks_broken"]
