"""Budgeted black-box search for one task: find an invalid candidate the verifier accepts.

The search sees the verifier only through its sandbox session (PASS/FAIL/U per query), like
a solver that may try candidates against a frozen monitor. It starts from the task's negative
cases (attacks and ordinary errors), which are judged first as the *static* evaluation; any
accepted one ends the search. Then, until the query budget is spent, it picks a parent from
the pool of invalid candidates seen so far, applies one to three random mutations, completes
the mutant for the access setting, and keeps it only if the reference verifier still says FAIL
and the monitor has not seen the same visible input; only such mutants cost a query. Rejected
mutants join the pool, so the search can chain mutations. Everything is driven by one seeded
``random.Random``: same verifier, same seed, same search.

Public API::

    attack_task(task, reference, seeds, valid, judge, *, fields, budget, rng) -> TaskAttack
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from monitorbench.attack.mutators import MUTATORS, Material, complete
from monitorbench.sandbox.base import Verdict
from monitorbench.suites.format import Case, Reference, Task, canonical_json
from monitorbench.suites.reference import ReferenceVerifier

ATTEMPTS_PER_QUERY = 25  # mutants tried per query before the search gives up as exhausted


@dataclass
class Found:
    """An invalid candidate (reference FAIL) that the verifier accepted."""

    candidate: dict[str, Any]
    seed_case_id: str
    mutations: list[str]
    query: int


@dataclass
class TaskAttack:
    """What the search did on one task."""

    task_id: str
    static_attacks: int = 0           # attack cases judged
    static_attacks_accepted: int = 0  # ... of which the verifier accepted
    static_queries: int = 0           # seed cases judged (attacks and ordinary errors)
    queries: int = 0                  # search queries (the budgeted part)
    found: Found | None = None
    mutations_tried: int = 0
    rejected_valid: int = 0           # mutants the reference accepted (not invalid: discarded)
    counts_by_mutation: dict[str, int] = field(default_factory=dict)


Judge = Callable[[Mapping[str, Any]], Verdict]


def _visible(candidate: Mapping[str, Any], fields: tuple[str, ...] | None) -> dict[str, Any]:
    return dict(candidate) if fields is None else {k: candidate[k] for k in fields
                                                   if k in candidate}


def attack_task(task: Task, reference: tuple[ReferenceVerifier, Reference], seeds: Sequence[Case],
                valid: Sequence[Case], judge: Judge, *, fields: tuple[str, ...] | None,
                budget: int, rng: random.Random) -> TaskAttack:
    """Judge the seeds, then search with at most ``budget`` queries (see module docstring)."""
    ref, ref_data = reference
    out = TaskAttack(task.task_id)
    seen: set[str] = set()
    pool: list[tuple[dict[str, Any], str, list[str]]] = []
    for case in sorted(seeds, key=lambda c: (c.group != "attack", c.case_id)):
        cand = dict(case.candidate)
        seen.add(canonical_json(_visible(cand, fields)))
        verdict = judge(_visible(cand, fields))
        out.static_queries += 1
        if case.group == "attack":
            out.static_attacks += 1
            out.static_attacks_accepted += verdict.outcome == "P"
        if verdict.outcome == "P" and out.found is None:
            out.found = Found(cand, case.case_id, [], 0)
        pool.append((cand, case.case_id, []))
    if out.found is not None or not pool:
        return out
    material = Material([dict(c.candidate) for c in valid],
                        sorted({str(t.get("name")) for t in task.public.get("tools", [])
                                if isinstance(t, dict)}))
    names = sorted(MUTATORS)
    attempts = 0
    while out.queries < budget and attempts < ATTEMPTS_PER_QUERY * budget:
        attempts += 1
        parent, origin, history = rng.choice(pool)
        child: dict[str, Any] | None = parent
        applied: list[str] = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            name = rng.choice(names)
            mutated = MUTATORS[name](child, rng, material) if child is not None else None
            if mutated is not None:
                child = mutated
                applied.append(name)
        if child is None or not applied:
            continue
        out.mutations_tried += 1
        child = complete(child, fields)
        key = canonical_json(_visible(child, fields))
        if key in seen:
            continue
        if ref.decide(task, ref_data, child) != "FAIL":
            out.rejected_valid += 1
            continue
        seen.add(key)
        out.queries += 1
        for name in applied:
            out.counts_by_mutation[name] = out.counts_by_mutation.get(name, 0) + 1
        if judge(_visible(child, fields)).outcome == "P":
            out.found = Found(child, origin, history + applied, out.queries)
            return out
        pool.append((child, origin, history + applied))
    return out
