"""Hunts for the source defects the paper excluded tasks for (appendix B.1), run per task
independently of the suite builders' own screening.

Each defect belongs to one source's data: D (tool calls) BFCL's answer key lets a
schema-required argument be omitted; S (code) the grader passes a candidate without test
evidence; R (state) replaying AgentDojo calls from the same initial state does not give the
same state. So each source names its hunt and reason code in its spec (``SourceSpec.defect_hunt``,
``defect_code``; the hunts live in ``monitorbench/sources/<name>/defects.py``), loaded lazily,
and the audit itself stays source-agnostic.
"""

from __future__ import annotations

from typing import Callable, Sequence

from monitorbench.audit.model import Finding
from monitorbench.suites.format import Case, Reference, Task
from monitorbench.suites.reference import ReferenceVerifier
from monitorbench.suites.source_registry import source_for_reference
from monitorbench.suites.source_spec import load_object

Hunt = Callable[[Task, Reference, ReferenceVerifier, Sequence[Case]], list[Finding]]


def hunt(task: Task, reference: Reference, verifier: ReferenceVerifier,
         cases: Sequence[Case]) -> list[Finding]:
    """The defects of one task, by the hunt of the source that declares its reference verifier;
    a hunt that cannot read the reference data is itself a finding (the task cannot be shown
    free of the defect)."""
    spec = source_for_reference(reference.verifier_id)
    if spec is None or spec.defect_hunt is None:
        return []
    fn: Hunt = load_object(spec.defect_hunt, source=spec.name, what="defect hunt")
    try:
        return fn(task, reference, verifier, cases)
    except (KeyError, TypeError) as e:
        return [Finding(spec.defect_code, f"defect hunt could not read the reference data: "
                                          f"{type(e).__name__}: {e}"[:200])]
