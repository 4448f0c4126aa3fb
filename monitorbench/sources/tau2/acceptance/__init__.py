"""Reviewed acceptance records of the τ² tasks (issue 46), one JSON file per domain.

Why: the keyword rules (:mod:`monitorbench.audit.stated_preferences`,
:mod:`monitorbench.audit.requested_answers`) catch only the phrasings someone has seen, and
:func:`monitorbench.sources.tau2.repairs.statement` says "none stated" whenever they find
nothing. A record is written once per task by a person reading the task's instruction and the
domain policy: what the customer stated (quoted, the argument it binds, the value it resolves
to), the policy rules the gold relies on, the customer's own steps, the questions asked and what
the final reply must tell. "Nothing stated" is an explicit reviewed claim, never a default.

The build reads:

* ``gold_breaks``, a reviewed finding that τ²'s gold (and so every positive built from it)
  breaks what the customer asked or the policy. Such a task is excluded with that finding as
  its reason (``sources/tau2/build.excluded_reason``) until a repair by construction replaces
  the exclusion;
* a question's ``tells``: the values the final reply must hold. The gold's reply tells them as
  its lookups show them (:mod:`monitorbench.sources.tau2.told`), a near-miss negative leaves
  them out, and C8 checks them in every positive;
* ``not_questions``: words the question rule reads as a question, reviewed as asking for
  nothing the reply must tell, with why. C8 reads the questions and these as the task's
  reviewed claim, and a question the rule finds outside both still fails the task.

``not_items`` (banking, GUIDE.md "Coverage (banking)") are the brief's sentences reviewed as
deciding nothing, each with its category (:data:`NOT_ITEM_CATEGORIES`), so that every sentence
is accounted for (:mod:`.coverage`); the build does not read them.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from monitorbench.audit.stated_preferences import DISPUTE_TOOLS, PRODUCT_CALLS
from monitorbench.errors import InputError

HERE = Path(__file__).parent
_RECORD_KEYS = {"preferences", "policy", "customer_steps", "questions", "nothing_stated", "note",
                "gold_breaks", "not_questions", "not_items"}
_OPTIONAL = {"note", "gold_breaks", "not_questions", "not_items"}
_PREFERENCE_KEYS = {"quote", "binds", "resolves_to", "note"}
_QUESTION_KEYS = {"quote", "must_tell", "source", "note", "tells", "search", "lookups"}
_NOT_QUESTION_KEYS = {"quote", "why"}
_NOT_ITEM_KEYS = {"quote", "why", "of"}
_SOURCES = ("lookup:", "kb:", "communicate_info")
# Why a sentence of the brief decides nothing: GUIDE.md's "not items", one name each (its
# "Coverage (banking)" section says what each holds). Closed, so two readers sort alike.
NOT_ITEM_CATEGORIES = ("situation", "manner", "order", "reason", "accepts_refusal",
                       "red_herring", "purpose", "customer_step", "restated")


@dataclass(frozen=True)
class Preference:
    """What the customer stated about how a change is made, and what it binds."""

    quote: str         # the customer's words, exactly as the instruction has them
    binds: str         # the tool argument or record field it decides (payment_method_id, cabin)
    resolves_to: str   # the value through the profile/order, or how the lookups decide it
    note: str = ""


@dataclass(frozen=True)
class Question:
    """A question the customer asks, and what the final reply must tell."""

    quote: str
    must_tell: str
    source: str        # "lookup:<tool>", "kb:<doc>" or "communicate_info"
    note: str = ""
    # The values the final reply must hold, word for word as a lookup or search of the gold
    # shows them: the build tells them (never a value no output shows) and C8 checks them.
    tells: tuple[str, ...] = ()
    search: str = ""   # a knowledge-base search the gold adds when none of its own returns them
    # Read calls ``(name, arguments)`` the gold adds when it lacks them: the lookups that show
    # the answer (a gold of τ²'s that answers from nowhere).
    lookups: tuple[tuple[str, Mapping[str, Any]], ...] = ()


@dataclass(frozen=True)
class NotQuestion:
    """Words the question rule reads as a question, reviewed as asking the agent for nothing
    the reply must tell (the agent's own question, a request for an action), and why."""

    quote: str
    why: str


@dataclass(frozen=True)
class NotItem:
    """A sentence of the brief reviewed as no item, and its :data:`NOT_ITEM_CATEGORIES` name:
    it proves the sentence was read and decided, not skipped."""

    quote: str
    why: str
    # For ``restated``: the quote of the item (or not-question) it states again, word for
    # word, so a reader who quotes this sentence for the item is seen to name the same item.
    of: str = ""


@dataclass(frozen=True)
class AcceptanceRecord:
    """One task's reviewed record; see the module docstring for why it exists."""

    task_id: str
    preferences: tuple[Preference, ...]
    policy: tuple[str, ...]           # policy rules the gold relies on, quoted
    customer_steps: tuple[str, ...]   # dual-control steps that are the customer's own
    questions: tuple[Question, ...]
    nothing_stated: bool              # reviewed claim: no preference and no question
    note: str = ""
    gold_breaks: str = ""             # reviewed: how τ²'s gold breaks the request (excluded)
    not_questions: tuple[NotQuestion, ...] = ()
    not_items: tuple[NotItem, ...] = ()


def record_path(domain: str) -> Path:
    """The data file of ``domain``'s records."""
    return HERE / f"{domain}.json"


def _fail(path: Path, where: str | None, problem: str, fix: str) -> InputError:
    return InputError(path, where, problem, fix)


def _check_keys(path: Path, where: str, raw: Any, allowed: set[str], required: set[str]) -> None:
    """An object with only known keys and all required ones: a typo must not pass silently."""
    if not isinstance(raw, Mapping):
        raise _fail(path, where, f"must be an object, got {type(raw).__name__}",
                    "write a JSON object")
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise _fail(path, where, f"unknown key(s) {unknown}", f"use only {sorted(allowed)}")
    missing = sorted(required - set(raw))
    if missing:
        raise _fail(path, where, f"missing key(s) {missing}", "add them")


def _text(path: Path, where: str, value: Any) -> str:
    """A non-empty string: an empty quote is found in every text and so proves nothing."""
    if not isinstance(value, str) or not value.strip():
        raise _fail(path, where, "must be a non-empty string", "quote the words or describe it")
    return value


def _preference(path: Path, where: str, raw: Any) -> Preference:
    _check_keys(path, where, raw, _PREFERENCE_KEYS, {"quote", "binds", "resolves_to"})
    return Preference(*(_text(path, f"{where}.{k}", raw[k]) for k in ("quote", "binds",
                                                                         "resolves_to")),
                      note=str(raw.get("note", "")))


def _question(path: Path, where: str, raw: Any) -> Question:
    _check_keys(path, where, raw, _QUESTION_KEYS, {"quote", "must_tell", "source"})
    source = _text(path, f"{where}.source", raw["source"])
    if not source.startswith(_SOURCES):
        raise _fail(path, f"{where}.source", f"unknown source {source!r}",
                    "write lookup:<tool>, kb:<doc> or communicate_info")
    return Question(_text(path, f"{where}.quote", raw["quote"]),
                    _text(path, f"{where}.must_tell", raw["must_tell"]), source,
                    note=str(raw.get("note", "")),
                    tells=_strings(path, f"{where}.tells", raw.get("tells", [])),
                    search=_text(path, f"{where}.search", raw["search"])
                    if "search" in raw else "",
                    lookups=_lookups(path, f"{where}.lookups", raw.get("lookups", [])))


def _lookups(path: Path, where: str, raw: Any) -> tuple[tuple[str, Mapping[str, Any]], ...]:
    """``[{"name": tool, "arguments": {...}}, ...]`` as call pairs."""
    out = []
    for i, item in enumerate(_items(path, where, raw)):
        _check_keys(path, f"{where}[{i}]", item, {"name", "arguments"}, {"name", "arguments"})
        if not isinstance(item["arguments"], Mapping):
            raise _fail(path, f"{where}[{i}].arguments", "must be an object",
                        "write the tool's arguments as a JSON object")
        out.append((_text(path, f"{where}[{i}].name", item["name"]), dict(item["arguments"])))
    return tuple(out)


def _not_question(path: Path, where: str, raw: Any) -> NotQuestion:
    _check_keys(path, where, raw, _NOT_QUESTION_KEYS, _NOT_QUESTION_KEYS)
    return NotQuestion(_text(path, f"{where}.quote", raw["quote"]),
                       _text(path, f"{where}.why", raw["why"]))


def _not_item(path: Path, where: str, raw: Any, stated: set[str]) -> NotItem:
    """A not-item; ``stated``: the record's item and not-question quotes (whitespace runs made
    one space), one of which a ``restated`` sentence's ``of`` must be."""
    _check_keys(path, where, raw, _NOT_ITEM_KEYS, _NOT_QUESTION_KEYS)
    why = _text(path, f"{where}.why", raw["why"])
    if why not in NOT_ITEM_CATEGORIES:
        raise _fail(path, f"{where}.why", f"unknown category {why!r}",
                    f"use one of {', '.join(NOT_ITEM_CATEGORIES)} (GUIDE.md)")
    of = _text(path, f"{where}.of", raw["of"]) if "of" in raw else ""
    if of and why != "restated":
        raise _fail(path, f"{where}.of", f"is given for a {why!r} sentence",
                    "give 'of' only for a 'restated' one (the item it states again)")
    if of and quote_norm(of) not in stated:
        raise _fail(path, f"{where}.of", f"{of!r} is no item's or not-question's quote in "
                    "this record", "copy the quote of the item this sentence states again")
    return NotItem(_text(path, f"{where}.quote", raw["quote"]), why, of)


def quote_norm(text: str) -> str:
    """The records' quote test's normalisation: whitespace runs become one space, nothing else
    changes (words, punctuation and case must be the task's own)."""
    return re.sub(r"\s+", " ", text).strip()


def _strings(path: Path, where: str, raw: Any) -> tuple[str, ...]:
    if not isinstance(raw, list):
        raise _fail(path, where, "must be a list", "write a JSON list of strings")
    return tuple(_text(path, f"{where}[{i}]", s) for i, s in enumerate(raw))


def _items(path: Path, where: str, raw: Any) -> list[Any]:
    if not isinstance(raw, list):
        raise _fail(path, where, "must be a list", "write a JSON list of objects")
    return raw


def parse_record(path: Path, task_id: str, raw: Any) -> AcceptanceRecord:
    """One task's record, validated; an InputError names the file and the field."""
    where = f"tasks.{task_id}"
    _check_keys(path, where, raw, _RECORD_KEYS, _RECORD_KEYS - _OPTIONAL)
    prefs = tuple(_preference(path, f"{where}.preferences[{i}]", p)
                  for i, p in enumerate(_items(path, f"{where}.preferences", raw["preferences"])))
    questions = tuple(_question(path, f"{where}.questions[{i}]", q)
                      for i, q in enumerate(_items(path, f"{where}.questions", raw["questions"])))
    nothing = raw["nothing_stated"]
    if not isinstance(nothing, bool):
        raise _fail(path, f"{where}.nothing_stated", "must be true or false", "write a boolean")
    if nothing and (prefs or questions):
        raise _fail(path, f"{where}.nothing_stated", "is true but the record holds preferences "
                    "or questions", "set it false, or remove the items")
    if not nothing and not (prefs or questions):
        raise _fail(path, f"{where}.nothing_stated", "is false but the record holds no "
                    "preference and no question", "set it true after reviewing the task, or "
                    "add what the customer stated")
    not_questions = tuple(_not_question(path, f"{where}.not_questions[{i}]", q) for i, q in
                          enumerate(_items(path, f"{where}.not_questions",
                                           raw.get("not_questions", []))))
    stated = {quote_norm(x.quote) for x in (*prefs, *questions, *not_questions)}
    not_items = tuple(_not_item(path, f"{where}.not_items[{i}]", n, stated) for i, n in
                      enumerate(_items(path, f"{where}.not_items", raw.get("not_items", []))))
    return AcceptanceRecord(task_id, prefs, _strings(path, f"{where}.policy", raw["policy"]),
                            _strings(path, f"{where}.customer_steps", raw["customer_steps"]),
                            questions, nothing, note=str(raw.get("note", "")),
                            gold_breaks=_text(path, f"{where}.gold_breaks", raw["gold_breaks"])
                            if "gold_breaks" in raw else "", not_questions=not_questions,
                            not_items=not_items)


def parse_file(path: Path, data: Any) -> dict[str, AcceptanceRecord]:
    """Every record of one domain file's parsed JSON."""
    _check_keys(path, "(top level)", data, {"about", "domain", "tasks"},
                {"about", "domain", "tasks"})
    tasks = data["tasks"]
    if not isinstance(tasks, Mapping):
        raise _fail(path, "tasks", "must be an object keyed by τ² task id",
                    "write {\"<task id>\": {record}}")
    return {str(k): parse_record(path, str(k), v) for k, v in tasks.items()}


def record(domain: str, task_id: str) -> AcceptanceRecord | None:
    """The task's reviewed record, as the build reads it (None when none is written)."""
    return _records_once(domain).get(task_id)


def gold_breaks(domain: str, task_id: str) -> str | None:
    """The reviewed finding that τ²'s gold breaks the request, for the build's exclusion."""
    found = record(domain, task_id)
    return found.gold_breaks if found is not None and found.gold_breaks else None


def reviewed_questions(rec: AcceptanceRecord | None) -> dict[str, Any]:
    """The record's reviewed reading of the request's questions, as an acceptance statement
    carries it for C8 (:mod:`monitorbench.audit.requested_answers`): each question with the
    values the reply must tell, and the words that only read like a question, with why."""
    if rec is None:
        return {}
    return {"questions": [{"quote": q.quote, "tells": list(q.tells)} for q in rec.questions],
            "not_questions": [{"quote": n.quote, "why": n.why} for n in rec.not_questions]}


_METHOD_ID = re.compile(r"\b(?:credit_card|gift_card|paypal|certificate)_\d+\b")


def reviewed_payments(rec: AcceptanceRecord | None) -> dict[str, Any]:
    """The payment methods the record resolves the customer's payment words to (the ids its
    payment preferences name), as the acceptance statement carries them for C8
    (:func:`monitorbench.audit.stated_preferences.check_reviewed_methods`); nothing when no
    payment preference names an id."""
    ids = sorted({m for p in (rec.preferences if rec else ()) if "payment" in p.binds
                  for m in _METHOD_ID.findall(p.resolves_to)})
    return {"payments": ids} if ids else {}


# "NEW for OLD": a new item id, "for", at most three words ("the shoe", "the other", "item"),
# the old item id; "and for OLD2" after it gives the same new id a second old one.
_NEW_FOR_OLD = re.compile(r"\b(\d{10})\s+for\s+((?:[a-z]+\s+){0,3}\d{10}\b"
                          r"(?:[^;]*?\band\s+for\s+(?:[a-z]+\s+){0,3}\d{10}\b)*)")
_ITEM_ID = re.compile(r"\b\d{10}\b")


def reviewed_items(rec: AcceptanceRecord | None) -> dict[str, Any]:
    """The (old item id, new item id) pairs the record resolves the customer's exchange or
    modification words to, as the acceptance statement carries them for C8
    (:func:`monitorbench.audit.stated_preferences.check_reviewed_items`). Only the unambiguous
    "NEW for OLD" form of an item preference's ``resolves_to`` is read ("5052031638 for
    1684786391 of #W9672333", "9844888101 for 3478699712 (#W2905754) and for 2216662955"):
    a list of variants, a product id or "OLD exchanged for NEW" names no pair this can trust,
    so it binds nothing rather than something wrong. Nothing when no pair is named."""
    pairs = sorted({(old, m.group(1)) for p in (rec.preferences if rec else ())
                    if "new_item_ids" in p.binds
                    for m in _NEW_FOR_OLD.finditer(p.resolves_to)
                    for old in _ITEM_ID.findall(m.group(2))})
    return {"items": [list(p) for p in pairs]} if pairs else {}


# Banking's products, as τ²'s gold writes them: one to four title-case words ending in
# "Account", "Card" or "Blue" (the business checking classes: "Sky Blue", "Navy Blue"), or a
# word ending in "Card" ("EcoCard"). The tool a preference binds says which kind it may name.
_PRODUCT = re.compile(r"\b(?:[A-Z][\w-]*\s+){0,3}(?:[A-Z]\w*)?(?:Account|Card|Blue)\b")
_PRODUCT_TOOLS = {kind: tool for kind, (tool, _, _) in PRODUCT_CALLS.items()}
# A resolution that opens, applies for or disputes nothing ("no checking account opened", "not
# reached: ...", "moot: ...", "no dispute"), and the words that name a value only to rule it
# out.
_NO_PRODUCT = re.compile(r"^\s*(?:no|not|none|moot|refused|declined|neither|never|nothing)\b",
                         re.IGNORECASE)
_RULED_OUT = re.compile(r"\b(?:no|not|neither|nor|instead\s+of|rather\s+than|except|other\s+"
                        r"than)\s+(?:(?:the|a|an|any)\s+)?$", re.IGNORECASE)


def _named(name: re.Pattern[str], text: str) -> list[str]:
    """The values ``text`` names positively (``name``: a product, a transaction id): every
    match but one right after "not", "no", "instead of", "rather than" (and the like), and
    none when the text starts with a negation ("no checking account opened", "no dispute: the
    customer says it is fine": the name is what is not opened or disputed)."""
    if _NO_PRODUCT.match(text):
        return []
    return [m.group(0) for m in name.finditer(text)
            if not _RULED_OUT.search(text[:m.start()])]


def reviewed_products(rec: AcceptanceRecord | None) -> dict[str, Any]:
    """The bank account classes and credit card types the record resolves the customer's
    product words to ("savings Silver Plus Account (per τ²'s gold)", "Silver Rewards Card, by
    the customer"), as the acceptance statement carries them for C8
    (:func:`monitorbench.audit.stated_preferences.check_reviewed_products`): a recommendation
    task's whole point is which product gets opened, and no keyword rule reads that from the
    customer's criteria. Read only from preferences binding ``open_bank_account_4821`` or
    ``apply_for_credit_card`` (a presented and declined card binds neither); a name ending in
    "Card" is a card, any other an account, each kept only where the preference binds its tool
    (``{"products": {"accounts": [...], "cards": [...]}}``, a kind only where it names one).
    Nothing when none is named."""
    found: dict[str, set[str]] = {kind: set() for kind in _PRODUCT_TOOLS}
    for p in rec.preferences if rec else ():
        if not p.binds.startswith(tuple(_PRODUCT_TOOLS.values())):
            continue
        for name in _named(_PRODUCT, p.resolves_to):
            kind = "cards" if name.endswith("Card") else "accounts"
            if _PRODUCT_TOOLS[kind] in p.binds:
                found[kind].add(name)
    products = {kind: sorted(names) for kind, names in found.items() if names}
    return {"products": products} if products else {}


# A transaction id as τ² banking writes them: a credit card's ("txn_ba8b473f295d",
# "txn_e9d195fe8e_001") or a debit card's ("btxn_f6g7h8i9j006").
_TXN_ID = re.compile(r"\bb?txn_\w+")
# The binds of a dispute preference whose ids this trusts: a dispute tool, alone (the whole
# call) or with an argument list naming transaction_id ("(transaction_id, dispute_reason)");
# not its card_action, contacted_merchant or a "(whether)".
_DISPUTE_BINDS = re.compile(rf"^({'|'.join(DISPUTE_TOOLS)})(?:\s*$|\([^)]*\btransaction_id\b)")


# A customer step filing a dispute with a discoverable user tool, as the records write it:
# "call_discoverable_user_tool(discoverable_tool_name='submit_cash_back_dispute_0589', ...,
# transaction_id='txn_...'): the customer files the dispute".
_STEP_DISPUTE = re.compile(rf"discoverable_tool_name='({'|'.join(DISPUTE_TOOLS)})'.*?"
                           r"transaction_id='(b?txn_\w+)'")


def reviewed_disputes(rec: AcceptanceRecord | None) -> dict[str, Any]:
    """The transactions the record resolves the customer's dispute words to ("the
    transactions whose cash back is wrong: txn_cfabb609133d, txn_913d14a20dc5 (per τ²'s
    gold)"), by dispute tool, as the acceptance statement carries them for C8
    (:func:`monitorbench.audit.stated_preferences.check_reviewed_disputes`): which charges the
    customer means is read by a person from the listed merchants, dates and amounts, and no
    keyword rule reads it. Only explicit ids are read, from preferences binding a dispute
    tool's transaction_id or the whole call; a resolution that disputes nothing ("no
    dispute", "not filed now: ...") and an id after "not" give none. The ids of one tool are
    pooled over the record ("txn_a or txn_b, the gold's two fraud disputes" twice names both),
    and with the disputes the customer files herself in ``customer_steps`` (a cash back dispute
    filed with the tool the agent hands over, where no line asks the agent for it: task_021).
    Nothing when no id is named."""
    found: dict[str, set[str]] = {}
    for p in rec.preferences if rec else ():
        if binds := _DISPUTE_BINDS.match(p.binds):
            found.setdefault(binds.group(1), set()).update(_named(_TXN_ID, p.resolves_to))
    for step in rec.customer_steps if rec else ():
        if call := _STEP_DISPUTE.search(step):
            found.setdefault(call.group(1), set()).add(call.group(2))
    disputes = {tool: sorted(ids) for tool, ids in found.items() if ids}
    return {"disputes": disputes} if disputes else {}


# Airline's flight writes (update_reservation_flights, book_reservation): a preference binds
# their flights where its binds name the tool or a ``flights`` argument ("flights (stops)",
# "cabin, flights"), their cabin where they name a ``cabin`` argument ("cabin (which
# reservations)", "update_reservation_flights(cabin)"), not "(whether: the cabin change's
# price cap)". A resolution that makes no change ("business on both legs ...; over the $1000
# budget, so no change") names what is not written.
_FLIGHT_BINDS = re.compile(r"^(?:update_reservation_flights|book_reservation)\b|"
                           r"^(?:\w+,\s*)*flights\b")
_CABIN_BINDS = re.compile(r"^(?:update_reservation_flights\()?(?:\w+,\s*)*cabin\b")
_FLIGHT_NUMBER = re.compile(r"\bHAT\d{3}\b")
_CABIN = re.compile(r"\bbasic[_ ]economy\b|\beconomy\b|\bbusiness\b")
_NO_CHANGE = re.compile(r"\bno (?:\w+ )?change\b")


def reviewed_flights(rec: AcceptanceRecord | None) -> dict[str, Any]:
    """The flight numbers and the cabin the record resolves the customer's travel criteria to
    ("the fastest same-day return on May 27 (HAT290 + HAT175 in the gold)", "economy"), as
    the acceptance statement carries them for C8
    (:func:`monitorbench.audit.stated_preferences.check_reviewed_flights`): which flight is
    the cheapest or fastest fitting one is read by a person from the searches, and no keyword
    rule reads it. Only explicit flight numbers are read, and a cabin only where the
    resolution names exactly one ("economy for each of the five business reservations" names
    the old cabin too); negations and resolutions that make no change give none. Nothing when
    neither is named."""
    numbers: set[str] = set()
    cabins: set[str] = set()
    for p in rec.preferences if rec else ():
        if _NO_CHANGE.search(p.resolves_to):
            continue
        if _FLIGHT_BINDS.match(p.binds):
            numbers.update(_named(_FLIGHT_NUMBER, p.resolves_to))
        named = {c.replace(" ", "_") for c in _named(_CABIN, p.resolves_to)}
        if _CABIN_BINDS.match(p.binds) and len(named) == 1:
            cabins |= named
    found = {"flight_numbers": sorted(numbers), "cabins": sorted(cabins)}
    return {"flights": {k: v for k, v in found.items() if v}} if numbers or cabins else {}


@functools.lru_cache(maxsize=None)
def _records_once(domain: str) -> Mapping[str, AcceptanceRecord]:
    """The records as the build reads them, parsed once per process (a build asks per task)."""
    return load_records(domain)


def load_records(domain: str) -> dict[str, AcceptanceRecord]:
    """The reviewed records of ``domain``, keyed by τ² task id ({} when none are written yet)."""
    path = record_path(domain)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise _fail(path, None, f"is not valid JSON ({e})", "fix the JSON syntax") from e
    return parse_file(path, data)
