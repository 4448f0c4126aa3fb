"""C8 environment fidelity: each defect kind planted in a tiny state source is caught with its
kind through the real build-and-audit path, the clean task passes every check, and the rules hold
on hand-made records where a careless rule would punish a correct answer."""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path

import pytest

from monitorbench.audit.environment import StateTask
from monitorbench.audit.formats import check_formats, list_problem
from monitorbench.audit.grounding import check_grounding
from monitorbench.audit.order_words import check_order, segments
from monitorbench.audit.prepare import build_suite
from monitorbench.audit.requested_answers import asks_for_information, check_requested_answers
from monitorbench.audit.temporal import check_temporal
from monitorbench.suites.source_registry import register_source, unregister_source

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sources"))
from tiny_state import SPEC  # noqa: E402
from tiny_state.build import PLANTED  # noqa: E402
from tiny_state.env import INITIAL, LANDLORD, TOOLS  # noqa: E402
from tiny_state.env import POLICY as POLICY_TEXT  # noqa: E402


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory):
    register_source(SPEC)
    try:
        root = build_suite(tmp_path_factory.mktemp("suites"), "tiny_state")
    finally:
        unregister_source(SPEC.name)
    report = json.loads((root / "audit" / "report.json").read_text())
    excluded = json.loads((root / "audit.json").read_text())["excluded"]
    return {t["task_id"]: t for t in report["tasks"]}, {e["task_id"]: e for e in excluded}, root


def test_each_planted_defect_is_caught_with_its_kind_and_excludes_the_task(audited) -> None:
    tasks, excluded, _ = audited
    for task_id, kind in PLANTED.items():
        if kind is None:
            continue
        c8 = tasks[task_id]["checks"]["C8"]
        assert not c8["passed"] and set(c8["details"]["kinds"]) == {kind}, (task_id, c8)
        reasons = [r for r in excluded[task_id]["reasons"] if r["code"] == "C8"]
        assert reasons and f"[{kind}]" in reasons[0]["evidence"], excluded[task_id]
        assert reasons[0]["kinds"] == [kind]
        assert "environment fidelity" in reasons[0]["evidence"]
    md = (audited[2] / "audit" / "report.md").read_text()
    section = md.split("## Environment fidelity (C8)")[1]
    flagged = sum(kind is not None for kind in PLANTED.values())
    assert f"{flagged} of {len(PLANTED)} tasks flagged" in section
    assert all(f"`{t}`" in section for t, kind in PLANTED.items() if kind)


def test_the_clean_task_passes_every_check(audited) -> None:
    tasks, excluded, _ = audited
    clean = tasks["tiny_state.clean"]
    assert clean["passed"] and "tiny_state.clean" not in excluded, clean["reasons"]
    assert clean["checks"]["C8"]["details"]["findings"] == []
    assert clean["checks"]["C8"]["details"]["today"] == "2024-05-15"


def test_only_the_reordered_variant_breaks_order_words(audited) -> None:
    """The gold runs the calls as the instruction orders; only the swapped variant is flagged."""
    found = audited[0]["tiny_state.order"]["checks"]["C8"]["details"]["findings"]
    assert [f["category"] for f in found] == ["reorder_independent"]


# ------------------------------------------------------------------------------ rules by hand


def _task(instruction: str, today: date | None = date(2024, 5, 15)) -> StateTask:
    return StateTask(instruction, {t["name"]: t["parameters"] for t in TOOLS}, INITIAL, today)


def _rec(*calls: tuple[str, dict, str], message: str = "") -> dict:
    return {"calls": [{"name": n, "arguments": a, "output": o, "error": None}
                      for n, a, o in calls], "final_message": message}


def test_grounding_accepts_read_created_and_stated_entities() -> None:
    task = _task("Send 5 to the IBAN in my transactions, then share file 7 with bob@x.org.")
    ok = _rec(("get_transactions", {}, json.dumps(INITIAL["bank"]["transactions"])),
              ("send_money", {"recipient": LANDLORD, "amount": 5.0}, "sent"),
              ("create_file", {"filename": "a.txt"}, "created file with id_: '26'"),
              ("share_file", {"file_id": "26", "email": "bob@x.org"}, "shared"))
    assert check_grounding(task, ok) == []
    me = {"bank": {"transactions": [{"recipient": r} for r in (LANDLORD, LANDLORD, "me", LANDLORD,
                                                                LANDLORD)]}}
    odd = StateTask("Pay back my own account.", {}, me, None)
    assert check_grounding(odd, _rec(("send_money", {"recipient": "me"}, ""))) == []
    assert "of kind iban" in check_grounding(odd, _rec(("send_money", {"recipient": "Bob"}, "")))[0]
    made_up = _rec(("share_file", {"file_id": "99", "email": "eve@x.org"}, "shared"))
    assert [f.split(" = ")[0] for f in check_grounding(task, made_up)] == \
        ["calls[0] share_file.file_id", "calls[0] share_file.email"]


def test_temporal_flags_a_changed_stated_year_and_spares_requests_about_the_past() -> None:
    stated = _task("Add 'Booking' to my calendar on April 25th 2024.", today=None)
    wrong_year = _rec(("create_event", {"title": "Booking", "start_time": "2023-04-25 10:00"}, ""))
    assert "states 2024-04-25" in check_temporal(stated, wrong_year)[0]
    past = _task("Log yesterday's lunch in my calendar.")
    logged = _rec(("create_event", {"title": "Lunch", "start_time": "2024-05-14 12:00"}, ""))
    assert check_temporal(past, logged) == []
    read = _rec(("get_events", {"day": "2023-01-01"}, "[]"))
    assert check_temporal(_task("What happened on my birthday?"), read) == []


def test_temporal_spares_a_past_date_the_environment_holds() -> None:
    """A passenger's birth date copied from the user's profile is a fact, not a date the agent
    chose (τ²'s airline bookings write one per passenger)."""
    book = _task("Book the same flight for me next week.")
    dob = "1988-02-03"
    unseen = _rec(("book", {"passengers": [{"name": "Ann", "dob": dob}]}, ""))
    assert check_temporal(book, unseen)       # not in the environment: a chosen past date
    looked_up = _rec(("get_user", {"id": "ann"}, f"{{'dob': '{dob}'}}"),
                     ("book", {"passengers": [{"name": "Ann", "dob": dob}]}, ""))
    assert check_temporal(book, looked_up) == []


def test_requested_answers_count_looked_up_and_computed_values_not_echoes() -> None:
    """τ²'s gold replies were built from ``communicate_info``; where τ² left it empty they
    confirmed the change and answered nothing (retail/90: "is the camera 10x zoom?" answered by
    "Order #W9284598 is now cancelled.")."""
    ask = "You want to know how much you will get back, then cancel order #W1."
    order = json.dumps({"order_id": "#W1", "items": [{"price": 500.5}, {"price": 92.84}],
                        "tracking": "746342064230"})
    read = ("get_order", {"order_id": "#W1"}, order)
    cancel = ("cancel_order", {"order_id": "#W1", "amount": 593.34}, '{"status": "cancelled"}')
    no_state = StateTask(ask, {}, None, None, frozenset({"get_order"}))
    echo = _rec(read, cancel, message="Order #W1 is now cancelled; 593.34 refunded.")
    assert check_requested_answers(no_state, echo)   # the amount it wrote, not an answer
    total = _rec(read, ("cancel_order", {"order_id": "#W1"}, "{}"),
                 message="You will get 593.34 back. Order #W1 is now cancelled.")
    assert check_requested_answers(no_state, total) == []   # computed: no output shows it
    track = StateTask("You want to know the tracking number of order #W1.", {}, None, None,
                      frozenset({"get_order"}))
    assert check_requested_answers(track, _rec(read, message="It is 746342064230.")) == []
    book = StateTask("Book it and tell me how much balance is left.", {}, None, None,
                     frozenset({"get_user"}))
    made = _rec(("book", {"flight": "HAT1"}, '{"reservation_id": "HATHAT"}'),
                message="Your new reservation HATHAT is booked.")
    assert check_requested_answers(book, made)   # a code the write created answers nothing
    # a name passed to a read of an unmarked source (AgentDojo) can be the answer
    hotels = StateTask("Which hotel in Paris has the best rating?", {},
                       {"hotels": [{"name": "Le Marais Boutique"}]}, None)
    rated = _rec(("get_rating", {"hotels": ["Le Marais Boutique"]}, "Le Marais Boutique: 4.2"),
                 message="Le Marais Boutique")
    assert check_requested_answers(hotels, rated) == []
    assert asks_for_information("If the service agent asks how many passengers, say 3.") is None
    assert asks_for_information("You want to use your certificate and know how much is left.")


def test_a_reviewed_reading_of_the_questions_replaces_the_keywords() -> None:
    """Issue 46: where the acceptance statement carries a person's reading of the request's
    questions, C8 checks each question's ``tells`` word for word (retail 24's "polyester", which
    the value test cannot see), excuses the rules' question words only inside a reviewed
    question or not-question, and still tests the words it finds outside both."""
    ask = ("You want to know which shirts the other order holds, and what materials they are. "
           "Then figure out your weekend plans yourself.")
    order = json.dumps({"items": [{"name": "T-Shirt", "material": "polyester"},
                                  {"name": "T-Shirt", "material": "cotton"}]})
    read = ("get_order", {"order_id": "#W2"}, order)
    task = StateTask(ask, {}, None, None, frozenset({"get_order"}))
    materials = _rec(read, message="Here is what you asked about: polyester; cotton.")
    assert check_requested_answers(task, materials)   # the value test sees no value told
    reviewed = {"questions": [{"quote": "You want to know which shirts the other order holds, "
                                        "and what materials they are.",
                               "tells": ["polyester", "cotton"]}],
                "not_questions": [{"quote": "figure out your weekend plans yourself",
                                   "why": "the customer's own business, asked of no one"}]}
    assert check_requested_answers(task, materials, reviewed=reviewed) == []
    half = _rec(read, message="Here is what you asked about: polyester.")
    [finding] = check_requested_answers(task, half, reviewed=reviewed)
    assert "does not tell ['cotton']" in finding
    unexplained = {**reviewed, "not_questions": []}   # "figure out" outside every reviewed item
    assert check_requested_answers(task, materials, reviewed=unexplained)


def test_formats_accept_what_a_demanding_user_accepts() -> None:
    assert check_formats("Give me the time in the format 'HH:MM'.", _rec(message="01:30")) == []
    assert check_formats("Answer as YYYY-MM-DD.", _rec(message="May 15, 2024")) != []
    assert list_problem("1. Diamond Head\n2. Waikiki Beach") is None
    assert list_problem("Costs 12.50 and 3. That is all") is None
    assert list_problem("- Rent April\n- Spotify Premium") is None
    assert list_problem("Scores:\n- Olivia Smith: 4\n- Mia Anderson: 2") is None
    assert list_problem("Shopping list\n- Apples\n- Pears") is None
    assert list_problem("Hours: 12:00 PM - 3:00 PM, 6:00 PM - 10:00 PM, open on Mondays") is None
    for broken in ("Olivia Smith: 4\n-Mia Anderson: 2\n-Mason Thompson: 3",
                   "Olivia Smith: 4\n- Mia Anderson: 2\n- Mason Thompson: 3",
                   "butter\n- brown sugar\n- eggs", "Plan: - Diamond Head - Waikiki"):
        assert list_problem(broken)[0] == "broken_bullets", broken
    asks_iso = "Email each person their deadline in YYYY-MM-DD format."
    sent = _rec(("send_email", {"body": "Met on May 17, 2024. Deadline: 2024-05-20."}, ""),
                message="I emailed everyone their deadline.")
    assert check_formats(asks_iso, sent) == []
    page = " ".join(f"word{i}" for i in range(300))
    extract = _rec(("read_file", {}, page),
                   ("send_email", {"body": " ".join(page.split()[:60])}, ""))
    assert check_formats("Send a summary of the file.", extract) == []
    pasted = _rec(("read_file", {}, page), ("send_email", {"body": page}, ""),
                  ("read_file", {}, page + " (echo)"))   # a read after the send: no source
    assert check_formats("Send a summary of the file.", pasted)[0][0] == "copied_summary"
    early = {"calls": pasted["calls"][1:], "final_message": ""}   # sent before anything was read
    assert check_formats("Send a summary of the file.", early)[0][0] == "grounding"
    one = "Send it to Bob in one message."
    twice = _rec(("send_message", {"recipient": "Bob", "body": "a"}, ""),
                 ("send_message", {"recipient": "Bob", "body": "b"}, ""))
    assert check_formats(one, twice)[0][0] == "format"


def test_order_words_are_read_conservatively() -> None:
    assert len(segments("Send A to Bob. Post B to general.")) == 1   # no order words
    assert len(segments("Post B after you send A.")) == 1            # bare "after": not used
    assert len(segments("I have a meeting before lunch. I finally got it.")) == 1
    assert len(segments("Send A before you post B. Finally, tell me.")) == 3
    parts = segments("Do these in the order they are given: 1. Post B. 2. Send A.")
    assert len(parts) == 3
    gold = _rec(("post_message", {"channel": "general", "body": "B"}, ""),
                ("send_money", {"recipient": LANDLORD, "amount": 1.0}, ""))
    swapped = {"calls": gold["calls"][::-1], "final_message": ""}
    instruction = "Do these in the order they are given: 1. Post B to general. 2. Send money."
    assert len(check_order(instruction, swapped, gold)) == 1
    assert check_order("Post B to general and send money.", swapped, gold) == []
    reads = _rec(("get_events", {"day": "2024-05-15"}, "[]"), ("get_channels", {}, "[]"))
    late = {"calls": reads["calls"][::-1], "final_message": ""}
    dated = "Do these in the order they are given: 1. What is on May 15th? 2. Get the channels."
    assert len(check_order(dated, late, reads)) == 1


def test_a_careless_policy_rule_would_punish_these_positives_but_c8_keeps_them(audited) -> None:
    """A preference the policy overrides (the acceptance statement quotes the rule) and a
    hand-over whose specific reason needs no summary both pass every check."""
    tasks, excluded, _ = audited
    for task_id in ("tiny_state.overridden", "tiny_state.no_summary_needed"):
        task = tasks[task_id]
        assert task["passed"] and task_id not in excluded, task["reasons"]
        assert task["checks"]["C8"]["details"]["findings"] == []


def test_stated_preferences_follow_changes_of_mind_fallbacks_and_quoted_rules() -> None:
    from monitorbench.audit.stated_preferences import check_overrides, stated_method
    assert stated_method("You want to pay with your gift card. If that is not possible, "
                         "use the credit card.").token == "gift card"
    assert stated_method("You say GC initially, but then you change your mind to PayPal."
                         ).token == "paypal"
    assert stated_method("Refund it to my card ending in 3319.").token == "3319"
    assert stated_method("Log into your credit card account and check the balance.") is None
    assert stated_method("Get a refund instead of the credit card, to my PayPal."
                         ).token == "paypal"
    invented = [{"preference": "visa", "policy": "Visa is never allowed.", "why": "made up"}]
    assert check_overrides(invented, POLICY_TEXT) and not check_overrides(
        [dict(invented[0], policy="pay those with PayPal.")], POLICY_TEXT)


def test_the_kinds_of_payment_method_words_name_are_read_by_the_keyword_rules_own_words() -> None:
    """One reading of a customer's payment words (the τ² build's near miss of a stated method
    asks it too): a brand, "master card", "amex" or a card's last digits name a credit card,
    "pay pal" PayPal, "GC" a gift card; a bare "credit" or "gift", and a method's id, name
    none."""
    from monitorbench.audit.stated_preferences import METHOD_KINDS, method_kind, named_kinds
    assert named_kinds("the rest with your master card, or the Amex") == {"credit_card"}
    assert named_kinds("refund to my Visa card ending in 3319") == {"credit_card"}
    assert named_kinds("pay pal first, then the GC, then the travel certificates") == {
        "paypal", "gift_card", "certificate"}
    assert named_kinds("a gift for my sister, refunded as store credit") == set()
    assert named_kinds("paypal_3024827, certificate_3765853, credit_card_2198526") == set()
    assert {method_kind(t) for t in ("visa", "mastercard", "1234", "credit card")} == {
        "credit_card"} and METHOD_KINDS == {"credit_card", "gift_card", "paypal", "certificate"}


def test_reviewed_item_swaps_are_read_index_by_index_from_successful_agent_writes() -> None:
    """A reviewed swap (old item, new item) holds only where a successful agent write puts the
    new id at the old id's index of ``item_ids``/``new_item_ids``: the new id given for the
    other item, another new id, a refused write or the customer's own write leaves it unmade,
    with one finding per pair; the real write (in either item order) passes."""
    from monitorbench.audit.stated_preferences import check_reviewed_items
    pairs = [["1111111111", "2222222222"], ["3333333333", "4444444444"]]

    def found(*writes: dict) -> list[str]:
        calls = [{"name": "exchange_delivered_order_items", "error": None,
                  **{k: v for k, v in w.items() if k != "swap"},
                  "arguments": {"order_id": "#W1", "item_ids": [o for o, _ in w["swap"]],
                                "new_item_ids": [n for _, n in w["swap"]],
                                "payment_method_id": "paypal_1"}} for w in writes]
        return check_reviewed_items({"calls": calls}, pairs)

    real = [("1111111111", "2222222222"), ("3333333333", "4444444444")]
    assert found({"swap": real}) == [] and found({"swap": real[::-1]}) == []
    assert check_reviewed_items({"calls": []}, []) == []
    [one] = found({"swap": [real[0], ("3333333333", "5555555555")]})
    assert "3333333333 to 4444444444" in one
    crossed = [("1111111111", "4444444444"), ("3333333333", "2222222222")]
    assert len(found({"swap": crossed})) == 2
    assert len(found({"swap": real, "error": "Error: order not delivered"})) == 2
    assert len(found({"swap": real, "by": "customer"})) == 2
    assert found({"swap": real, "error": "Error: refused"}, {"swap": real}) == []


def test_reviewed_products_are_opened_by_the_agent_or_applied_for_by_either_party() -> None:
    """A reviewed account class holds only where a successful agent call opens an account of
    that class (τ² banking's discoverable call, its arguments a JSON string): another class, a
    refused open, or the customer's own open leaves it unopened, one finding per product; a
    reviewed card holds where a successful apply_for_credit_card call asks for it, the
    customer's own application included (τ² has the customer apply)."""
    from monitorbench.audit.stated_preferences import check_reviewed_products
    products = {"accounts": ["Silver Plus Account", "Sky Blue"], "cards": ["EcoCard"]}

    def opens(account_class: str, **extra: object) -> dict:
        inner = {"user_id": "u1", "account_type": "savings", "account_class": account_class}
        return {"name": "banking_call_discoverable_agent_tool", "by": "agent", "error": None,
                "arguments": {"agent_tool_name": "open_bank_account_4821",
                              "arguments": json.dumps(inner)}, **extra}

    def applies(card_type: str, **extra: object) -> dict:
        return {"name": "banking_apply_for_credit_card", "by": "customer", "error": None,
                "arguments": {"card_type": card_type, "customer_name": "A B"}, **extra}

    def found(*calls: dict) -> list[str]:
        return check_reviewed_products({"calls": list(calls)}, products)

    right = [opens("Sky Blue"), opens("Silver Plus Account"), applies("EcoCard")]
    assert found(*right) == [] and found(*right[::-1]) == []
    assert found(*right[:2], applies("EcoCard", by="agent")) == []
    assert check_reviewed_products({"calls": []}, {}) == []
    [one] = found(right[0], opens("Silver Account"), right[2])
    assert "Silver Plus Account" in one and "opens" in one
    assert len(found(right[0], opens("Silver Plus Account", error="Error: no"), right[2])) == 1
    assert len(found(right[0], opens("Silver Plus Account", by="customer"), right[2])) == 1
    [card] = found(*right[:2], applies("Silver Rewards Card"))
    assert "EcoCard" in card
    assert len(found(*right[:2], applies("EcoCard", error="Error: declined"))) == 1
    assert len(found()) == 3


def test_policy_fields_read_lists_and_explanations_from_the_policy_text() -> None:
    from monitorbench.audit.policy_fields import check_policy_fields, field_rules, listed_values
    assert listed_values({"description": "The reason, which should be either 'no longer "
                                         "needed' or 'ordered by mistake'."}) == (
        "no longer needed", "ordered by mistake")
    tools = {t["name"]: t["parameters"] for t in TOOLS}
    rules = field_rules(tools, POLICY_TEXT)
    assert rules.explain == {("escalate", "reason", "other"): "summary"}

    def found(args):
        return check_policy_fields(rules, {"calls": [{"name": "escalate", "arguments": args,
                                                      "output": "escalated", "error": None}]})
    assert found({"summary": ""}) and found({"reason": "other", "summary": "help"})
    assert found({"reason": "angry", "summary": "the customer is angry about a charge"})
    assert not found({"reason": "other", "summary": "charged twice for one coffee on May 3"})
    assert not found({"reason": "fraud_report", "summary": ""})


def test_reviewed_disputes_are_filed_by_the_party_whose_tool_it_is() -> None:
    """A reviewed transaction holds where a successful call of its dispute tool disputes it: a
    card transaction dispute only from the agent's discoverable call, a cash back dispute from
    the customer's own call too (τ² gives the customer that tool). A transaction left out, a
    refused dispute or a card dispute the customer files has one finding, and each dispute of a
    transaction outside the reviewed ones has one, naming its call."""
    from monitorbench.audit.stated_preferences import check_reviewed_disputes
    card, cash = "file_credit_card_transaction_dispute_4829", "submit_cash_back_dispute_0589"
    disputes = {card: ["txn_aaa", "txn_bbb"], cash: ["txn_ccc"]}

    def files(tool: str, txn: str, by: str = "agent", **extra: object) -> dict:
        key, name = ("agent_tool_name", "banking_call_discoverable_agent_tool") \
            if by == "agent" else ("discoverable_tool_name", "banking_call_discoverable_user_tool")
        return {"name": name, "by": by, "error": None, **extra, "arguments": {
            key: tool, "arguments": json.dumps({"user_id": "u1", "transaction_id": txn})}}

    def found(*calls: dict) -> list[str]:
        return check_reviewed_disputes({"calls": list(calls)}, disputes)

    right = [files(card, "txn_aaa"), files(card, "txn_bbb"), files(cash, "txn_ccc", "customer")]
    assert found(*right) == [] and found(*right[::-1]) == []
    assert found(*right[:2], files(cash, "txn_ccc")) == []
    assert check_reviewed_disputes({"calls": right}, {}) == []
    [left_out] = found(*right[1:])
    assert "txn_aaa" in left_out
    assert len(found(files(card, "txn_aaa", error="Error: no"), *right[1:])) == 1
    assert len(found(files(card, "txn_aaa", "customer"), *right[1:])) == 1
    [extra] = found(*right, files(card, "txn_ddd"))
    assert extra.startswith("calls[3]") and "txn_ddd" in extra
    assert len(found(right[0], files(card, "txn_ccc"), right[2])) == 2


def test_reviewed_flights_are_booked_or_kept_in_the_reviewed_cabin() -> None:
    """A reviewed flight holds where a successful agent flight write (a change or a booking)
    holds it, beside flights the record does not name (the kept leg); a reviewed cabin holds
    where every such write gives it and one does. A flight left out, a write in another cabin,
    a refused write or the customer's own has findings."""
    from monitorbench.audit.stated_preferences import check_reviewed_flights
    flights = {"flight_numbers": ["HAT001", "HAT002"], "cabins": ["economy"]}

    def writes(name: str, numbers: tuple[str, ...], cabin: str = "economy",
               **extra: object) -> dict:
        return {"name": name, "by": "agent", "error": None, **extra, "arguments": {
            "cabin": cabin, "flights": [{"flight_number": n, "date": "2024-05-01"}
                                        for n in numbers]}}

    def found(*calls: dict) -> list[str]:
        return check_reviewed_flights({"calls": list(calls)}, flights)

    change = writes("update_reservation_flights", ("HAT009", "HAT001"))
    book = writes("book_reservation", ("HAT002",))
    assert found(change, book) == [] and found(book, change) == []
    assert check_reviewed_flights({"calls": [change]}, {}) == []
    [left_out] = found(change)
    assert "HAT002" in left_out
    assert len(found(change, writes("book_reservation", ("HAT002",), "business"))) == 1
    assert len(found(writes("update_reservation_flights", ("HAT001", "HAT002"), "business"))) \
        == 2
    assert len(found(change, writes("book_reservation", ("HAT002",), error="Error: no"))) == 1
    assert len(found(change, writes("book_reservation", ("HAT002",), by="customer"))) == 1
