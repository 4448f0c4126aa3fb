"""Mutants of the tiny state reference: one drops the state check, one the answer check."""

from __future__ import annotations

from typing import Sequence

from monitorbench.audit.mutation import Operator, by_candidate
from monitorbench.suites.format import Case, Reference, Task

from tiny_state import reference as ref

_CHECKS = {"state": ref.state_matches, "answer": ref.answer_matches}


class TinyStateMutants:
    """``skip_state_check`` always applies; ``skip_answer_check`` where facts are asked for."""

    operators = (Operator("skip_state_check", "state"),
                 Operator("skip_answer_check", "answer",
                          lambda task, reference: bool(reference.data["answer_facts"])))

    def decide(self, op: Operator, task: Task, reference: Reference,
               cases: Sequence[Case]) -> list[str]:
        kept = [check for name, check in _CHECKS.items() if name != op.modifies]
        return by_candidate(
            lambda c: "PASS" if all(k(c, reference.data) for k in kept) else "FAIL", cases)


MUTANTS = TinyStateMutants()
