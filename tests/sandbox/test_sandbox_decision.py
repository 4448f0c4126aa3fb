"""Framework-side parsing of what verify() returned."""

from __future__ import annotations

import math

import pytest

from monitorbench.sandbox.decision import parse_decision, verdict_from_answer


@pytest.mark.parametrize("value,decision,confidence", [
    ("PASS", "PASS", None),
    ("FAIL", "FAIL", None),
    ({"decision": "PASS", "confidence": 0.7}, "PASS", 0.7),
    ({"decision": "FAIL", "confidence": 1}, "FAIL", 1.0),
    ({"decision": "FAIL", "confidence": 0.99, "why": "wrong city"}, "FAIL", 0.99),
    ({"decision": "PASS", "confidence": "high"}, "PASS", None),
    ({"decision": "PASS", "confidence": True}, "PASS", None),
    ({"decision": "PASS", "confidence": math.nan}, "PASS", None),
])
def test_conforming_values(value, decision, confidence):
    v = parse_decision(value)
    assert (v.decision, v.confidence, v.outcome) == (decision, confidence, decision[0])


@pytest.mark.parametrize("value", ["pass", "PASS ", True, 1, None, ["PASS"],
                                   {"decision": "yes"}, {"result": "PASS"}, "x" * 5000])
def test_anything_else_is_malformed_and_says_what(value):
    v = parse_decision(value)
    assert v.outcome == "U" and v.reason == "malformed"
    assert "expected" in v.detail and len(v.detail) <= 500
    assert repr(value)[:20] in v.detail


def test_confidence_never_changes_the_label():
    assert parse_decision({"decision": "FAIL", "confidence": 0.0}).decision == "FAIL"
    assert parse_decision({"decision": "PASS", "confidence": -3}).decision == "PASS"


def test_worker_answers_map_to_verdicts():
    v = verdict_from_answer({"status": "returned", "value": "PASS", "seconds": 0.5,
                             "executions": 2, "stdout": "hi"})
    assert (v.decision, v.seconds, v.executions, v.stdout) == ("PASS", 0.5, 2, "hi")
    v = verdict_from_answer({"status": "u", "reason": "timeout", "detail": "slow"})
    assert (v.reason, v.detail) == ("timeout", "slow")
    v = verdict_from_answer({"status": "unserializable", "repr": "<object at 0x1>"})
    assert v.reason == "malformed" and "<object" in v.detail
    for bad in ({"status": "u", "reason": "made_up"}, {"status": "?"}, [1]):
        assert verdict_from_answer(bad).reason == "sandbox_error"
