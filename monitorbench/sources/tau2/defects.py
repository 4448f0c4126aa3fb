"""τ²'s defect hunt for the audit (``SPEC.defect_hunt``), reason code R (paper appendix B.1):
replaying the same calls on a fresh database twice gives different outputs or databases."""

from __future__ import annotations

from typing import Sequence

from monitorbench.audit.model import Finding
from monitorbench.hashing import canonical_json
from monitorbench.sources.tau2 import runtime as rt
from monitorbench.sources.tau2.judge import task_by_id
from monitorbench.suites.format import Case, Reference, Task
from monitorbench.suites.reference import ReferenceVerifier


def hunt_nondeterministic_replay(task: Task, reference: Reference, verifier: ReferenceVerifier,
                                 cases: Sequence[Case]) -> list[Finding]:
    """R: every case's calls replayed twice give identical outputs and database diffs (ids
    minted by a tool, such as a new reservation's, must not depend on the run)."""
    domain = reference.data["domain"]
    start = task_by_id(domain, reference.data["task_id"]).start
    out = []
    for case in cases:
        try:
            calls = rt.check_calls(case.candidate.get("calls"))
        except TypeError:
            continue  # malformed records are C1's business
        if canonical_json(rt.run(domain, calls, start)) != canonical_json(
                rt.run(domain, calls, start)):
            out.append(Finding("R", f"{case.case_id}: two replays of the same calls differ"))
    return out[:5]
