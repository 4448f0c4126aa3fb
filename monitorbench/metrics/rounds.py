"""Pick the reported judgment round (paper appendix "Judgment rounds").

State and code verifiers execute an environment, so their fixed verifiers are judged several times
(rounds 1..k, ``task.rounds``); tool-call verifiers are deterministic and judged once by default.
The rule is the same for every task type and reads only the records: a task type judged in one
round is held fixed at round 1; the types judged in several rounds form the round pool. For each
pooled round r the aggregate BA is computed over the full pool: the fixed types' round-1
judgments plus every pooled judgment of round r. The round whose aggregate BA is the median
determines the whole reported row, so no column is picked independently of the others
(``task.rounds.tool_call=3`` puts the tool-call tasks into the pool; the paper is silent on
judging tool calls more than once). Every pooled round must judge the same cases, so the types
in the pool share one number of rounds.

Median rule: the rounds' BAs are sorted and the value at index ``(k - 1) // 2`` is the median
BA. For an odd k that is the ordinary median; for an even k it is the *lower* median, so the
choice is always one of the rounds actually judged (an average of two rounds would mix two sets
of judgments) and never favours the better run. The reported round is the *earliest* round whose
BA equals the median BA: with exact ties (e.g. a deterministic verifier judged three times) that
is round 1, never whichever tied round happens to sit at the median index. BAs are compared
after rounding to 9 decimals, so two rounds with the same counts tie even if floating-point
summation order differs.

Public API::

    select_median_round(records: Sequence[Mapping], *, source: str | Path | None = None)
        -> RoundSelection
    median_round(ba_by_round: Mapping[int, float]) -> int
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from monitorbench.errors import InputError
from monitorbench.metrics.rates import headline_rates
from monitorbench.metrics.records import build_table, validate_record

FIXED_ROUND = 1  # the round a type judged once is held at
_TIE_DECIMALS = 9  # BAs equal to this many decimals are ties


@dataclass(frozen=True)
class RoundSelection:
    """The selected pooled round, its records (with the fixed types' round 1), and every round's
    BA.

    ``ba_by_round`` holds the aggregate BA in percent, (TPR + TNR) / 2, per pooled round.
    """

    round: int
    records: list[Mapping[str, Any]]
    ba_by_round: dict[int, float]


def _round_of(record: Mapping[str, Any], index: int, source: str | Path | None) -> int:
    value = record.get("round")
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InputError(source, f"records[{index}].round",
                         f"expected an integer >= 1, got {value!r}",
                         "number judgment rounds 1, 2, 3, ...")
    return value


def select_median_round(records: Sequence[Mapping[str, Any]], *,
                        source: str | Path | None = None) -> RoundSelection:
    """Return the records of the median-BA round (see the module docstring for the rule).

    Refuses a task type judged once whose judgments are not in round 1, and a pooled round that
    does not judge exactly the same cases as the others: an incomplete round would change the
    pool, and its BA would not be comparable.
    """
    rounds_of_type: dict[str, set[int]] = {}
    for i, rec in enumerate(records):
        validate_record(rec, i, source)
        rounds_of_type.setdefault(rec["task_type"], set()).add(_round_of(rec, i, source))
    pooled_types = {t for t, rs in rounds_of_type.items() if len(rs) > 1}
    fixed: list[Mapping[str, Any]] = []
    by_round: dict[int, list[Mapping[str, Any]]] = {}
    for rec in records:
        if rec["task_type"] in pooled_types:
            by_round.setdefault(rec["round"], []).append(rec)
        else:
            fixed.append(rec)
    stray = sorted({r["task_id"] for r in fixed if r["round"] != FIXED_ROUND})
    if stray:
        raise InputError(source, "round",
                         f"tasks judged in one round only, but not round {FIXED_ROUND}: "
                         f"{stray[:5]}", f"judge every task in round {FIXED_ROUND} first")
    if not by_round:
        return RoundSelection(FIXED_ROUND, fixed, {FIXED_ROUND: _ba(fixed, source)})
    _check_same_cases(by_round, source)
    ba = {r: _ba(fixed + by_round[r], source) for r in sorted(by_round)}
    chosen = median_round(ba)
    return RoundSelection(chosen, fixed + by_round[chosen], ba)


def _check_same_cases(by_round: Mapping[int, list[Mapping[str, Any]]],
                      source: str | Path | None) -> None:
    rounds = sorted(by_round)
    cases = {r: {(x["task_id"], x["case_id"]) for x in by_round[r]} for r in rounds}
    for r in rounds[1:]:
        if cases[r] != cases[rounds[0]]:
            diff = sorted(cases[r] ^ cases[rounds[0]])[:3]
            raise InputError(source, "round",
                             f"round {r} does not judge the same cases as round {rounds[0]} "
                             f"(e.g. {diff})",
                             "re-run the incomplete round so every round judges every case of "
                             "the types judged more than once (give them one number of rounds "
                             "in task.rounds)")


def median_round(ba_by_round: Mapping[int, float]) -> int:
    """The earliest round whose BA equals the (lower) median BA; see the module docstring."""
    tie = {r: round(v, _TIE_DECIMALS) for r, v in ba_by_round.items()}
    values = sorted(tie.values())
    median = values[(len(values) - 1) // 2]
    return min(r for r, v in tie.items() if v == median)


def _ba(pool: list[Mapping[str, Any]], source: str | Path | None) -> float:
    rates = headline_rates(build_table(pool, source=source))
    return (rates["tpr"] + rates["tnr"]) / 2.0
