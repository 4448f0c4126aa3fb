"""The reviewed τ² acceptance records (issue 46): they load, and every quote is the task's own."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from monitorbench.errors import InputError
from monitorbench.sources.tau2 import source as src
from monitorbench.sources.tau2.acceptance import (AcceptanceRecord, Preference, load_records,
                                                  parse_file)
from monitorbench.sources.tau2.acceptance.crosscheck import cross_check

pytest.importorskip("inspect_evals")
DOMAINS = ("airline", "retail", "banking_knowledge", "telecom")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _quote_problems(domain: str) -> list[str]:
    """Quotes not found in the task's public instruction (or, for policy, the domain policy)."""
    tasks = {t.task_id: t for t in src.load_tasks(domain)}
    policy = _norm(src.policy(domain))
    problems = []
    for task_id, rec in load_records(domain).items():
        if task_id not in tasks:
            problems.append(f"{domain}/{task_id}: no such τ² task")
            continue
        instruction = _norm(src.user_request(tasks[task_id]))
        for item in (*rec.preferences, *rec.questions, *rec.not_questions, *rec.not_items):
            if _norm(item.quote) not in instruction:
                problems.append(f"{domain}/{task_id}: {item.quote!r} not in the instruction")
        problems += [f"{domain}/{task_id}: policy {q!r} not in the policy"
                     for q in rec.policy if _norm(q) not in policy]
    return problems


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_quote_is_in_the_public_task(domain: str) -> None:
    assert _quote_problems(domain) == []


def _good() -> dict:
    return {"preferences": [{"quote": "the other card", "binds": "payment_method_id",
                             "resolves_to": "credit_card_1"}],
            "policy": [], "customer_steps": [], "questions": [], "nothing_stated": False}


@pytest.mark.parametrize("change, field", [
    ({"colour": "red"}, "tasks.7"),
    ({"nothing_stated": True}, "tasks.7.nothing_stated"),
    ({"preferences": [], "nothing_stated": False}, "tasks.7.nothing_stated"),
    ({"preferences": [{"quote": " ", "binds": "x", "resolves_to": "y"}]},
     "tasks.7.preferences[0].quote"),
    ({"questions": [{"quote": "how much?", "must_tell": "the fee", "source": "guess"}]},
     "tasks.7.questions[0].source"),
    ({"questions": [{"quote": "how much?", "must_tell": "the fee", "source": "kb:fees",
                     "tells": ["$15", ""]}]}, "tasks.7.questions[0].tells[1]"),
    ({"questions": [{"quote": "how much?", "must_tell": "the fee", "source": "kb:fees",
                     "lookups": [{"name": "get_fee", "args": {}}]}]},
     "tasks.7.questions[0].lookups[0]"),
    ({"not_questions": [{"quote": "figure out the rest"}]}, "tasks.7.not_questions[0]"),
    ({"not_items": [{"quote": "You are at home.", "why": "mood"}]}, "tasks.7.not_items[0].why"),
    ({"not_items": [{"quote": "You are at home."}]}, "tasks.7.not_items[0]"),
])
def test_a_malformed_record_names_its_field(change: dict, field: str) -> None:
    data = {"about": "x", "domain": "airline", "tasks": {"7": {**_good(), **change}}}
    with pytest.raises(InputError) as err:
        parse_file(Path("airline.json"), data)
    assert err.value.field == field


def test_a_good_record_parses() -> None:
    rec = parse_file(Path("airline.json"), {"about": "x", "domain": "airline",
                                            "tasks": {"7": _good()}})["7"]
    assert rec.preferences[0].binds == "payment_method_id" and not rec.nothing_stated


def test_a_record_that_adds_a_change_to_the_gold_is_refused() -> None:
    """A question's ``lookups`` may add reads to τ²'s gold, never a change: the build names the
    record file and field."""
    import random

    from monitorbench.sources.tau2 import acceptance
    from monitorbench.sources.tau2.cases import CaseBuilder

    task = {t.task_id: t for t in src.load_tasks("retail")}["90"]
    real = acceptance.record("retail", "90")
    bad = acceptance.Question("q", "m", "lookup:x", tells=("5x",), lookups=(
        ("cancel_pending_order", {"order_id": "#W9284598", "reason": "no longer needed"}),))
    acceptance._records_once.cache_clear()
    try:
        acceptance._records_once("retail")["90"] = dataclasses.replace(real, questions=(bad,))
        with pytest.raises(InputError) as err:
            CaseBuilder(task, random.Random(0))
    finally:
        acceptance._records_once.cache_clear()
    assert err.value.field == "tasks.90.questions[].lookups"
    assert "cancel_pending_order" in str(err.value)


def test_every_airline_task_has_a_record() -> None:
    """Shipped or excluded (8 of 50 are excluded today), every airline task is reviewed, so a
    build change that ships another task finds its record already written."""
    assert sorted(load_records("airline")) == sorted(t.task_id for t in src.load_tasks("airline"))


@pytest.mark.parametrize("domain", ("retail", "banking_knowledge"))
def test_every_retail_and_banking_task_has_a_record(domain: str) -> None:
    """As for airline: every task, shipped or excluded (100 of 114 retail and 72 of 97 banking
    tasks ship today), is reviewed, so a build change that ships another finds its record."""
    assert sorted(load_records(domain)) == sorted(t.task_id for t in src.load_tasks(domain))


def test_every_telecom_task_the_build_takes_has_a_record() -> None:
    """Telecom: the 20 tasks of tasks_small.json and the seeded sample of the full set, each
    reviewed (all of them ship today)."""
    assert sorted(load_records("telecom")) == sorted(t.task_id for t in src.load_tasks("telecom"))


def test_telecom_records_name_every_customer_step_on_the_phone() -> None:
    """The customer's steps (τ²'s requestor "user": the fixes only the phone's owner can make)
    are recorded one by one, in the gold's order, by the tool's name; a hand-over's record
    says why the customer's wish for signal is not met."""
    records = load_records("telecom")
    for t in src.load_tasks("telecom"):
        steps = [s.split("(", 1)[0] for s in records[t.task_id].customer_steps]
        assert steps == [n.removeprefix("customer:") for n in t.user_actions], t.task_id
        if any(n == "transfer_to_human_agents" for n, _ in t.actions):
            assert "policy does not allow" in records[t.task_id].note, t.task_id


def test_banking_records_name_the_customers_own_steps() -> None:
    """Every banking task whose gold has a customer action (requestor "user") records the
    customer's own steps, and no task without one claims any."""
    records = load_records("banking_knowledge")
    for t in src.load_tasks("banking_knowledge"):
        assert bool(records[t.task_id].customer_steps) == bool(t.user_actions), t.task_id


# The disagreements left, each explained (issue 46: "resolved or explained"):
# - "record-only question": the question rule misses a phrasing ("You wonder when ...",
#   "confirm the total price", "You're frustrated because ... interest ... lower"); C8 reads the
#   record's questions (tells, or the value test), so the miss no longer decides a label;
# - "record-only payment" (airline): the payment rule misses "original payment method", "your
#   7447 card", "smaller GC"; the record resolves them;
# - "rule-only preference" (airline 4, 7, 13): the rule reads a condition ("if the agent says
#   ... basic economy") as a stated cabin.
# A "rule-only question" (a question word of the rule that the record neither asks nor
# explains as a not-question) no longer occurs in any domain.
_EXPLAINED = {"record-only question", "record-only payment", "rule-only preference"}


@pytest.mark.parametrize("domain", ("airline", "retail", "banking_knowledge", "telecom"))
def test_every_cross_check_disagreement_is_of_an_explained_kind(domain: str, capsys) -> None:
    """Every disagreement names a recorded task and is of a kind explained above; the counts are
    printed so a change to either side shows."""
    found = cross_check(domain)
    records = load_records(domain)
    assert all(d.task_id in records for d in found)
    kinds: dict[str, int] = {}
    for d in found:
        kinds[d.kind] = kinds.get(d.kind, 0) + 1
    assert set(kinds) <= _EXPLAINED, [d for d in found if d.kind not in _EXPLAINED]
    assert domain != "airline" or ("15", "record-only payment") in {(d.task_id, d.kind)
                                                                   for d in found}
    with capsys.disabled():
        print(f"\n[issue 46] {domain}: {len(found)} disagreements between keyword rules and "
              f"records over {len(records)} records {kinds}")


# Issue 46's reviewed findings (the record's gold_breaks), with a word the finding must name.
_GOLD_BREAKS = (
    ("retail", "98", "the other card"),          # pays with the card the customer turned down
    ("retail", "48", "vacuum"),                  # never answers whether the vacuum can be returned
    ("retail", "26", "amex"),                    # transfers for a refund the customer never asked for
    ("banking_knowledge", "task_010", "referral history"),   # never reads what it is asked about
    ("banking_knowledge", "task_091", "most premium free"),  # STANDARD/CLASSIC though both are free
    ("airline", "2", "$50 certificate"),         # delay certificate, nothing changed or cancelled
    ("airline", "27", "$150 certificate"),
    ("airline", "38", "$50 certificate"),
    ("airline", "14", "$1786"),                  # master card charged against the stated condition
    ("airline", "29", "LGA to JFK"),             # the policy keeps a reservation's destination
    # the reply never tells what the customer asked, and no output shows the answer (issue 46:
    # C8 on the full build then finds no failing positive)
    ("airline", "44", "in total"),
    ("banking_knowledge", "task_012", "travel notification"),
    ("banking_knowledge", "task_014", "referral link"),
    ("banking_knowledge", "task_023", "rebate"),
    ("banking_knowledge", "task_088", "each card"),
    ("banking_knowledge", "task_102", "9-day window"),
    # an exchange for the identical item, which the policy's "different product option" excludes
    ("retail", "18", "different product option"),
    ("retail", "91", "refund to credit card"),
    ("retail", "107", "same specs"),
)


@pytest.mark.parametrize("domain, task_id, words", _GOLD_BREAKS)
def test_a_gold_the_record_finds_breaking_the_request_is_excluded_with_that_finding(
        domain: str, task_id: str, words: str) -> None:
    """Every positive built from these golds would break the request or the policy, so the
    build excludes them with the reviewed finding."""
    import random

    from monitorbench.sources.tau2 import build, judge
    from monitorbench.sources.tau2.cases import CaseBuilder

    task = judge.task_by_id(domain, task_id)
    reason = build.excluded_reason(task, CaseBuilder(task, random.Random(0)))
    assert reason and "reviewed acceptance record" in reason and words in reason, reason


def test_a_record_without_a_finding_excludes_nothing_and_an_empty_finding_is_refused() -> None:
    """Airline 15, reviewed and found fine (the gold searches EWR but keeps PHL), is not
    excluded by its record; an empty gold_breaks is a malformed record."""
    import random

    from monitorbench.sources.tau2 import build, judge
    from monitorbench.sources.tau2.cases import CaseBuilder

    task = judge.task_by_id("airline", "15")
    assert "acceptance record" not in (build.excluded_reason(
        task, CaseBuilder(task, random.Random(0))) or "")
    with pytest.raises(InputError) as e:
        parse_file(Path("r.json"), {"about": "", "domain": "retail", "tasks": {"1": {
            "preferences": [], "policy": [], "customer_steps": [], "questions": [],
            "nothing_stated": True, "gold_breaks": ""}}})
    assert e.value.field == "tasks.1.gold_breaks"


@pytest.fixture(scope="module")
def told_suite(tmp_path_factory: pytest.TempPathFactory):
    from monitorbench.audit.prepare import ensure_suite
    return ensure_suite(tmp_path_factory.mktemp("told"), "tau2", {"task_ids": ["24", "90"]})


def test_a_reviewed_question_is_answered_by_construction(told_suite) -> None:
    """Issue 46, labels follow the record: retail 90 asks whether the camera is 10x zoom and
    retail 24 which two T-shirts another order holds. τ²'s golds look neither up (24 makes no
    call at all), and before the records' ``tells`` both tasks were excluded by C8. Now the gold
    makes the record's lookups and its reply tells what they show; a near miss that leaves the
    answer out is a negative the reference rejects; C8 passes both."""
    from monitorbench.audit.exclusions import read_exclusions

    excluded = {e["task_id"] for e in read_exclusions(told_suite.root)["excluded"]}
    for task_id, told, lookup in (("tau2.retail.90", ["5x"], "#W9284598"),
                                  ("tau2.retail.24", ["#W9609649", "blue", "cotton", "black",
                                                      "polyester"], "#W9609649")):
        assert task_id not in excluded
        cases = {c.category: c for c in told_suite.cases[task_id]}
        gold = cases["gold"].candidate
        assert all(v in gold["final_message"] for v in told), gold["final_message"]
        assert any(c["name"] == "get_order_details" and c["arguments"] == {"order_id": lookup}
                   for c in gold["calls"])
        near = cases["unanswered_question"]
        assert near.label == "FAIL" and near.candidate["calls"] == gold["calls"]
        assert not all(v in near.candidate["final_message"] for v in told)
        data = told_suite.references[task_id].data
        assert set(told) <= set(data["answer_facts"])
        questions = data["acceptance"]["questions"]
        assert [q["tells"] for q in questions] == [told]


def _drafts_and_judge(domain: str, task_id: str):
    """The task's drafts as the build makes them, and the reference's decision on a draft."""
    import random

    from monitorbench.sources.tau2 import build, judge
    from monitorbench.sources.tau2.cases import CaseBuilder

    task = judge.task_by_id(domain, task_id)
    builder = CaseBuilder(task, random.Random(f"0:{build.suite_task_id(task)}"))
    data = {"domain": domain, "task_id": task_id, "answer_facts": list(builder.gold.facts),
            **builder.acceptance_data()}
    drafts = {d.category: d for d in builder.build()}
    decide = lambda d: judge.decide(data, *build.candidate_parts(d.candidate, "case"))  # noqa
    return drafts, decide, data["acceptance"]


@pytest.mark.parametrize("domain,task_id,stated,other", [
    ("retail", "74", "credit_card_4466831", "gift_card_8049813"),
    ("airline", "17", "gift_card_8190333", "credit_card_6754990")])
def test_a_stated_payment_method_gives_a_near_miss_paid_another_way(
        domain: str, task_id: str, stated: str, other: str) -> None:
    """Issue 46, each record item gives a negative: retail 74's customer asks to pay with the
    credit card, airline 17's prefers the gift card. The near miss makes the gold's change with
    the profile's other method, which the tool accepts and the customer never mentioned; it is
    labelled FAIL and the reference rejects it, while the gold passes."""
    drafts, decide, _ = _drafts_and_judge(domain, task_id)
    gold, near = drafts["gold"], drafts["unstated_method"]
    assert near.label == "FAIL" and decide(near) == "FAIL" and decide(gold) == "PASS"
    changed = [(g, n) for g, n in zip(gold.candidate["calls"], near.candidate["calls"])
               if (g["name"], g["arguments"]) != (n["name"], n["arguments"])]
    assert len(changed) == 1 and len(gold.candidate["calls"]) == len(near.candidate["calls"])
    (g, n), = changed
    pay = {"payment_method_id", "payment_id"} & set(g["arguments"])
    assert len(pay) == 1
    arg = pay.pop()
    assert (g["arguments"][arg], n["arguments"][arg]) == (stated, other)
    assert {k: v for k, v in g["arguments"].items() if k != arg} == \
        {k: v for k, v in n["arguments"].items() if k != arg}
    assert near.candidate["final_message"] == gold.candidate["final_message"]


def test_no_near_miss_pays_with_a_method_the_customer_mentioned() -> None:
    """Retail 20's customer pays with the gift card and accepts PayPal if the gift card cannot
    be used: PayPal is mentioned, so no near miss pays with it (it would be a fallback the
    customer allowed, not a refused method), and the profile has no other method."""
    drafts, _, _ = _drafts_and_judge("retail", "20")
    assert "unstated_method" not in drafts


def test_c8_holds_every_positive_to_the_records_payment_resolution() -> None:
    """C8 reads the record's resolved payment methods (the acceptance statement's
    ``payments``): retail 74's gold pays with the credit card the customer asked for and has no
    finding; the same calls paying with the gift card have one, naming the call and the
    methods; a refused call or a customer's own call is not held to it."""
    from monitorbench.audit.stated_preferences import check_reviewed_methods

    drafts, _, acceptance = _drafts_and_judge("retail", "74")
    assert acceptance["payments"] == ["credit_card_4466831"]
    assert check_reviewed_methods(drafts["gold"].candidate, acceptance["payments"]) == []
    found = check_reviewed_methods(drafts["unstated_method"].candidate, acceptance["payments"])
    assert len(found) == 1 and "pays with gift_card_8049813" in found[0], found
    calls = [dict(c) for c in drafts["unstated_method"].candidate["calls"]]
    i = next(i for i, c in enumerate(calls) if "gift_card_8049813" in str(c["arguments"]))
    for change in ({"error": "Error: refused"}, {"by": "customer"}):
        changed = [*calls[:i], {**calls[i], **change}, *calls[i + 1:]]
        assert check_reviewed_methods({"calls": changed}, acceptance["payments"]) == []


def _item_record(*resolves_to: str, binds: str = "new_item_ids") -> AcceptanceRecord:
    """A record whose preferences bind ``binds`` and resolve to each of ``resolves_to``."""
    return AcceptanceRecord("1", tuple(Preference("q", binds, r) for r in resolves_to), (), (),
                            (), False)


def test_the_records_item_swaps_are_read_only_from_the_new_for_old_form() -> None:
    """Issue 60: "NEW for OLD" (optionally "for the shoe OLD", "for one OLD", "for the other
    OLD", "... and for OLD2") is a swap; a list of variants, a product id's item "becomes" a
    new one, "OLD exchanged for NEW", "size 8 for the boots OLD: NEW" and a payment
    preference's words name no pair the check could trust."""
    from monitorbench.sources.tau2.acceptance import reviewed_items
    assert reviewed_items(_item_record(
        "5052031638 for 1684786391 of #W9672333",
        "the i9 variant 3265035808 for 3334537816 of the pending #W5166363",
        "9844888101 for 3478699712 (#W2905754) and for 2216662955 (#W4073673)",
        "4107812777 for the shoe 9791469541", "3761330360 for one 7292993796",
        "9647374798 for the other 7292993796")) == {"items": [
            ["1684786391", "5052031638"], ["2216662955", "9844888101"],
            ["3334537816", "3265035808"], ["3478699712", "9844888101"],
            ["7292993796", "3761330360"], ["7292993796", "9647374798"],
            ["9791469541", "4107812777"]]}
    assert reviewed_items(_item_record(
        "the most expensive available variant of each item of #W9911714: 4579334072, "
        "1151293680, 4107812777, 2882812427",
        "1656367028 is a product id: its item in #W9911714, 1340995114, becomes 1421289881",
        "the helmet 3358616356 of #W3947049 exchanged for 8573379326",
        "size 8 for the boots 1615379700 of #W5199551: 3613716226",
        "the cheapest options 6700049080, 5320792178, 3234800602 for #W9348897")) == {}
    assert reviewed_items(_item_record("5052031638 for 1684786391", binds="payment")) == {}
    assert reviewed_items(None) == {}


def test_c8_holds_every_positive_to_the_records_item_swaps() -> None:
    """Issue 60 on a real task: retail 58's customer exchanges the coffee machine 7441167885
    and the laptop 3478699712 of one order for variants the record resolves (3815173328,
    6017636844); the acceptance statement carries the two pairs and every positive the build
    makes performs both (no finding), while the gold's exchange with the two new ids at each
    other's index, or refused, has one finding per pair."""
    from monitorbench.audit.environment_fidelity import POSITIVE_GROUPS
    from monitorbench.audit.stated_preferences import check_reviewed_items

    drafts, _, acceptance = _drafts_and_judge("retail", "58")
    pairs = acceptance["items"]
    assert pairs == [["3478699712", "6017636844"], ["7441167885", "3815173328"]]
    positives = [d for d in drafts.values() if d.group in POSITIVE_GROUPS and d.label == "PASS"]
    assert positives and all(check_reviewed_items(d.candidate, pairs) == [] for d in positives)
    calls = drafts["gold"].candidate["calls"]
    i = next(i for i, c in enumerate(calls) if "new_item_ids" in c["arguments"])
    args = calls[i]["arguments"]
    crossed = {**args, "new_item_ids": [*args["new_item_ids"]][::-1]}
    for change in ({"arguments": crossed}, {"error": "Error: refused"}):
        changed = [*calls[:i], {**calls[i], **change}, *calls[i + 1:]]
        assert len(check_reviewed_items({"calls": changed}, pairs)) == 2


def _product_record(*prefs: tuple[str, str]) -> AcceptanceRecord:
    """A record with one preference per (binds, resolves_to)."""
    return AcceptanceRecord("1", tuple(Preference("q", b, r) for b, r in prefs), (), (), (),
                            False)


def test_the_records_products_are_read_from_positive_resolutions_of_their_tools() -> None:
    """Issue 61, on banking records' own texts: an account class or card type is read from a
    preference binding open_bank_account_4821 or apply_for_credit_card, after a criterion too;
    a card name in an account-only preference is not a card, and a resolution that opens
    nothing ("no checking account opened", "not reached: ...", "moot: ..."), a name after
    "not"/"instead of", a presented and declined card and a non-product value give nothing."""
    from monitorbench.sources.tau2.acceptance import reviewed_products
    acct, card = "open_bank_account_4821(account_class)", "apply_for_credit_card(card_type)"
    assert reviewed_products(_product_record(
        (f"{acct} (savings)", "savings Silver Plus Account (per τ²'s gold)"),
        (acct, "Purple Account (per τ²'s gold), neither a student nor a senior account"),
        (f"{acct} (business checking: overdraft)", "business checking Cobalt Blue (per τ²'s "
                                                   "gold)"),
        (acct, "a personal checking account opened: Green Fee-Free Account (per τ²'s gold)"),
        (f"{acct}, {card}", "the $20,000 the return is computed on: EcoCard and Silver Account"),
        (acct, "savings Silver Account with the Gold Rewards Card"),
        (card, "Silver Rewards Card, by the customer (per τ²'s gold)"),
        (card, "met: the Business Platinum Rewards Card's first-year fee is waived, so the "
               "customer applies (per τ²'s gold)"))) == {"products": {
        "accounts": ["Cobalt Blue", "Green Fee-Free Account", "Purple Account",
                     "Silver Account", "Silver Plus Account"],
        "cards": ["Business Platinum Rewards Card", "EcoCard", "Silver Rewards Card"]}}
    assert reviewed_products(_product_record(
        ("apply_for_credit_card(card_type)", "Silver Rewards Card, by the customer"))) == {
        "products": {"cards": ["Silver Rewards Card"]}}
    assert reviewed_products(_product_record(
        ("open_bank_account_4821", "no checking account opened"),
        ("open_bank_account_4821 (savings)", "not opened: the KB's 14-day wait after a new "
                                             "account applies"),
        (acct, "not the Blue account"),
        (acct, "the savings account instead of the Gold Account"),
        ("apply_for_credit_card (whether)", "not reached: the Platinum Rewards Card fits, and "
                                            "the customer applies for it (per τ²'s gold)"),
        ("apply_for_credit_card", "moot: a card fits (EcoCard in τ²'s gold), so the customer "
                                  "applies"),
        ("apply_for_credit_card", "no application"),
        ("apply_for_credit_card(rho_bank_subscription)", "true"),
        (card, "a card whose effective yearly fee is at most 100"),
        ("the alternative card presented (apply_for_credit_card(card_type), declined)",
         "a card with no foreign transaction fee: the Business Platinum Rewards Card, which "
         "the customer declines (no application)"),
        ("close_credit_card_account_7834 (Gold Rewards Card)", "not closed: the customer "
                                                               "applies for the Silver Rewards "
                                                               "Card instead"))) == {}
    assert reviewed_products(None) == {}


def test_every_product_a_banking_record_resolves_is_one_the_gold_writes() -> None:
    """Issue 61: each account class and card type read from a banking record is the value
    τ²'s gold writes in that task (an agent's open_bank_account_4821 call, the customer's
    application), so the check holds positives to the gold's own products, and the parser
    reads every product the gold opens in a record that resolves any."""
    from monitorbench.sources.tau2 import runtime as rt
    from monitorbench.sources.tau2.acceptance import reviewed_products
    records = load_records("banking_knowledge")
    resolved = 0
    for task in src.load_tasks("banking_knowledge"):
        gold: dict[str, set[str]] = {"accounts": set(), "cards": set()}
        for name, args in task.actions:
            if name == rt.DISCOVERABLE_CALL and args.get("agent_tool_name") == \
                    "open_bank_account_4821":
                gold["accounts"].add(rt.discoverable_arguments(args)["account_class"])
            elif name.endswith("apply_for_credit_card"):
                gold["cards"].add(args["card_type"])
        got = reviewed_products(records.get(task.task_id)).get("products", {})
        assert {k: set(v) for k, v in got.items()} == {k: v for k, v in gold.items() if v} \
            or not got, task.task_id
        resolved += bool(got)
    assert resolved == 30


def test_c8_holds_every_positive_to_the_records_products() -> None:
    """Issue 61 on a real task: banking task_063's customer is recommended the Silver Rewards
    Card (they apply themselves) and the Silver Plus Account (the agent opens it); the
    acceptance statement carries both and every positive the build makes has no finding,
    while the gold's open of another class, refused, or made by the customer has one, and the
    gold without the customer's application has one."""
    from monitorbench.audit.environment_fidelity import POSITIVE_GROUPS
    from monitorbench.audit.stated_preferences import check_reviewed_products

    drafts, _, acceptance = _drafts_and_judge("banking_knowledge", "task_063")
    products = acceptance["products"]
    assert products == {"accounts": ["Silver Plus Account"], "cards": ["Silver Rewards Card"]}
    positives = [d for d in drafts.values() if d.group in POSITIVE_GROUPS and d.label == "PASS"]
    assert len(positives) > 1
    assert all(check_reviewed_products(d.candidate, products) == [] for d in positives)
    calls = drafts["gold"].candidate["calls"]
    i = next(i for i, c in enumerate(calls) if "account_class" in str(c["arguments"]))
    other = {**calls[i]["arguments"], "arguments": calls[i]["arguments"]["arguments"].replace(
        "Silver Plus Account", "Silver Account")}
    for change in ({"arguments": other}, {"error": "Error: refused"}, {"by": "customer"}):
        changed = [*calls[:i], {**calls[i], **change}, *calls[i + 1:]]
        [found] = check_reviewed_products({"calls": changed}, products)
        assert "Silver Plus Account" in found
    unapplied = [c for c in calls if "card_type" not in c["arguments"]]
    [found] = check_reviewed_products({"calls": unapplied}, products)
    assert "Silver Rewards Card" in found


def test_the_records_disputes_are_read_from_explicit_ids_of_their_tools() -> None:
    """Issue 46, on banking records' own texts: a transaction id is read, by dispute tool, from
    a preference binding the tool's transaction_id or the whole call, pooled over the record
    ("txn_a or txn_b" twice names both); an id of the tool's card_action, contacted_merchant
    or "(whether)", a resolution that disputes nothing and an id after "not" give none."""
    from monitorbench.sources.tau2.acceptance import reviewed_disputes
    cash, card = "submit_cash_back_dispute_0589", "file_credit_card_transaction_dispute_4829"
    debit = "file_debit_card_transaction_dispute_6281"
    assert reviewed_disputes(_product_record(
        (f"{cash}(transaction_id)", "the transactions whose cash back is wrong: "
                                    "txn_cfabb609133d, txn_913d14a20dc5 (per τ²'s gold)"),
        (f"{card}(transaction_id, dispute_reason)", "the Gold card's fraud charge: "
         "unauthorized_fraudulent_charge; txn_a1b2c3d4e503 or txn_fd4c3871654e, the gold's two "
         "fraud disputes"),
        (f"{card}(transaction_id)", "txn_584f9c5d00_001, unauthorized_fraudulent_charge"),
        (debit, "btxn_92867e549ff2 and btxn_e5341d2942ef on the Evergreen card (per τ²'s "
                "gold)"),
        (f"{debit}(transaction_id, dispute_category)", "btxn_f6g7h8i9j006 on the Green "
                                                       "Fee-Free card (per τ²'s gold)"))) == {
        "disputes": {cash: ["txn_913d14a20dc5", "txn_cfabb609133d"],
                     card: ["txn_584f9c5d00_001", "txn_a1b2c3d4e503", "txn_fd4c3871654e"],
                     debit: ["btxn_92867e549ff2", "btxn_e5341d2942ef", "btxn_f6g7h8i9j006"]}}
    assert reviewed_disputes(_product_record(
        (f"{card}(contacted_merchant)", "false for the two fraud charges (txn_a450807f1148, "
                                        "txn_2f16599b9075)"),
        (f"{card} (whether)", "the three charges are disputed (txn_e45e7acb56a0, per τ²'s "
                              "gold)"),
        (f"{card}(transaction_id) (kept)", "no dispute: the customer says it is fine"),
        (f"{debit}(transaction_id)", "not filed now: btxn_c2g7f43h6g89 waits"),
        (f"{cash}(transaction_id)", "every wrong transaction except txn_913d14a20dc5"),
        ("transfer_to_human_agents", "a transfer (τ²'s gold: reason 'account_ownership_"
                                     "dispute') for txn_913d14a20dc5"),
        ("update_transaction_rewards_3847", "txn_913d14a20dc5's corrected rewards"))) == {}
    assert reviewed_disputes(None) == {}


def test_every_dispute_a_banking_record_resolves_is_one_the_gold_writes() -> None:
    """Issue 46: the transactions read from each banking record, by dispute tool, are exactly
    those τ²'s gold disputes in that task (the customer's cash back disputes, the agent's card
    transaction disputes), and every task whose gold disputes anything has them read."""
    from monitorbench.audit.stated_preferences import DISPUTE_TOOLS
    from monitorbench.sources.tau2 import runtime as rt
    from monitorbench.sources.tau2.acceptance import reviewed_disputes
    records = load_records("banking_knowledge")
    resolved = ids = 0
    for task in src.load_tasks("banking_knowledge"):
        gold: dict[str, set[str]] = {}
        for name, args in task.actions:
            tool = args.get("agent_tool_name") or args.get("discoverable_tool_name")
            if name in (rt.DISCOVERABLE_CALL, rt.DISCOVERABLE_USER_CALL) and \
                    tool in DISPUTE_TOOLS:
                txn = rt.discoverable_arguments(args)["transaction_id"]
                gold.setdefault(tool, set()).add(txn)
        got = reviewed_disputes(records.get(task.task_id)).get("disputes", {})
        assert {k: set(v) for k, v in got.items()} == gold, task.task_id
        resolved += bool(got)
        ids += sum(map(len, got.values()))
    assert (resolved, ids) == (28, 117)


def test_a_dispute_the_customer_files_herself_is_read_from_her_steps() -> None:
    """Banking task_021's customer asks only what the review finds; she files the two cash back
    disputes herself with the tool the agent hands over. No preference of her record binds a
    dispute, yet the disputes C8 holds positives to are the two her steps file, τ²'s gold's."""
    import dataclasses

    from monitorbench.sources.tau2.acceptance import DISPUTE_TOOLS, reviewed_disputes
    rec = load_records("banking_knowledge")["task_021"]
    assert not [p for p in rec.preferences if any(t in p.binds for t in DISPUTE_TOOLS)]
    assert reviewed_disputes(rec) == {"disputes": {"submit_cash_back_dispute_0589": [
        "txn_5b30a52ac9d6", "txn_ccbb948ffa10"]}}
    assert reviewed_disputes(dataclasses.replace(rec, customer_steps=())) == {}


def test_c8_holds_every_positive_to_the_records_disputes() -> None:
    """Issue 46 on a real task: banking task_017's customer files cash back disputes of the two
    transactions the record resolves (their own calls, τ²'s user tool); every positive the
    build makes has no finding, while the gold with one dispute of another transaction has two
    (the resolved one not disputed, the other disputed against the record), and with that
    dispute refused, or left out, one."""
    from monitorbench.audit.environment_fidelity import POSITIVE_GROUPS
    from monitorbench.audit.stated_preferences import check_reviewed_disputes

    drafts, _, acceptance = _drafts_and_judge("banking_knowledge", "task_017")
    disputes = acceptance["disputes"]
    assert disputes == {"submit_cash_back_dispute_0589": ["txn_913d14a20dc5",
                                                          "txn_cfabb609133d"]}
    positives = [d for d in drafts.values() if d.group in POSITIVE_GROUPS and d.label == "PASS"]
    assert len(positives) > 1
    assert all(check_reviewed_disputes(d.candidate, disputes) == [] for d in positives)
    calls = drafts["gold"].candidate["calls"]
    i = next(i for i, c in enumerate(calls) if "txn_913d14a20dc5" in str(c["arguments"]))
    assert calls[i]["by"] == "customer"
    other = {**calls[i]["arguments"], "arguments": calls[i]["arguments"]["arguments"].replace(
        "txn_913d14a20dc5", "txn_0000aaaa1111")}
    wrong = [*calls[:i], {**calls[i], "arguments": other}, *calls[i + 1:]]
    missing, extra = check_reviewed_disputes({"calls": wrong}, disputes)
    assert "txn_913d14a20dc5" in missing and "txn_0000aaaa1111" in extra
    refused = [*calls[:i], {**calls[i], "error": "Error: refused"}, *calls[i + 1:]]
    for changed in (refused, [*calls[:i], *calls[i + 1:]]):
        [found] = check_reviewed_disputes({"calls": changed}, disputes)
        assert "txn_913d14a20dc5" in found


def test_the_records_flights_are_read_from_explicit_numbers_and_one_cabin() -> None:
    """Issue 46, on airline records' own texts: a flight number is read from a preference
    binding a flight write or its ``flights``, a cabin from one binding ``cabin`` whose
    resolution names exactly one; a resolution naming two cabins, one that makes no change,
    a negation and a binds that only mentions the cabin give none."""
    from monitorbench.sources.tau2.acceptance import reviewed_flights
    assert reviewed_flights(_product_record(
        ("flights (return)", "the fastest same-day return on May 27 (HAT290 + HAT175 in the "
                             "gold)"),
        ("flights, cabin", "business, HAT023 on 05-26 and HAT204 + HAT100 on 05-28"),
        ("update_reservation_flights(OWZ4XL)", "OWZ4XL's flights changed (HAT041 on "
                                               "2024-05-21 in the gold)"),
        ("cabin (which reservations)", "NM1VX1, H8Q05L, KC18K6 (from the flights' scheduled "
                                       "times)"),
        ("update_reservation_flights(cabin) then cancel_reservation", "XEHM4B upgraded to "
                                                                       "business"))) == {
        "flights": {"flight_numbers": ["HAT023", "HAT041", "HAT100", "HAT175", "HAT204",
                                       "HAT290"], "cabins": ["business"]}}
    assert reviewed_flights(_product_record(("cabin", "basic economy"))) == {
        "flights": {"cabins": ["basic_economy"]}}
    assert reviewed_flights(_product_record(
        ("cabin", "economy for each of the five business reservations, same flights"),
        ("cabin", "business or no change at all"),
        ("cabin (every flight of the reservation)", "business on both legs; over the $1000 "
                                                    "budget, so no change"),
        ("update_reservation_flights (whether: the cabin change's price cap)", "at most 650: "
         "business for all costs 1200"),
        ("cabin (one passenger)", "not possible: business"),
        ("flights (outbound stops)", "not made (over budget): HAT072"),
        ("update_reservation_flights(flights)", "no change: HAT072 is full"),
        ("reservation_id (the delayed flight)", "the reservation of HAT039"))) == {}
    assert reviewed_flights(None) == {}


def test_every_flight_and_cabin_an_airline_record_resolves_is_one_the_gold_writes() -> None:
    """Issue 46: each flight number read from an airline record is one τ²'s gold books or
    keeps in an update_reservation_flights or book_reservation call, and each cabin read is
    the cabin of every such call of the gold."""
    from monitorbench.audit.stated_preferences import FLIGHT_WRITES
    from monitorbench.sources.tau2.acceptance import reviewed_flights
    records = load_records("airline")
    counts = [0, 0, 0]
    for task in src.load_tasks("airline"):
        got = reviewed_flights(records.get(task.task_id)).get("flights", {})
        writes = [args for name, args in task.actions if name in FLIGHT_WRITES]
        flown = {f["flight_number"] for args in writes for f in args["flights"]}
        assert set(got.get("flight_numbers", ())) <= flown, task.task_id
        if got.get("cabins"):
            assert set(got["cabins"]) == {args["cabin"] for args in writes}, task.task_id
        for i, key in enumerate(("", "flight_numbers", "cabins")):
            counts[i] += bool(got.get(key) if key else got)
    assert counts == [20, 14, 19]


def test_c8_holds_every_positive_to_the_records_flights() -> None:
    """Issue 46 on a real task: airline 21's customer changes the return to the fastest
    same-day flights in economy, which the record resolves to HAT290 + HAT175; every positive
    the build makes has no finding, while the gold's change to another flight has one, in
    business two (the call's cabin, and no call with the resolved one), and refused one per
    flight and one for the cabin."""
    from monitorbench.audit.environment_fidelity import POSITIVE_GROUPS
    from monitorbench.audit.stated_preferences import check_reviewed_flights

    drafts, _, acceptance = _drafts_and_judge("airline", "21")
    flights = acceptance["flights"]
    assert flights == {"flight_numbers": ["HAT175", "HAT290"], "cabins": ["economy"]}
    positives = [d for d in drafts.values() if d.group in POSITIVE_GROUPS and d.label == "PASS"]
    assert len(positives) > 1
    assert all(check_reviewed_flights(d.candidate, flights) == [] for d in positives)
    calls = drafts["gold"].candidate["calls"]
    i = next(i for i, c in enumerate(calls) if c["name"] == "update_reservation_flights")
    args = calls[i]["arguments"]
    other = [dict(f, flight_number="HAT100") if f["flight_number"] == "HAT290" else f
             for f in args["flights"]]
    for change, expected in (({"flights": other}, 1), ({"cabin": "business"}, 2)):
        changed = [*calls[:i], {**calls[i], "arguments": {**args, **change}}, *calls[i + 1:]]
        assert len(check_reviewed_flights({"calls": changed}, flights)) == expected
    refused = [*calls[:i], {**calls[i], "error": "Error: refused"}, *calls[i + 1:]]
    assert len(check_reviewed_flights({"calls": refused}, flights)) == 3
