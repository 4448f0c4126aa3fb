"""The code source's defect hunt for the audit (``SPEC.defect_hunt``), reason code S (paper
appendix B.1): the grader passes a candidate without test evidence - a run whose report is empty
(the selected tests do not exist) or a no-op patch."""

from __future__ import annotations

from typing import Sequence

from monitorbench.audit.checks import safe_decide
from monitorbench.audit.model import Finding
from monitorbench.suites.format import Case, Reference, Task
from monitorbench.suites.reference import ReferenceVerifier

# A test id that exists in no library: selecting only it yields a report with no test in it.
_ABSENT_TEST = "monitorbench_audit_absent_test.py::test_absent"


def hunt_empty_report(task: Task, reference: Reference, verifier: ReferenceVerifier,
                      cases: Sequence[Case]) -> list[Finding]:
    """S: the grader must FAIL a correct patch graded against no test, and a no-op patch."""
    gold = next((c for c in cases if c.group == "gold"), None)
    out = []
    if gold is not None:
        empty = Reference(reference.verifier_id, reference.version,
                          {**dict(reference.data), "fail_to_pass": [_ABSENT_TEST],
                           "pass_to_pass": []})
        decision = safe_decide(verifier, task, empty, gold.candidate)
        if decision == "PASS":
            out.append(Finding("S", f"gold patch {gold.case_id} graded against a test selection "
                                    f"that yields an empty report: PASS"))
    decision = safe_decide(verifier, task, reference, {"patch": ""})
    if decision == "PASS":
        out.append(Finding("S", "an empty (no-op) patch is graded PASS"))
    return out
