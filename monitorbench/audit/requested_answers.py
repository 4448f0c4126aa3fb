"""C8 requested answers: a positive answers what the user asked to be told.

A request that says "you want to know how much you will get back" or "What is my balance?" is
only fulfilled by a reply that tells it. A source's own checker may not ask for it: τ²'s
``communicate_info`` is empty on tasks whose user asks for a tracking number, a yes/no fact or
the reason for a delay, so a gold built from it confirms the changes and answers nothing. A
demanding user rejects that reply, so a positive that does so is mislabelled.

The rule, keyed on the instruction's words and the record only:

* the instruction **asks for information** (:data:`_ASKS`: "want(s) to know", "would like to
  know", "ask (the agent) how/what/which/whether/why...", "tell me how/what...", "find out",
  "figure out" (not "let the agent figure out"), "wonder what/how..." ("wonder if you can
  change it" asks for an action, not a fact),
  or a sentence that is a wh-question);
* then the final message (or a free-text argument, where an answer may be delivered, e.g. an
  email ``body``) must state at least one **new value**: a number, an identifier or a
  mid-sentence proper name that is none of the values the agent passed as (non-free-text)
  arguments, none of the instruction's own values, and not a value that only appears in the
  record's outputs without being in the initial state (an id a call just created, such as a new
  booking's code, confirms the change; it answers no question).

**A reviewed reading** replaces the keyword reading where the task's acceptance statement
carries one (``questions``: ``[{"quote", "tells"}]``, ``not_questions``: ``[{"quote", "why"}]``,
written by a person for each task, e.g. τ²'s acceptance records): a reviewed question's
``tells`` must each be in what the user is told (so "polyester" counts, which the value test
cannot see); a reviewed question without ``tells`` gets the value test; and words the rules read
as a question are excused only inside a reviewed question or a reviewed not-question. A question
the rules find outside both still gets the value test: the two readings keep each other honest.

A computed answer (a total no output shows) and a looked-up one (a tracking number the state
holds) both count. A reply that only echoes the change it made does not. The rule cannot tell a
right answer from a wrong one; that is the reference's job. It only finds positives that answer
nothing, which no reference can make right.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Mapping, Sequence

from monitorbench.audit.environment import StateTask, leaves
from monitorbench.audit.formats import FREE_TEXT

_ASKS = re.compile(
    r"\b(?:wants?|would like|wanted|need) to (?:know|find out|check (?:how|what|which|whether|if)"
    r")\b|(?<!not )(?<!n't )(?<!\bto )\bknow (?:how|what|which|whether|if|why)\b"
    r"|(?<!agent )(?<!agents )(?<!representative )\bask(?:s|ing)? (?:the agent |them |him |her )?"
    r"(?:how|what|which|whether|if|why|when|where|about)\b"
    r"|\btell (?:you|me) (?:how|what|which|whether|if|why|when|where)\b"
    r"|(?<!agent )(?<!agent to )\b(?:find|figure) out\b"
    r"|\bwonder(?:s|ing)? (?:what|which|how|why)\b",
    re.IGNORECASE)
_WH_QUESTION = re.compile(r"(?:^|[.!?]\s+)(?:(?:can|could) you (?:please )?tell me )?"
                          r"(?:what|which|how|who|when|where|why)\b[^.!?]*\?", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b[\w-]+\.[A-Za-z]{2,4}\b")
_CODE = re.compile(r"#?\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{3,}\b|\b[A-Z]{3,}\b")
_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][a-z]{2,}\b")
_PLAIN_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_QUOTE = 100


def asks_for_information(instruction: str) -> str | None:
    """The words of ``instruction`` that ask to be told something, or None."""
    m = _ASKS.search(instruction) or _WH_QUESTION.search(instruction)
    return m.group(0).strip() if m else None


def _number(text: str) -> str:
    try:
        return format(Decimal(text.replace(",", "")).normalize(), "f")
    except InvalidOperation:
        return text


def values(text: str) -> set[str]:
    """The answer-like values in ``text``: numbers (normalised: ``1,093.30`` = ``1093.3``),
    identifiers (letters with digits, or all capitals) and mid-sentence proper names, lower
    case."""
    found = {m.group(0).lower() for m in _ADDRESS.finditer(text)}
    found |= {_number(m.group(0)) for m in _NUMBER.finditer(text)}
    found |= {m.group(0).lstrip("#").lower() for m in _CODE.finditer(text)}
    found |= {m.group(0).lower() for m in _NAME.finditer(text)}
    return found


def _strings(value: Any, key: str = "") -> Iterable[tuple[str, str]]:
    for name, leaf in leaves(value, key):
        if leaf is not None and not isinstance(leaf, bool):
            yield name, str(leaf)


def state_values(state: Any) -> frozenset[str]:
    """Every answer-like value the initial state holds (computed once per task)."""
    return frozenset(v for _, text in _strings(state) for v in values(text))


def _calls(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    calls = record.get("calls")
    return [c for c in calls if isinstance(c, Mapping)] if isinstance(calls, Sequence) else []


def _tells_user(name: str, call: Mapping[str, Any]) -> bool:
    """Whether argument ``name`` of ``call`` is told to the user: a free-text field, or any
    argument of the customer's own call (a customer acts on what they were told)."""
    return name.lower() in FREE_TEXT or call.get("by") == "customer"


def _values_by_role(task: StateTask, record: Mapping[str, Any]) -> dict[str, set[str]]:
    """The record's values by role: ``told`` (final message and the arguments
    :func:`_tells_user` names: what the user is told), ``used`` (other arguments of calls that
    may write; when the source marks no tool, of every call less what some output shows),
    ``read`` (outputs of read-only calls; of every call when the source marks no tool) and
    ``written`` (outputs of calls that may write)."""
    marked = task.read_only
    roles: dict[str, set[str]] = {"told": values(str(record.get("final_message") or "")),
                                  "used": set(), "read": set(), "written": set()}
    for call in _calls(record):
        reads = call.get("name") in marked or not marked
        writes = call.get("name") not in marked
        args = call.get("arguments") if isinstance(call.get("arguments"), Mapping) else {}
        for name, text in _strings(args):
            if _tells_user(name, call):
                roles["told"] |= values(text)
            elif writes:
                roles["used"] |= values(text)
        output = values(str(call.get("output") or ""))
        if reads:
            roles["read"] |= output
        if writes:
            roles["written"] |= output
    if not marked:   # a lookup key passed to a read may be the answer (a hotel's name)
        roles["used"] -= roles["read"]
    return roles


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _told_text(record: Mapping[str, Any]) -> str:
    """Everything the user is told, as text: the final message, free-text arguments and the
    arguments of the user's own calls."""
    parts = [str(record.get("final_message") or "")]
    for call in _calls(record):
        args = call.get("arguments") if isinstance(call.get("arguments"), Mapping) else {}
        parts += [text for name, text in _strings(args) if _tells_user(name, call)]
    return _squash(" ".join(parts))


def unreviewed_asks(instruction: str, reviewed: Mapping[str, Any]) -> list[str]:
    """The rules' question words that lie inside no reviewed question or not-question."""
    text = _squash(instruction)
    spans = []
    for item in [*(reviewed.get("questions") or ()), *(reviewed.get("not_questions") or ())]:
        quote = _squash(str(item.get("quote") or "")) if isinstance(item, Mapping) else ""
        start = text.find(quote) if quote else -1
        while start >= 0:
            spans.append((start, start + len(quote)))
            start = text.find(quote, start + 1)
    hits = []
    for m in (m for rx in (_ASKS, _WH_QUESTION) for m in rx.finditer(text)):
        words = m.group(0).lstrip(".!? ")   # a wh-question's match starts at the stop before it
        start = m.end() - len(words)
        if not any(a <= start and m.end() <= b for a, b in spans):
            hits.append(words.strip())
    return hits


def _reviewed_findings(task: StateTask, record: Mapping[str, Any], reviewed: Mapping[str, Any],
                       known: frozenset[str] | None) -> list[str]:
    told = _told_text(record)
    found = []
    for q in reviewed.get("questions") or ():
        tells = [str(t) for t in q.get("tells") or ()]
        missing = [t for t in tells if _squash(t) not in told]
        if missing:
            found.append(f"the reviewed question {str(q.get('quote'))[:_QUOTE]!r} is not "
                         f"answered: the reply does not tell {missing}")
        elif not tells:
            found += _value_test(task, record, str(q.get("quote")), known)
    for asked in unreviewed_asks(task.instruction, reviewed)[:1]:
        found += _value_test(task, record, asked, known)
    return found


def check_requested_answers(task: StateTask, record: Mapping[str, Any],
                            known: frozenset[str] | None = None,
                            reviewed: Mapping[str, Any] | None = None) -> list[str]:
    """One finding when the instruction asks for information and the record tells no new
    value (module rules); ``known``: :func:`state_values` of the task's state; ``reviewed``: the
    task's acceptance statement, whose reviewed questions, when it has them, replace the
    keyword reading."""
    if reviewed is not None and "questions" in reviewed:
        return _reviewed_findings(task, record, reviewed, known)
    asked = asks_for_information(task.instruction)
    if asked is None:
        return []
    return _value_test(task, record, asked, known)


def _value_test(task: StateTask, record: Mapping[str, Any], asked: str,
                known: frozenset[str] | None) -> list[str]:
    """The finding when ``record`` tells no new value in answer to ``asked``."""
    if task.state is not None:
        known = state_values(task.state) if known is None else known
    v = _values_by_role(task, record)
    created = {x for x in v["written"] - (known if task.state is not None else v["read"])
               if not _PLAIN_NUMBER.fullmatch(x)}   # a price a write reports can be the answer
    answers = v["told"] - values(task.instruction) - v["used"] - created
    if answers:
        return []
    message = str(record.get("final_message") or "")
    return [f"the request asks {asked!r} but the reply tells no value it did not write or "
            f"create: {message[:_QUOTE]!r}"]
