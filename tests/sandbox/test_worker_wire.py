"""The worker's JSON codec (``_dumps``/``_loads`` over ``_json``) against the json module.

The worker no longer imports json (issue 49: its decoder's imports cost every session start
~5 ms), so every request, answer and verify() return value crosses the sandbox through these two
functions. A verifier's returned value must reach the framework exactly as json would have sent
it, and what json refuses must still be refused the same way (the worker turns a TypeError,
ValueError or RecursionError into an ``unserializable`` answer)."""

from __future__ import annotations

import json
import math

import pytest

from monitorbench.sandbox import worker

VALUES = [
    None, True, False, 0, -7, 2**80, -0.0, 1e300, 1.5e-300, float("inf"), float("-inf"),
    "", "plain", "é ü 中文 \U0001F600", "lone \ud800 surrogate",
    "quote \" backslash \\ \n\t\x01",
    [], {}, (1, 2), [1, [2, [3, {"a": None}]]],
    {"decision": "PASS", "confidence": 0.8}, {3: "int key", 2.5: "float key", True: 1, None: 2},
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_dumps_writes_what_json_writes_and_loads_reads_it_back(value):
    text = worker._dumps(value)
    assert text == json.dumps(value)
    assert worker._loads(text) == json.loads(text)
    assert worker._loads(text.encode()) == json.loads(text.encode())


def test_nan_round_trips_as_json_reads_it():
    assert worker._dumps(float("nan")) == "NaN"
    assert math.isnan(worker._loads(" NaN "))
    assert worker._loads("[Infinity, -Infinity]") == [math.inf, -math.inf]


def _circular() -> list:
    loop: list = []
    loop.append(loop)
    return loop


@pytest.mark.parametrize("value,error", [
    (_circular(), ValueError), ({1j: 1}, TypeError), (object(), TypeError),
    ({"x": {1, 2}}, TypeError),
], ids=["circular", "complex-key", "object", "set"])
def test_what_json_refuses_is_refused_with_the_same_error(value, error):
    with pytest.raises(error) as ours:
        worker._dumps(value)
    with pytest.raises(error) as theirs:
        json.dumps(value)
    assert str(ours.value) == str(theirs.value)


def test_a_deep_value_raises_recursion_error_as_json_does():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(RecursionError):
        worker._dumps(deep)


@pytest.mark.parametrize("text", ["", "   ", "[1,", "{} x", "nul", '"\x01"', b"\xff"])
def test_anything_but_one_json_value_is_a_value_error(text):
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        worker._loads(text)


def test_surrounding_whitespace_is_allowed_as_json_allows_it():
    assert worker._loads(' \t{"candidate": [1]}\r\n') == {"candidate": [1]}
