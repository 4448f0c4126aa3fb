"""The tiny source's reference verifier: the candidate's calls must be exactly the answer key's,
and its raw text must be the JSON of those same calls (a record whose two parts disagree FAILs)."""

from __future__ import annotations

import json
from typing import Any, Mapping

from monitorbench.suites.format import Reference, Task
from monitorbench.suites.reference import register_reference

from tiny_source import REFERENCE_ID


def raw_matches(candidate: Mapping[str, Any]) -> bool:
    """The raw reply parses to the same calls as the parsed field."""
    try:
        return json.loads(candidate.get("raw", "")) == candidate.get("calls")
    except (TypeError, ValueError):
        return False


def names_match(candidate: Mapping[str, Any], answer: list[dict[str, Any]]) -> bool:
    calls = candidate.get("calls") or []
    return [c.get("name") for c in calls] == [a["name"] for a in answer]


def values_match(candidate: Mapping[str, Any], answer: list[dict[str, Any]]) -> bool:
    calls = candidate.get("calls") or []
    return [c.get("arguments") for c in calls] == [a["arguments"] for a in answer]


class ExactCallReference:
    """PASS iff raw and parsed agree, and the calls name the answer's functions with its values."""

    verifier_id = REFERENCE_ID
    version = "tiny-1"

    def decide(self, task: Task, reference: Reference, candidate: Mapping[str, Any]) -> str:
        answer = reference.data["answer"]
        ok = raw_matches(candidate) and names_match(candidate, answer) \
            and values_match(candidate, answer)
        return "PASS" if ok else "FAIL"


register_reference(REFERENCE_ID, ExactCallReference)
