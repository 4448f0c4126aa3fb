"""Mutants of the τ² reference (``tau2.db_actions``) for the audit's C6: each drops one of the
reference's checks (:data:`monitorbench.sources.tau2.judge.CHECKS`).

* ``ignore_database``: the replayed database is no longer compared with the expected one;
* ``ignore_reply``: the communicated-info and reply checks are skipped (only the calls count);
* ``ignore_required_actions``: the required-action check is skipped. It applies only where the
  gold has a required action the database does not show (a hand-over to a human, a banking
  discoverable tool that only records its call): every other one changes the database, which
  the database check already sees, so there the mutant is equivalent.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from monitorbench.audit.mutation import Operator, by_candidate
from monitorbench.sources.tau2 import judge
from monitorbench.sources.tau2.build import candidate_parts, reference_data
from monitorbench.suites.format import Case, Reference, Task

_IGNORES = {"ignore_database": frozenset({"db"}),
            "ignore_reply": frozenset({"info", "message"}),
            "ignore_required_actions": frozenset({"actions"})}


def _hands_over(task: Task, reference: Reference) -> bool:
    return judge.has_unseen_action(reference.data["domain"], reference.data["task_id"])


class Tau2Mutants:
    operators = (
        Operator("ignore_database", "database match against the expected database"),
        Operator("ignore_reply", "communicated info and reply facts"),
        Operator("ignore_required_actions", "required actions", applies=_hands_over),
    )

    def decide(self, op: Operator, task: Task, reference: Reference,
               cases: Sequence[Case]) -> list[str]:
        data = reference_data(reference, f"hidden/{task.task_id}/reference.json")

        def one(candidate: Mapping[str, Any]) -> str:
            calls, message = candidate_parts(candidate, f"hidden/{task.task_id}/cases.jsonl")
            return judge.decide(data, calls, message, ignore=_IGNORES[op.name])

        return by_candidate(one, cases)


MUTANTS = Tau2Mutants()
