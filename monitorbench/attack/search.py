"""Budgeted black-box search for one task: find an invalid candidate the verifier accepts.

The search sees the verifier only through its sandbox session (PASS/FAIL/U per query), like a
solver that may try candidates against a frozen monitor. First every case of the task is judged
once (the *static* evaluation, one judgment record per case). When no attack case was accepted
and the budget allows, the search picks a parent from a pool that starts with the task's valid
cases and its negative cases (attacks and ordinary errors), applies one to three random
mutations of the toolkit its source owns, tracks what their declared effects make of the parent's
validity (:mod:`monitorbench.attack.validity`), and completes the mutant for the access
setting. A mutant costs a query only if its construction makes it invalid, the monitor has not
seen the same visible input, and the reference verifier says FAIL. A rejected mutant joins the
pool (so mutations chain), as does a presentation variant of a valid case (as a valid parent);
the first accepted mutant ends the search. Everything is driven by one seeded
``random.Random``: same verifier, same seed, same search. A task whose source has no attack
operators (no toolkit) is judged and not searched, and says so (``TaskAttack.operators``).

Public API::

    attack_task(task, reference, cases, judge, kit, *, fields, budget, rng, suite_hash)
        -> TaskAttack
    case_record(task, case, outcome, suite_hash, reason="") -> dict
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from monitorbench.attack.validity import INVALID, UNKNOWN, VALID, status_after
from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.sandbox.base import Verdict
from monitorbench.suites.access import project_fields
from monitorbench.suites.attack_kit import Toolkit
from monitorbench.suites.format import Case, Reference, Task
from monitorbench.suites.reference import ReferenceVerifier

ATTEMPTS_PER_QUERY = 25  # mutants tried per query before the search gives up as exhausted
# Reference decisions, memoised across jobs of one process: the code grader runs a test suite
# (seconds) and a sweep's jobs ask it about the same mutants (same task, seed and pool).
_DECISIONS: OrderedDict[str, str] = OrderedDict()
_DECISIONS_MAX = 20_000
_MEMO_LOCK = threading.Lock()
# Tasks are attacked on several threads. A reference that does not declare ``parallel_decisions``
# (an in-process checker nobody has shown safe to run concurrently: BFCL's AST checker,
# AgentDojo's utility functions) decides under this lock, one decision at a time; the code grader
# (a subprocess per decision) runs in parallel. The mutators' own replays run on every thread:
# tests/test_attack.py checks that they query the same mutants as a one-thread search.
_SERIAL = threading.Lock()


@dataclass
class Found:
    """An invalid mutant (by construction and reference FAIL) that the verifier accepted."""

    candidate: dict[str, Any]
    seed_case_id: str
    mutations: list[str]
    query: int


@dataclass
class TaskAttack:
    """What the evaluation and the search did on one task."""

    task_id: str
    task_type: str
    judgments: list[dict[str, Any]] = field(default_factory=list)  # static: one per case
    mutants: list[dict[str, Any]] = field(default_factory=list)    # every queried mutant
    found: Found | None = None
    queries: int = 0
    mutations_tried: int = 0
    not_invalid: int = 0           # mutants whose construction does not make them invalid
    refuted_by_reference: int = 0  # declared invalid, but the reference said PASS
    counts_by_mutation: dict[str, int] = field(default_factory=dict)
    operators: bool = True         # False: its source has no attack operators, so no search
    unsearched_rejecting_all: bool = False  # accepted none of its cases: not searched

    @property
    def broken_static(self) -> bool:
        return any(r["group"] == "attack" and r["outcome"] == "P" for r in self.judgments)

    @property
    def accepted_nothing(self) -> bool:
        """The verifier accepted none of the task's cases, valid ones included."""
        return not any(r["outcome"] == "P" for r in self.judgments)


Judge = Callable[[Mapping[str, Any]], Verdict]
Entry = tuple[dict[str, Any], str, list[str], str, bool]  # cand, origin, history, status, terminal


def case_record(task: Task, case: Case, outcome: str, suite_hash: str, reason: str = ""
                ) -> dict[str, Any]:
    """A judgment record in the judging stage's format (what :mod:`monitorbench.metrics` reads)."""
    return {"task_id": task.task_id, "task_type": task.task_type, "case_id": case.case_id,
            "group": case.group, "category": case.category, "label": case.label,
            "outcome": outcome, "reason": reason, "suite_hash": suite_hash}


def reference_decision(ref: ReferenceVerifier, task: Task, data: Reference,
                       candidate: Mapping[str, Any]) -> str:
    """The reference's PASS/FAIL on a candidate, memoised (see ``_DECISIONS``); thread-safe."""
    key = sha256_text(canonical_json([ref.verifier_id, ref.version, task.task_id,
                                      dict(data.data), dict(candidate)]))
    with _MEMO_LOCK:
        decision = _DECISIONS.get(key)
    if decision is None:
        if getattr(ref, "parallel_decisions", False):
            decision = ref.decide(task, data, candidate)
        else:
            with _SERIAL:
                decision = ref.decide(task, data, candidate)
        with _MEMO_LOCK:
            _DECISIONS[key] = decision
            while len(_DECISIONS) > _DECISIONS_MAX:
                _DECISIONS.popitem(last=False)
    return decision


def _mutate(entry: Entry, kit: Toolkit, names: list[str], rng: random.Random
            ) -> tuple[dict[str, Any], list[str], str, bool]:
    """One to three mutations of ``entry``; stops early once the status is unknown."""
    cand, _, _, status, terminal = entry
    applied: list[str] = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        name = rng.choice(names)
        mutation = kit.mutations[name]
        child = mutation.apply(cand, rng, kit.material)
        if child is None:
            continue
        status = status_after(status, mutation, parent_terminal=terminal,
                              sees_whole=kit.sees_whole)
        cand, terminal = child, terminal or mutation.terminal
        applied.append(name)
        if status == UNKNOWN:
            break
    return cand, applied, status, terminal


def _search(task: Task, reference: tuple[ReferenceVerifier, Reference], pool: list[Entry],
            judge: Judge, kit: Toolkit, out: TaskAttack, *, fields: tuple[str, ...] | None,
            budget: int, rng: random.Random, seen: set[str]) -> None:
    names = sorted(kit.mutations)
    attempts = 0
    while out.queries < budget and attempts < ATTEMPTS_PER_QUERY * budget:
        attempts += 1
        parent = rng.choice(pool)
        child, applied, status, terminal = _mutate(parent, kit, names, rng)
        if not applied:
            continue
        out.mutations_tried += 1
        child = kit.complete(child)
        key = canonical_json(project_fields(child, fields))
        if status == UNKNOWN or key in seen:
            out.not_invalid += status == UNKNOWN
            continue
        seen.add(key)
        history = parent[2] + applied
        if status == VALID:
            out.not_invalid += 1
            pool.append((child, parent[1], history, VALID, terminal))
            continue
        if reference_decision(reference[0], task, reference[1], child) != "FAIL":
            out.refuted_by_reference += 1
            continue
        out.queries += 1
        for name in applied:
            out.counts_by_mutation[name] = out.counts_by_mutation.get(name, 0) + 1
        verdict = judge(project_fields(child, fields))
        out.mutants.append({"query": out.queries, "seed_case_id": parent[1],
                            "mutations": history, "outcome": verdict.outcome,
                            "reason": verdict.reason, "candidate": child})
        if verdict.outcome == "P":
            out.found = Found(child, parent[1], history, out.queries)
            return
        pool.append((child, parent[1], history, INVALID, terminal))


def attack_task(task: Task, reference: tuple[ReferenceVerifier, Reference], cases: Sequence[Case],
                judge: Judge, kit: Toolkit | None, *, fields: tuple[str, ...] | None,
                budget: int, rng: random.Random, suite_hash: str,
                static: Sequence[dict[str, Any]] | None = None) -> TaskAttack:
    """Judge every case, then search with at most ``budget`` queries (see module docstring).
    ``static``: the cases' judgments already made by the job's judging stage, kept instead of
    judging the same cases again. An invalid case whose invalidity may not survive presentation
    changes (``kit.sound_seed``) enters the pool as terminal: it is judged, never mutated.
    ``kit`` None (the source has no operators): the cases are judged, nothing is searched."""
    out = TaskAttack(task.task_id, task.task_type, judgments=list(static or []),
                     operators=kit is not None)
    seen: set[str] = set()
    pool: list[Entry] = []
    for case in sorted(cases, key=lambda c: c.case_id):
        cand = dict(case.candidate)
        seen.add(canonical_json(project_fields(cand, fields)))
        if static is None:
            verdict = judge(project_fields(cand, fields))
            out.judgments.append(case_record(task, case, verdict.outcome, suite_hash,
                                             verdict.reason))
        if kit is not None:
            status = VALID if case.label == "PASS" else INVALID
            terminal = status == INVALID and not kit.sound_seed(cand)
            pool.append((cand, case.case_id, [], status, terminal))
    if kit is not None and budget > 0 and not out.broken_static:
        _search(task, reference, pool, judge, kit, out, fields=fields, budget=budget, rng=rng,
                seen=seen)
    return out
