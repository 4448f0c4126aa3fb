"""Hunts for the source defects the paper excluded tasks for (appendix B.1), run per task type
independently of the suite builders' own screening:

* D (tool calls): the answer key lets a schema-required argument be omitted.
* S (code): the grader passes a candidate without test evidence - a run whose report is empty
  (the selected tests do not exist) or a no-op patch.
* R (state): replaying the same calls from the same initial state does not give the same state.
"""

from __future__ import annotations

from typing import Callable, Sequence

from monitorbench.audit.checks import safe_decide
from monitorbench.audit.model import Finding
from monitorbench.hashing import canonical_json
from monitorbench.suites.format import Case, Reference, Task
from monitorbench.suites.reference import ReferenceVerifier


def hunt_required_omittable(task: Task, reference: Reference, verifier: ReferenceVerifier,
                            cases: Sequence[Case]) -> list[Finding]:
    """D: an answer-key option list containing "" for an argument the schema requires."""
    tools = {t.get("name"): t for t in task.public.get("tools", [])}
    out = []
    for call in reference.data.get("possible_answer", []):
        for fname, args in call.items():
            required = tools.get(fname, {}).get("parameters", {}).get("required", [])
            for pname, options in args.items():
                if "" in options and pname in required:
                    out.append(Finding("D", f"answer key marks {fname}.{pname} omittable, but the "
                                            f"task's schema lists it as required"))
    return out


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


def hunt_nondeterministic_replay(task: Task, reference: Reference, verifier: ReferenceVerifier,
                                 cases: Sequence[Case]) -> list[Finding]:
    """R: every case's calls replayed twice from the reset state give identical outputs and
    identical final states (decisions can agree while the state drifts)."""
    from monitorbench.sandbox.runtimes import agentdojo as rt
    from monitorbench.sources.agentdojo import source as src
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


Hunt = Callable[[Task, Reference, ReferenceVerifier, Sequence[Case]], list[Finding]]
# Task type -> (the reason code the hunt reports, the hunt).
HUNTS: dict[str, tuple[str, Hunt]] = {
    "tool_call": ("D", hunt_required_omittable),
    "code": ("S", hunt_empty_report),
    "state": ("R", hunt_nondeterministic_replay),
}


def hunt(task: Task, reference: Reference, verifier: ReferenceVerifier,
         cases: Sequence[Case]) -> list[Finding]:
    """The defects of one task; a hunt that cannot read the reference data is itself a finding
    (the task cannot be shown free of the defect)."""
    if task.task_type not in HUNTS:
        return []
    code, fn = HUNTS[task.task_type]
    try:
        return fn(task, reference, verifier, cases)
    except (KeyError, TypeError) as e:
        return [Finding(code, f"defect hunt could not read the reference data: "
                              f"{type(e).__name__}: {e}"[:200])]


