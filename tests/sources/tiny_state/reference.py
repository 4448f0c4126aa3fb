"""The tiny state source's reference: replay the calls, compare the final state with the gold's,
and require every answer fact in the final message. Like many sources' checkers it is looser than
the instruction (it trusts the gold), which is exactly what C8 exists to catch."""

from __future__ import annotations

from typing import Any, Mapping

from monitorbench.suites.format import Reference, Task
from monitorbench.suites.reference import register_reference

from tiny_state import REFERENCE_ID
from tiny_state.env import replay


def state_matches(candidate: Mapping[str, Any], data: Mapping[str, Any]) -> bool:
    return replay(candidate.get("calls") or [])[1] == data["final_state"]


def answer_matches(candidate: Mapping[str, Any], data: Mapping[str, Any]) -> bool:
    message = str(candidate.get("final_message", "")).lower()
    return all(f.lower() in message for f in data["answer_facts"])


class FinalStateReference:
    """PASS iff the replayed final state is the gold's and the answer holds every fact."""

    verifier_id = REFERENCE_ID
    version = "tiny-state-1"

    def decide(self, task: Task, reference: Reference, candidate: Mapping[str, Any]) -> str:
        ok = state_matches(candidate, reference.data) and answer_matches(candidate,
                                                                         reference.data)
        return "PASS" if ok else "FAIL"


register_reference(REFERENCE_ID, FinalStateReference)
