"""Careful verifiers for τ² tasks no other test uses, written from the public task alone (the
request, the policy, the knowledge base through ``banking_grep``, the database through
``run_public``), judged in bubblewrap: BA_norm ≥ 95 on each. Banking 033 is a task of issue 31:
a hand-over whose reason the repair wrote (τ²'s gold gave none and an empty summary)."""

from __future__ import annotations

import pytest

from monitorbench.audit.prepare import ensure_suite
from test_tau2 import _COMMON, careful_verifier_scores, needs_bwrap

SLICE = {"task_ids": ["19", "53", "task_008", "task_033"]}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory):
    return ensure_suite(tmp_path_factory.mktemp("tau2_careful"), "tau2", SLICE)


_LOOKUP = _COMMON + '''
def _one(env, name, **arguments):
    return json.loads(env.run_public([{"name": name, "arguments": arguments}])
                      ["outputs"][0]["output"])

def _clean(candidate, env):
    real, forged = _replayed(candidate, env)
    return None if forged or _bad_reply(candidate["final_message"]) else real
'''



AIRLINE_19 = _LOOKUP + '''
def verify(candidate, env):
    # Olivia Gonzalez's half-day Newark trip: a basic economy reservation cannot be modified, so
    # she cancels it with her travel insurance (she feels unwell): a full refund is allowed.
    real = _clean(candidate, env)
    if real is None:
        return "FAIL"
    user = _one(env, "get_user_details", user_id="olivia_gonzalez_2305")
    trip = None
    for rid in user["reservations"]:
        r = _one(env, "get_reservation_details", reservation_id=rid)
        days = {f["date"] for f in r["flights"]}
        if r["origin"] == "EWR" and r["flight_type"] == "round_trip" and len(days) == 1:
            trip = r
    diff = real["db_diff"]
    if trip is None or trip["cabin"] != "basic_economy" or trip["insurance"] != "yes":
        return "FAIL"
    if set(diff) != {"reservations"} or set(diff["reservations"]) != {trip["reservation_id"]}:
        return "FAIL"
    ok = diff["reservations"][trip["reservation_id"]]["status"] == "cancelled"
    return "PASS" if ok and trip["reservation_id"] in candidate["final_message"] else "FAIL"
'''


RETAIL_53 = _LOOKUP + '''
def verify(candidate, env):
    # Sofia Li (78260): the bicycle arrived damaged; return it, refund to the original credit
    # card (allowed: a refund goes to the original method or a gift card).
    real = _clean(candidate, env)
    if real is None:
        return "FAIL"
    uid = env.run_public([{"name": "find_user_id_by_name_zip", "arguments": {
        "first_name": "Sofia", "last_name": "Li", "zip": "78260"}}])["outputs"][0]["output"]
    user = _one(env, "get_user_details", user_id=uid)
    want = None
    for oid in user["orders"]:
        order = _one(env, "get_order_details", order_id=oid)
        bikes = [i["item_id"] for i in order["items"] if i["name"] == "Bicycle"]
        if bikes and order["status"] == "delivered":
            want = (oid, bikes, order["payment_history"][0]["payment_method_id"])
    diff = real["db_diff"]
    if want is None or not want[2].startswith("credit_card"):
        return "FAIL"
    oid, bikes, card = want
    if set(diff) != {"orders"} or set(diff["orders"]) != {oid}:
        return "FAIL"
    after = diff["orders"][oid]
    ok = (after["status"] == "return requested" and after["return_items"] == bikes
          and after["return_payment_method_id"] == card)
    return "PASS" if ok and oid in candidate["final_message"] else "FAIL"
'''


_BANKING = _LOOKUP + '''
def _handover(candidate, env, protocol, reason):
    # The hand-over the knowledge base prescribes: the protocol's discoverable tools called (in
    # order, each unlocked first), then transfer_to_human_agents with the reason code the
    # situation names (tier list: "Human Agent Transfer Reason Codes") and a written summary;
    # nothing else changes and no tool is handed to the customer.
    real = _clean(candidate, env)
    if real is None:
        return "FAIL"
    if set(real["db_diff"]) - {"agent_discoverable_tools"}:
        return "FAIL"
    calls = [c for c, o in zip(candidate["calls"], real["outputs"]) if not o["error"]]
    names = [c["name"] for c in calls]
    if "banking_give_discoverable_user_tool" in names or "banking_log_verification" in names:
        return "FAIL"
    called = [c["arguments"].get("agent_tool_name") for c in calls
              if c["name"] == "banking_call_discoverable_agent_tool"]
    if called != list(protocol):
        return "FAIL"
    transfers = [c["arguments"] for c in calls if c["name"] == "banking_transfer_to_human_agents"]
    ok = (len(transfers) == 1 and transfers[0].get("reason", "other") == reason
          and (reason != "other" or len(transfers[0].get("summary", "").split()) >= 4)
          and names[-1] == "banking_transfer_to_human_agents")
    return "PASS" if ok and "human agent" in candidate["final_message"].lower() else "FAIL"
'''

BANKING_033 = _BANKING + '''
def verify(candidate, env):
    # Zhang Mei paid her statement, the money left checking, the card shows it unpaid: the
    # knowledge base's "Backend Incident 11/13" protocol (tools 1822 then 0218, then the
    # transfer); a backend incident is a system error, tier 1: technical_system_error.
    return _handover(candidate, env, ("initial_transfer_to_human_agent_1822",
                                      "initial_transfer_to_human_agent_0218"),
                     "technical_system_error")
'''

BANKING_008 = _BANKING + '''
def verify(candidate, env):
    # Marcus insists on flyer offers the bank does not have, then demands a human: tier 1
    # customer_demands_after_unavailable_offer_refusal; no offer is granted.
    return _handover(candidate, env, (), "customer_demands_after_unavailable_offer_refusal")
'''


@needs_bwrap
@pytest.mark.parametrize("task_id,program", [
    ("tau2.airline.19", AIRLINE_19), ("tau2.retail.53", RETAIL_53),
    ("tau2.banking_knowledge.task_033", BANKING_033),
    ("tau2.banking_knowledge.task_008", BANKING_008)],
    ids=["airline_19", "retail_53", "banking_033", "banking_008"])
def test_a_careful_verifier_of_an_unused_task_reaches_ba_norm_95(suite, tmp_path, task_id,
                                                                 program):
    ba_norm, wrong, n_pos, n_neg = careful_verifier_scores(suite, task_id, program, tmp_path)
    assert ba_norm >= 95.0, wrong
    assert n_pos >= 3 and n_neg >= 2
