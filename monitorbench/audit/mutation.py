"""C6 mutation testing: operator sets per reference verifier, and the detection criterion.

A mutant changes one check of a reference verifier. It is *detected* by a task's suite when, on
some case, the original and the mutant both return a valid decision (PASS or FAIL) and the two
differ; a crash or any other invalid output is never a detection (paper B.3). A task passes C6
when every operator that applies to it is detected; an operator applies when the task exercises
the check it modifies (a container check on a task without container arguments would be an
equivalent mutant). Operator sets live in one module per source (``SourceSpec.mutants``), imported
lazily.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence

from monitorbench.audit.model import INVALID, CheckResult
from monitorbench.suites.format import Case, Reference, Task
from monitorbench.suites.source_registry import source_for_reference


@dataclass(frozen=True)
class Operator:
    """One mutation operator: its name, the reference check it modifies, and when it applies."""

    name: str
    modifies: str
    applies: Callable[[Task, Reference], bool] = lambda task, reference: True


class MutantSet(Protocol):
    """A reference verifier's mutation operators and a way to decide cases under each."""

    operators: tuple[Operator, ...]

    def decide(self, op: Operator, task: Task, reference: Reference,
               cases: Sequence[Case]) -> list[str]:
        """The mutant's decision per case: PASS, FAIL or ``INVALID...`` (crash, no answer)."""


def mutant_set(verifier_id: str) -> MutantSet | None:
    """The operator set for a reference verifier (the ``MUTANTS`` of the module its source's
    spec names), or None when none is defined for it."""
    spec = source_for_reference(verifier_id)
    if spec is None or spec.mutants is None:
        return None
    return importlib.import_module(spec.mutants).MUTANTS


def _valid(decision: str) -> bool:
    return decision in ("PASS", "FAIL")


def detection(cases: Sequence[Case], original: Sequence[str], mutant: Sequence[str]
              ) -> dict[str, Any] | None:
    """The first case on which original and mutant give different valid decisions, or None."""
    for c, o, m in zip(cases, original, mutant):
        if _valid(o) and _valid(m) and o != m:
            return {"case_id": c.case_id, "category": c.category, "original": o, "mutant": m}
    return None


def check_mutation(task: Task, reference: Reference, cases: Sequence[Case],
                   original: Sequence[str]) -> CheckResult:
    """C6 for one task: run every applicable operator; all must be detected."""
    mutants = mutant_set(reference.verifier_id)
    if mutants is None:
        return CheckResult("C6", False, f"no mutation operators defined for reference "
                           f"{reference.verifier_id!r}", {"configurations": 0})
    applied: dict[str, Any] = {}
    missed: list[str] = []
    for op in mutants.operators:
        if not op.applies(task, reference):
            continue
        decisions = mutants.decide(op, task, reference, cases)
        hit = detection(cases, original, decisions)
        invalid = sum(d.startswith(INVALID) for d in decisions)
        applied[op.name] = {"modifies": op.modifies, "detected_by": hit, "invalid": invalid}
        if hit is None:
            missed.append(op.name)
    details = {"configurations": len(applied), "operators": applied, "missed": missed}
    if missed:
        return CheckResult("C6", False, f"{len(missed)}/{len(applied)} operators undetected: "
                           f"{', '.join(missed)}", details)
    shown = "; ".join(f"{name} by {v['detected_by']['case_id']} "
                      f"({v['detected_by']['original']}->{v['detected_by']['mutant']})"
                      for name, v in list(applied.items())[:3])
    return CheckResult("C6", bool(applied), f"all {len(applied)} operators detected: {shown}"
                       + ("..." if len(applied) > 3 else ""), details)


def with_invalid(fn: Callable[[], str]) -> str:
    """Run one mutant decision; a crash becomes an invalid decision, never a detection."""
    try:
        decision = fn()
    except Exception as e:  # a crashing mutant is recorded as invalid
        return f"{INVALID}: {type(e).__name__}"
    return decision if _valid(decision) else f"{INVALID}: {decision!r}"[:80]


def by_candidate(fn: Callable[[Mapping[str, Any]], str], cases: Sequence[Case]) -> list[str]:
    return [with_invalid(lambda c=c: fn(c.candidate)) for c in cases]
