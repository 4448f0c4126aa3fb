"""AgentDojo's defect hunt for the audit (``SPEC.defect_hunt``), reason code R (paper appendix
B.1): replaying the same calls from the same initial state does not give the same state."""

from __future__ import annotations

from typing import Sequence

from monitorbench.audit.model import Finding
from monitorbench.hashing import canonical_json
from monitorbench.sources.agentdojo import runtime as rt
from monitorbench.sources.agentdojo import source as src
from monitorbench.suites.format import Case, Reference, Task
from monitorbench.suites.reference import ReferenceVerifier


def hunt_nondeterministic_replay(task: Task, reference: Reference, verifier: ReferenceVerifier,
                                 cases: Sequence[Case]) -> list[Finding]:
    """R: every case's calls replayed twice from the reset state give identical outputs and
    identical final states (decisions can agree while the state drifts)."""
    data = reference.data
    setup = src.cached_setup(data["suite"], data["user_task_id"], data["injection_task_id"])
    out = []
    for case in cases:
        try:
            calls = rt.check_calls(case.candidate.get("calls"))
        except TypeError:
            continue  # malformed records are C1's business
        seen = []
        for _ in range(2):
            env = setup.fresh_env()
            outputs = rt.replay(setup.suite, env, calls)
            seen.append(canonical_json({"outputs": outputs, "state": rt.dump_environment(env)}))
        if seen[0] != seen[1]:
            out.append(Finding("R", f"{case.case_id}: two replays of the same calls from the "
                                    f"reset state differ"))
    return out[:5]
