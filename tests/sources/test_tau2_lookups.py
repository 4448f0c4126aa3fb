"""τ² gold records are grounded by construction: every value a write writes was told to the agent
by the request or by an earlier output of the record (the lookups ``sources.tau2.lookups`` puts
in before the write), so C8 passes the tasks whose gold used to write a birth date out of
nowhere, without any change to the audit."""

from __future__ import annotations

import random

import pytest

from monitorbench.audit.environment import load_state_task
from monitorbench.audit.grounding import check_grounding
from monitorbench.audit.temporal import check_temporal
from monitorbench.sources.agentdojo.cases import make_record
from monitorbench.sources.tau2 import lookups
from monitorbench.sources.tau2 import runtime as rt
from monitorbench.sources.tau2 import source as src
from monitorbench.sources.tau2.build import _public, excluded_reason
from monitorbench.sources.tau2.cases import CaseBuilder
from monitorbench.suites.format import Task

# The airline tasks C8 excluded before the lookups: the gold wrote a passenger's birth date that
# no call had read (a booking, or a passenger change, for the customer or a saved passenger).
# airline 25 is excluded again, for another reason written in the build report (issue 31: its
# payment method depends on a condition the build does not decide; tau2/repairs.py)
FORMERLY_EXCLUDED = ("17", "20", "22", "24")


def _builder(domain: str, task_id: str) -> CaseBuilder:
    task = next(t for t in src.load_tasks(domain) if t.task_id == task_id)
    return CaseBuilder(task, random.Random(0))


def test_the_lookups_ground_what_the_gold_writes_and_c8_passes_it():
    for task_id in FORMERLY_EXCLUDED:
        b = _builder("airline", task_id)
        record = make_record(b.gold_calls, b.gold_outputs, b.gold.message)
        # the gold's own actions, in their order and with their arguments, are all still there
        assert [c for c in b.gold_calls if c in b.task.actions] == list(b.task.actions)
        assert all(n in rt.READ_ONLY for n, _ in b.gold_calls if (n, _) not in b.task.actions)
        assert lookups.ungrounded(b.instruction, b.schemas, record["calls"]) == [], task_id
        assert excluded_reason(b.task, b) is None
        public = _public(b.task, rt.DEFAULT_BUDGET)
        state = load_state_task(Task(f"tau2.airline.{task_id}", "state", "", public), None)
        assert check_temporal(state, record) == [] and check_grounding(state, record) == []
        # before: the bare gold actions wrote the birth date from nowhere, as C8 found
        bare = make_record(list(b.task.actions), b.run(list(b.task.actions)), b.gold.message)
        assert any(".dob = " in f for f in check_temporal(state, bare)), task_id


def test_ungrounded_names_a_value_no_lookup_gave():
    b = _builder("airline", "17")
    record = make_record(b.gold_calls, b.gold_outputs, "")["calls"]
    user_lookup = next(i for i, c in enumerate(record) if c["name"] == "get_user_details")
    without = record[:user_lookup] + record[user_lookup + 1:]
    found = lookups.ungrounded(b.instruction, b.schemas, without)
    assert any("'1970-06-06'" in f and "update_reservation_passengers" in f for f in found)


@pytest.mark.slow
def test_a_gold_that_writes_a_value_nothing_gives_is_excluded_with_the_reason():
    """airline 35 books the customer with a birth date that neither the request nor the
    database (profile, saved passengers, reservations) holds: no agent could know it."""
    b = _builder("airline", "35")
    assert "no agent could have known it" in (excluded_reason(b.task, b) or "")


def test_an_ungrounded_value_is_excluded_with_where_it_was_traced():
    """Issue 47 step 3: airline 35's gold books the customer with a birth date no lookup
    shows; the exclusion says what was found (the profile's date, and none stated)."""
    b = _builder("airline", "35")
    reason = excluded_reason(b.task, b)
    assert reason is not None and "'1985-04-04'" in reason
    assert "found: " in reason and "1981-05-26" in reason
