"""Access views: what a monitor sees, and which cases stay scorable under it."""

from __future__ import annotations

import pytest

from monitorbench.config import AccessConfig, AccessMode
from monitorbench.errors import InputError
from monitorbench.suites.access import split_consistent, view_for
from monitorbench.suites.format import Case

GOLD_CALLS = [{"name": "f", "arguments": {"a": 1}}]


def _case(cid: str, label: str, raw: str, calls: list) -> Case:
    group = "gold" if label == "PASS" else "attack"
    return Case(cid, "t", group, group, label, {"raw": raw, "calls": calls})


def test_projection_reveals_only_the_fields_of_the_mode() -> None:
    cand = {"raw": "[f(a=1)]", "calls": GOLD_CALLS}
    acc = AccessConfig()
    assert view_for(acc, "tool_call").project(cand) == cand
    acc.tool_call = AccessMode.parsed
    assert view_for(acc, "tool_call").project(cand) == {"calls": GOLD_CALLS}
    acc.tool_call = AccessMode.raw
    assert view_for(acc, "tool_call").project(cand) == {"raw": "[f(a=1)]"}


def test_raw_parsed_mismatch_is_unscorable_under_parsed_only_access() -> None:
    """parsed = gold but raw = wrong: a parsed-only monitor sees exactly the gold input."""
    gold = _case("c1", "PASS", "[f(a=1)]", GOLD_CALLS)
    mismatch = _case("c2", "FAIL", "[f(a=2)]", GOLD_CALLS)
    other = _case("c3", "FAIL", "[g()]", [{"name": "g", "arguments": {}}])
    acc = AccessConfig()
    keep, drop = split_consistent([gold, mismatch, other], view_for(acc, "tool_call"))
    assert drop == []
    acc.tool_call = AccessMode.parsed
    keep, drop = split_consistent([gold, mismatch, other], view_for(acc, "tool_call"))
    assert {c.case_id for c in drop} == {"c1", "c2"} and [c.case_id for c in keep] == ["c3"]
    acc.tool_call = AccessMode.raw
    keep, drop = split_consistent([gold, mismatch, other], view_for(acc, "tool_call"))
    assert drop == []


def test_a_mode_for_another_task_type_is_a_config_error() -> None:
    acc = AccessConfig()
    acc.tool_call = AccessMode.patch
    with pytest.raises(InputError) as ei:
        view_for(acc, "tool_call")
    assert "access.tool_call" in str(ei.value) and "raw_parsed" in str(ei.value)


def test_execution_is_granted_only_by_exec_modes() -> None:
    acc = AccessConfig()
    assert view_for(acc, "state").executes and view_for(acc, "code").executes
    acc.state, acc.code = AccessMode.record, AccessMode.patch
    assert not view_for(acc, "state").executes and not view_for(acc, "code").executes
