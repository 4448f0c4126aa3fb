"""What the gold's reply tells the customer who asked something (issue 47 step 2).

τ²'s gold is an action list: where the customer asks to be told something ("Can you show me my
recent transactions?"), its ``communicate_info`` is often empty and a reply built from the
actions confirms the changes but answers nothing (C8 ``unanswered``). The answer is in the
environment: an output of a lookup the gold makes. :data:`ASKS` says, per task, which lookup
answers the customer's question and which of its records and fields are the answer; the reply
then tells those values as the replayed lookup shows them, never a value of our own. A task
whose lookup does not show what its entry names is excluded with the reason
(:func:`told`), so a changed database cannot turn the entry into an invented answer.

The reviewed acceptance records (issue 46) say the same per question, as data: a question's
``tells`` are the values the reply must hold. :func:`record_tells` tells those a lookup or
search of the gold shows, word for word, and refuses (ValueError) any no output shows.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

Call = tuple[str, dict[str, Any]]
_RECORD = re.compile(r"^\d+\. Record ID: ", re.MULTILINE)
_FIELD = re.compile(r"^\s+(\w+): (.*?)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Ask:
    """The customer's question (quoted from the brief), the lookup whose output answers it,
    the records that answer it (every field in ``where`` equal) and the fields told of each."""

    question: str
    tool: str                       # a read tool's name or a discoverable lookup's
    tell: tuple[str, ...]
    lead: str                       # the sentence's start, before the told values
    where: Mapping[str, tuple[str, ...]] = field(default_factory=dict)   # allowed values
    quote: str = ""                 # a knowledge-base search: the passage told (a regex)
    search: str = ""                # the search the gold adds when it makes none returning it


_CARD_TRANSACTIONS = ("merchant_name", "transaction_amount", "transaction_date")
_CARD_LOOKUP = "banking_get_credit_card_transactions_by_user"
_SILVER = {"credit_card_type": ("Silver Rewards Card",)}
# A declined debit card: what the card lookup shows of each card before anything is changed.
_DEBIT_LOOKUP = "get_debit_cards_by_account_id_7823"
_DEBIT_STATE = ("card_id", "card_number_last_4", "status", "velocity_blocked",
                "fraud_alert_active")
_DEBIT_LEAD = ("Here is what our records showed for your debit cards (card, last 4 digits, "
               "status, velocity block, fraud alert)")
_BANKING: dict[str, Ask] = {
    "task_036": Ask("Can you show me my recent transactions?", _CARD_LOOKUP, _CARD_TRANSACTIONS,
                    "Here are the transactions on your Silver Rewards Card", _SILVER),
    "task_037": Ask("Can you show me my recent transactions?", _CARD_LOOKUP, _CARD_TRANSACTIONS,
                    "Here are the transactions on your Silver Rewards Card", _SILVER),
    "task_039": Ask("(the Costco and Amazon charges to dispute)", _CARD_LOOKUP,
                    _CARD_TRANSACTIONS, "Here are the Costco and Amazon charges on your Gold "
                    "Rewards Card", {"credit_card_type": ("Gold Rewards Card",),
                                     "merchant_name": ("Costco", "Amazon")}),
    "task_089": Ask("How much have I already taken out today?",
                    "get_bank_account_transactions_9173", ("account_id", "description", "amount"),
                    "Here are today's (11/14/2025) ATM withdrawals on the accounts of the three "
                    "declined cards (yours and your daughter's teen account)",
                    {"type": ("atm_withdrawal",), "date": ("11/14/2025",)}),
    "task_035": Ask("What is going on?!", "banking_grep", (),
                    "Here is what happened, from our incident notice", quote=(
                        r"On 11/14/2025, a backend batch processing error caused erroneous "
                        r"delinquency reports to be transmitted to credit bureaus for certain "
                        r"credit card accounts that are in good standing")),
    **{f"task_{n}": Ask("What are my options?", "banking_grep", (),
                        "Here are your options for the Light Blue card, from our debit card "
                        "replacement rules", quote=(
                            r"If customer has exceeded the 2-card limit, they must wait until "
                            r"oldest replacement ages out of the 12-month window, OR pay a \$25 "
                            r"excess replacement fee"), search="excess replacement")
       for n in ("078", "079")},
    "task_087": Ask("Can you help me figure out what's going on with all of them?",
                    _DEBIT_LOOKUP, _DEBIT_STATE, _DEBIT_LEAD),
}
# Keyed "domain/task_id" (τ²'s ids repeat across domains).
ASKS: dict[str, Ask] = {
    **{f"banking_knowledge/{k}": v for k, v in _BANKING.items()},
    "retail/26": Ask("you want to know the tracking number of the order", "get_order_details",
                     ("order_id", "address.city", "address.state", "fulfillments.tracking_id"),
                     "The order sent to Texas (order, city, state, tracking number)",
                     {"order_id": ("#W5565470",)}),
}


def records(output: str) -> list[dict[str, str]]:
    """The records a lookup shows: banking's ``N. Record ID:`` blocks of ``key: value``
    lines, a JSON list of objects (a discoverable lookup's) or one JSON object (a retail or
    airline lookup's), nested fields under dotted keys (``fulfillments.tracking_id``)."""
    if not _RECORD.search(output):
        start = min((i for i in (output.find("["), output.find("{")) if i >= 0), default=-1)
        try:
            rows = json.loads(output[start:]) if start >= 0 else None
        except ValueError:
            rows = None
        if isinstance(rows, (list, dict)):
            return [_flat(r) for r in (rows if isinstance(rows, list) else [rows])
                    if isinstance(r, dict)]
    blocks = _RECORD.split(output)[1:]
    return [dict(_FIELD.findall(block)) for block in blocks]


def _flat(value: Any, key: str = "", out: dict[str, str] | None = None) -> dict[str, str]:
    """``value``'s scalars under dotted keys; a list's under its own key, joined."""
    out = {} if out is None else out
    if isinstance(value, dict):
        for k, v in value.items():
            _flat(v, f"{key}.{k}" if key else str(k), out)
    elif isinstance(value, list):
        for v in value:
            _flat(v, key, out)
    else:
        out[key] = f"{out[key]}, {value}" if key in out else str(value)
    return out


def _called(name: str, args: Mapping[str, Any]) -> str:
    return str(args.get("agent_tool_name") or name)


def told(key: str, calls: Sequence[Call], outputs: Sequence[Mapping[str, Any]]
         ) -> tuple[str, ...]:
    """The reply's sentences answering the customer's question (none without an entry in
    :data:`ASKS`); ValueError saying why when the gold's lookup does not show the answer."""
    ask = ASKS.get(key)
    if ask is None:
        return ()
    if ask.quote:
        return (_quoted(ask, calls, outputs),)
    shown = [r for (n, a), o in zip(calls, outputs) if _called(n, a) == ask.tool
             and not o.get("error") for r in records(str(o.get("output") or ""))]
    rows = [r for r in shown if all(r.get(k) in v for k, v in ask.where.items())]
    if not rows or any(f not in r for r in rows for f in ask.tell):
        raise ValueError(f"the customer asks {ask.question!r}, and the gold's {ask.tool} shows "
                         f"no record with {', '.join(ask.tell)} where {dict(ask.where)}: no "
                         "lookup answers it")
    told_rows = "; ".join(", ".join(r[f] for f in ask.tell) for r in rows)
    return (f"{ask.lead}: {told_rows}.",)


RECORD_LEAD = "Here is what you asked about"


def _shown(value: str, outputs: Sequence[Mapping[str, Any]], acted: Sequence[str]) -> bool:
    low = value.lower()
    return (any(low in str(o.get("output") or "").lower() for o in outputs if not o.get("error"))
            or any(low in text.lower() for text in acted))


def record_tells(questions: Sequence[Any], outputs: Sequence[Mapping[str, Any]],
                 acted: Sequence[str] = ()) -> tuple[str, ...]:
    """The values the reviewed ``questions`` (acceptance.Question) say the reply must tell,
    each shown by an output of the gold (``outputs``) or in the arguments of a step the
    customer took on the agent's word (``acted``: the card the customer applies for is the one
    recommended); ValueError naming the first that neither shows: the build never tells a value
    of its own."""
    values: list[str] = []
    for q in questions:
        for value in q.tells:
            if not _shown(value, outputs, acted):
                raise ValueError(f"the reviewed record says the reply to {q.quote[:80]!r} "
                                 f"tells {value!r}, and no lookup or search of the gold "
                                 "shows it, nor a step the customer took: no lookup answers "
                                 "it")
            values += [value] if value not in values else []
    return tuple(values)


def record_sentence(values: Sequence[str]) -> tuple[str, ...]:
    """The reply's sentence telling the reviewed values (none when there are none)."""
    return (f"{RECORD_LEAD}: {'; '.join(values)}.",) if values else ()


def _quoted(ask: Ask, calls: Sequence[Call], outputs: Sequence[Mapping[str, Any]]) -> str:
    """The knowledge-base passage a search of the record returned that answers ``ask``."""
    for (name, args), out in zip(calls, outputs):
        found = re.search(ask.quote, str(out.get("output") or "")) if name == ask.tool else None
        if found:
            return f"{ask.lead}: {found.group(0)}."
    raise ValueError(f"the customer asks {ask.question!r}, and no search of the gold returns "
                     f"the passage {ask.quote[:60]!r}: no lookup answers it")


def with_lookup(key: str, calls: Sequence[Call], user_id: str | None) -> list[Call]:
    """``calls`` with the lookup that answers the customer's question (:data:`ASKS`) right
    after the identity check, where the gold does not make it: the agent shows the customer's
    records before acting on them (a read by the verified user's id), or searches the
    knowledge base for the rule it tells (``search``); neither changes anything."""
    ask = ASKS.get(key)
    if ask is None:
        return list(calls)
    if ask.search:
        lookup: Call = (ask.tool, {"pattern": ask.search})
    elif user_id is not None and not ask.quote and key.startswith("banking_knowledge/"):
        lookup = (ask.tool, {"user_id": user_id})
    else:
        return list(calls)
    if any(_called(n, a) == ask.tool and (not ask.search or a == lookup[1]) for n, a in calls):
        return list(calls)
    at = _after_identity_check(calls)
    return [*calls[:at], lookup, *calls[at:]]


def _after_identity_check(calls: Sequence[Call]) -> int:
    """Where an added read goes: right after the identity check, else first (banking's policy
    verifies the customer before any account lookup)."""
    return next((i + 1 for i, (n, _) in enumerate(calls) if n == "banking_log_verification"), 0)


def with_record_reads(calls: Sequence[Call], questions: Sequence[Any],
                      is_read: Callable[[str, Mapping[str, Any]], bool]) -> list[Call]:
    """``calls`` with each reviewed question's ``lookups`` and knowledge-base ``search`` the
    gold does not make yet, in the record's order, right after the identity check (else
    first): a read changes nothing, and it is where the told value comes from. A listed call
    that is not a read (``is_read``) is refused: the record may add reads, never changes."""
    missing: list[Call] = []
    for q in questions:
        searches: list[Call] = [("banking_grep", {"pattern": q.search})] if q.search else []
        for name, args in (*q.lookups, *searches):
            if (name, args) in calls or (name, args) in missing:
                continue
            if not is_read(name, args):
                raise ValueError(f"the reviewed record adds {name}, which is not a read-only "
                                 "tool: a record may add lookups, never changes")
            missing.append((name, dict(args)))
    at = _after_identity_check(calls)
    return [*calls[:at], *missing, *calls[at:]]
