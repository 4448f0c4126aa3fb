"""Mutants of the tiny reference: each drops one of its three checks (C6 must detect all)."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from monitorbench.audit.mutation import Operator, by_candidate
from monitorbench.suites.format import Case, Reference, Task

from tiny_source import reference as ref

_CHECKS: dict[str, Callable[[Mapping[str, Any], list[dict[str, Any]]], bool]] = {
    "raw": lambda c, answer: ref.raw_matches(c),
    "names": ref.names_match,
    "values": ref.values_match,
}


class TinyMutants:
    """One operator per check; a mutant runs the other two checks only."""

    operators = tuple(Operator(f"skip_{name}_check", name) for name in _CHECKS)

    def decide(self, op: Operator, task: Task, reference: Reference,
               cases: Sequence[Case]) -> list[str]:
        answer = reference.data["answer"]
        kept = [check for name, check in _CHECKS.items() if name != op.modifies]
        return by_candidate(lambda c: "PASS" if all(k(c, answer) for k in kept) else "FAIL",
                            cases)


MUTANTS = TinyMutants()
