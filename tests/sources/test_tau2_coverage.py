"""Sentence coverage of the τ² banking briefs (issue 46, GUIDE.md "Coverage (banking)"): the
brief splits into sentences mechanically, a record's quotes cover them, the categories of
not-items are a closed set, and the eleventh blind pass (banking only) asks its reader for
coverage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitorbench.errors import InputError
from monitorbench.sources.tau2.acceptance import (NOT_ITEM_CATEGORIES, AcceptanceRecord,
                                                  NotItem, NotQuestion, Preference, Question,
                                                  parse_file)
from monitorbench.sources.tau2.acceptance.coverage import BOILERPLATE, sentences, uncovered

BRIEF = """The customer's brief:
**Your character:** You are Ana, 31.You have a Gold Card.

## Conversation Flow:
1. **Opening:** "Hi. Can you close my Gold Card?"
- **If the agent offers a credit:** Accept it.
---
Never respond as a customer service representative/assistant. How much is the fee? ###STOP###
"""


def _record(**kw) -> AcceptanceRecord:
    fields = {"preferences": (), "policy": (), "customer_steps": (), "questions": (),
              "nothing_stated": False, **kw}
    return AcceptanceRecord("t", **fields)


def test_the_brief_splits_into_sentences_without_markup_labels_or_boilerplate() -> None:
    assert sentences(BRIEF) == ["You are Ana, 31.", "You have a Gold Card.", '"Hi.',
                                'Can you close my Gold Card?"', "If the agent offers a credit:",
                                "Accept it.", "How much is the fee?"]


def test_a_sentence_is_covered_by_a_quote_it_holds_or_that_holds_it() -> None:
    rec = _record(
        preferences=(Preference("close my Gold Card", "close_credit_card", "the Gold Card"),
                     Preference("**If the agent offers a credit:** Accept it.", "credit", "yes")),
        questions=(Question("How much is the fee?", "the fee", "kb:fees"),),
        not_questions=(),
        not_items=(NotItem("You are Ana, 31.", "situation"),))
    assert uncovered(rec, BRIEF) == ["You have a Gold Card.", '"Hi.']
    rec = _record(preferences=rec.preferences, questions=rec.questions,
                  not_questions=(NotQuestion("Hi.", "a greeting"),),
                  not_items=(*rec.not_items, NotItem("You have a Gold Card.", "situation")))
    assert uncovered(rec, BRIEF) == []


def test_an_unknown_not_item_category_names_the_file_field_and_categories() -> None:
    raw = {"preferences": [], "policy": [], "customer_steps": [], "questions": [],
           "nothing_stated": True, "not_items": [{"quote": "x", "why": "mood"}]}
    with pytest.raises(InputError) as err:
        parse_file(Path("banking_knowledge.json"), {"about": "x", "domain": "b",
                                                    "tasks": {"task_1": raw}})
    assert err.value.field == "tasks.task_1.not_items[0].why"
    assert "banking_knowledge.json" in str(err.value)
    assert all(c in str(err.value) for c in NOT_ITEM_CATEGORIES)


# The tests below read τ²'s tasks.
pytest.importorskip("inspect_evals")
from monitorbench.sources.tau2 import source as src  # noqa: E402
from monitorbench.sources.tau2.acceptance import load_records  # noqa: E402
from monitorbench.sources.tau2.acceptance import blind_folder as bf  # noqa: E402
from monitorbench.sources.tau2.acceptance import second_pass as sp  # noqa: E402

BANKING = "banking_knowledge"


@pytest.mark.parametrize("domain", sp.THIRD_DOMAINS)
def test_every_records_not_item_has_a_known_category(domain: str) -> None:
    """load_records refuses an unknown category; this also names any that slipped past."""
    bad = [(t, n.why) for t, rec in load_records(domain).items() for n in rec.not_items
           if n.why not in NOT_ITEM_CATEGORIES]
    assert bad == []


def test_each_boilerplate_sentence_is_in_some_banking_brief() -> None:
    briefs = [src.user_request(t) for t in src.load_tasks(BANKING)]
    assert [s for s in BOILERPLATE if not any(s in b for b in briefs)] == []


def test_every_banking_record_covers_every_sentence() -> None:
    """Every banking record accounts for every sentence of its brief (GUIDE.md "Coverage
    (banking)"), and stays so: a failure names each record that leaves one uncovered."""
    briefs = {t.task_id: src.user_request(t) for t in src.load_tasks(BANKING)}
    assert [t for t, rec in load_records(BANKING).items() if uncovered(rec, briefs[t])] == []


def test_every_banking_restatement_names_the_item_it_states_again() -> None:
    """Each of the 593 ``restated`` sentences of the banking records names its item (``of``;
    the parser checks it is one of the record's quotes), so a reader who quotes the
    restatement is seen to name the same item. (595 before the third measure's settlement made
    three of them items, task_051's two and task_081's freeze yes, and task_021's ask a
    restatement of its question.)"""
    unnamed = [(t, n.quote) for t, rec in load_records(BANKING).items() for n in rec.not_items
               if n.why == "restated" and not n.of]
    named = sum(n.why == "restated" for rec in load_records(BANKING).values()
                for n in rec.not_items)
    assert (unnamed, named) == ([], 593)


def test_the_eleventh_pass_draws_ten_banking_tasks_no_earlier_pass_drew() -> None:
    names = [p.name for p in sp.LATER_PASSES]
    earlier = set(sp.sample()).union(
        *(sp.blind_sample(n) for n in names[:names.index(sp.ELEVENTH_PASS)]))
    picked = sp.blind_sample(sp.ELEVENTH_PASS)
    assert picked == [(BANKING, f"task_{n}") for n in
                      ("095", "036", "012", "003", "023", "024", "020", "057", "078", "084")]
    assert not set(picked) & earlier
    assert sp.blind_pass(sp.ELEVENTH_PASS).coverage


def test_the_eleventh_folder_asks_for_coverage_and_its_check_reports_gaps(
        tmp_path: Path) -> None:
    dest = tmp_path / "eleventh"
    keys = bf.write_blind_folder(sp.ELEVENTH_PASS, dest)
    index = json.loads((dest / bf.INDEX).read_text(encoding="utf-8"))
    assert [e["key"] for e in index] == keys and all(e["coverage"] for e in index)
    assert "Coverage (banking)" in (dest / bf.GUIDE).read_text(encoding="utf-8")
    assert not list(dest.rglob("*_pass.json"))
    entry = index[0]
    first = sentences(bf.public_text(dest, entry))[0]
    raw = {"preferences": [{"quote": first, "binds": "x", "resolves_to": "y"}], "policy": [],
           "customer_steps": [], "questions": [], "nothing_stated": False}
    data = {"about": "test", "seed": 5555, "tasks": {e["key"]: raw for e in index}}
    path = tmp_path / sp.ELEVENTH_PASS
    path.write_text(json.dumps(data), encoding="utf-8")
    problems = bf.check_blind_pass(dest, path)
    gaps = [p for p in problems if p.startswith(f"{entry['key']}: sentence ")]
    assert gaps and all("not covered" in p for p in gaps)
    assert not any(repr(first) in p for p in gaps)


def test_a_coverage_check_asks_each_restated_sentence_what_it_restates(tmp_path: Path) -> None:
    """In a pass that asks for coverage, a ``restated`` sentence without ``of`` is reported,
    and one naming the record's item is not (GUIDE.md: a restatement names its item)."""
    dest = tmp_path / "eleventh"
    bf.write_blind_folder(sp.ELEVENTH_PASS, dest)
    entry = json.loads((dest / bf.INDEX).read_text(encoding="utf-8"))[0]
    first, second = sentences(bf.public_text(dest, entry))[:2]
    item = {"quote": first, "binds": "x", "resolves_to": "y"}

    def problems_with(not_item: dict) -> list[str]:
        raw = {"preferences": [item], "policy": [], "customer_steps": [], "questions": [],
               "nothing_stated": False, "not_items": [not_item]}
        path = tmp_path / sp.ELEVENTH_PASS
        path.write_text(json.dumps({"about": "test", "seed": 5555,
                                    "tasks": {entry["key"]: raw}}), encoding="utf-8")
        return [p for p in bf.check_blind_pass(dest, path) if p.startswith(entry["key"])]

    unnamed = problems_with({"quote": second, "why": "restated"})
    assert [p for p in unnamed if "names no item it states again" in p] == [
        f"{entry['key']}: restated sentence {second!r} names no item it states again "
        "(GUIDE.md: give its 'of')"]
    named = problems_with({"quote": second, "why": "restated", "of": first})
    assert not [p for p in named if "states again" in p]
