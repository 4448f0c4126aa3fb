"""The one ranking of configurations: on the common task pool, ties sharing a rank.

The sweep's console table, ``leaderboard.md``, the MLflow parent's table and the report all
rank through :func:`rank_on_pool`. Before, the first three ranked each row on its own task pool
(an access setting that sets tasks aside was compared over fewer, easier tasks) while the report
ranked on the common pool, so the orders differed; and two equal rows got ranks 1 and 2 with
"+0.0" between them. A rate is compared only over the tasks every ranked configuration scored;
a row that scored more is flagged ``†`` (:data:`MORE_THAN_POOL`). Values equal at the shown
precision (one decimal, percent) share a rank, numbered as in sports ("1, 1, 3"); rows equal to
full precision are listed in the order of their run names (``tiebreak``), so the console and the
report list a tie the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

MORE_THAN_POOL = "†"
SHOWN_DECIMALS = 1


@dataclass(frozen=True)
class Ranked:
    """One configuration's place: ``value`` is its rate on the common pool (None: undefined
    there, unranked and listed last); ``tasks`` its own scored task count."""

    name: str
    rank: int | None
    value: float | None
    tasks: int
    more_than_pool: bool

    @property
    def tasks_cell(self) -> str:
        """``115`` or ``141 †`` (scored more than the pool; rates here are on the pool)."""
        return f"{self.tasks} {MORE_THAN_POOL}" if self.more_than_pool else str(self.tasks)


def common_pool(scored: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The tasks every configuration that scored any task scored."""
    pools = [tasks for tasks in scored.values() if tasks]
    return frozenset.intersection(*pools) if pools else frozenset()


def rank_on_pool(scored: Mapping[str, frozenset[str]],
                 value_on: Callable[[str, frozenset[str]], float | None],
                 tiebreak: Mapping[str, str] | None = None) -> list[Ranked]:
    """Rank configurations (name -> tasks it scored) by ``value_on(name, pool)``, their rate on
    the common pool, best first; ties at the shown precision share a rank. Equal values are
    ordered by ``tiebreak[name]`` (each row's MLflow run name), else by name."""
    pool = common_pool(scored)
    values = {name: (value_on(name, pool) if pool and tasks else None)
              for name, tasks in scored.items()}
    order = sorted(scored, key=lambda n: (values[n] is None, -(values[n] or 0.0),
                                          (tiebreak or {}).get(n, n)))
    out: list[Ranked] = []
    for i, name in enumerate(order):
        value = values[name]
        rank = None
        if value is not None:
            prev = out[-1] if out else None
            tied = (prev is not None and prev.value is not None
                    and round(prev.value, SHOWN_DECIMALS) == round(value, SHOWN_DECIMALS))
            rank = prev.rank if tied and prev is not None else i + 1
        out.append(Ranked(name, rank, value, len(scored[name]),
                          bool(pool) and len(scored[name]) > len(pool)))
    return out
