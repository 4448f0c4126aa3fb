"""Repairs that make every gold solution true to its environment and its instruction, whatever
the task: the four kinds of defect AgentDojo's ground truths carry (issue 17).

AgentDojo's ground truths are written for its own checks, which read little: a payee by name
where the tool needs an IBAN (``recipient: "Spotify"``), a calendar event in the year before the
environment's today (the checks compare month and day only), ``1:30`` where the user asked for
``HH:MM``, lists whose first bullet was lost (``"Swimwear\\n- Sunscreen"``) or whose second item
is empty (``"1. Diamond Head 2."``). A careful verifier rejects each of them, so the gold must not
carry them. Each repair here is keyed on the instruction's words, the environment's data and the
call's own arguments, never on a task id, so it holds on tasks nobody has read.
:func:`repair` applies them to a gold call list and answer and says what it changed;
:func:`grounding_problems` lists entity arguments no repair could ground (the task is then left
out with that reason).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Iterator, Mapping, Sequence

Call = tuple[str, dict[str, Any]]

_IBAN = re.compile(r"^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$")
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YEAR = re.compile(r"\b(20\d\d)\b")
_CLOCK = re.compile(r"(?<![\d:.])(\d):(\d\d)(?![\d:])")
_READ_VERBS = ("get", "search", "list", "read", "find", "check")
# Arguments whose value names a thing the environment must hold (an account, an address, a file).
ENTITY_ARGS = frozenset({"recipient", "recipients", "iban", "email", "participants", "channel",
                         "user", "file_id", "event_id", "url"})
FREE_TEXT_ARGS = ("body", "content", "description", "text", "message")


def writes(name: str) -> bool:
    """A tool whose name does not start with a read verb changes the state."""
    return not name.startswith(_READ_VERBS)


# ------------------------------------------------------------------------------ entities


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _records(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every dict in a nested JSON value (transactions, e-mails, files...)."""
    if isinstance(value, Mapping):
        yield value
        for v in value.values():
            yield from _records(v)
    elif isinstance(value, list):
        for v in value:
            yield from _records(v)


def _own_ibans(state: Mapping[str, Any]) -> set[str]:
    return {"me", *(r["iban"] for r in _records(state) if isinstance(r.get("iban"), str))}


def resolve_iban(state: Mapping[str, Any], name: str) -> str | None:
    """The one counterparty IBAN of the transactions whose subject names ``name`` (a payee the
    user calls by name, e.g. "Spotify" -> the IBAN of "Spotify Premium"), else None."""
    word = re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE)
    own = _own_ibans(state)
    found = {party for r in _records(state) if isinstance(r.get("subject"), str)
             and word.search(r["subject"])
             for party in (r.get("sender"), r.get("recipient"))
             if isinstance(party, str) and party not in own and _IBAN.match(party)}
    return found.pop() if len(found) == 1 else None


def _iban_keys(state: Mapping[str, Any]) -> set[str]:
    """Keys under which the environment keeps only IBANs (``recipient``, ``sender``)."""
    seen: dict[str, set[bool]] = {}
    for r in _records(state):
        for k, v in r.items():
            if isinstance(v, str) and v != "me":
                seen.setdefault(k, set()).add(bool(_IBAN.match(v)))
    return {k for k, kinds in seen.items() if kinds == {True}}


def ground_payees(state: Mapping[str, Any], calls: Sequence[Call]) -> tuple[list[Call], list[str]]:
    """Replace a payee named in words by the IBAN the history shows for it, in arguments whose
    key the environment fills with IBANs only."""
    keys = _iban_keys(state)
    out, changed = [], []
    for name, args in calls:
        new = dict(args)
        for k, v in args.items():
            if k in keys and isinstance(v, str) and not _IBAN.match(v):
                iban = resolve_iban(state, v)
                if iban is not None:
                    new[k] = iban
                    changed.append(f"calls: {name}.{k} is {iban}, the account the history shows "
                                   f"for {v!r} (the source names the payee, not an IBAN)")
        out.append((name, new))
    return out, changed


def grounding_problems(state: Mapping[str, Any], prompt: str, calls: Sequence[Call],
                       outputs: Sequence[str]) -> list[str]:
    """Entity arguments of state-changing calls that are neither a string of the initial state,
    nor in an earlier call's output or arguments, nor in the instruction; and payees that are
    not IBANs where the environment keeps IBANs only."""
    known = {s.strip().casefold() for s in _strings(state)}
    keys = _iban_keys(state)
    out = []
    for i, (name, args) in enumerate(calls):
        if not writes(name):
            continue
        seen = " ".join([prompt, *outputs[:i], *(str(a) for _, a in calls[:i])]).casefold()
        for k, v in args.items():
            if k not in ENTITY_ARGS:
                continue
            for s in _strings(v):
                if k in keys and not _IBAN.match(s):
                    out.append(f"{name}.{k} = {s!r}: not an IBAN")
                elif s.strip().casefold() not in known and s.casefold() not in seen:
                    out.append(f"{name}.{k} = {s!r}: not in the environment or the record")
    return out


# ------------------------------------------------------------------------------ dates


def today(state: Mapping[str, Any]) -> dt.date | None:
    """The environment's current day (its calendar's ``current_day``), None without a clock."""
    for r in _records(state):
        value = r.get("current_day")
        if value is not None and (m := _ISO_DAY.match(str(value))):
            return dt.date(*map(int, m.groups()))
    return None


def _right_year(day: dt.date, prompt: str, now: dt.date | None) -> int:
    """The year an instruction means for a day it names: the year it states, else the first
    year from ``now`` on (an event the user asks for is not in the past)."""
    stated = {int(y) for y in _YEAR.findall(prompt)}
    if day.year in stated:
        return day.year
    if len(stated) == 1:
        return stated.pop()
    if now is not None and day < now:
        year = now.year if (day.month, day.day) >= (now.month, now.day) else now.year + 1
        return year
    return day.year


def align_dates(prompt: str, now: dt.date | None, calls: Sequence[Call], message: str
                ) -> tuple[list[Call], str, list[str]]:
    """Move every date a state-changing call writes to the year the instruction and the clock
    mean; the same date in the answer moves with it."""
    moves: dict[str, str] = {}
    for name, args in calls:
        for text in _strings(args) if writes(name) else ():
            for m in _ISO_DAY.finditer(text):
                try:
                    day = dt.date(*map(int, m.groups()))
                except ValueError:
                    continue
                year = _right_year(day, prompt, now)
                if year != day.year:
                    moves[m.group()] = day.replace(year=year).isoformat()
    if not moves:
        return list(calls), message, []

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            return _ISO_DAY.sub(lambda m: moves.get(m.group(), m.group()), value)
        if isinstance(value, list):
            return [fix(v) for v in value]
        return value
    fixed = [(n, {k: fix(v) for k, v in a.items()} if writes(n) else a) for n, a in calls]
    changed = [f"calls: {old} written as {new} (the instruction's year, or the first one not "
               f"before the environment's today {now})" for old, new in sorted(moves.items())]
    return fixed, fix(message), changed


# ------------------------------------------------------------------------------ text


def pad_clock(prompt: str, text: str) -> str:
    """Times as ``HH:MM`` when the instruction asks for that format (``1:30`` -> ``01:30``)."""
    if "HH:MM" not in prompt:
        return text
    return _CLOCK.sub(r"0\1:\2", text)


def fix_bullets(text: str) -> str:
    """A list whose first bullet was lost (``"Swimwear\\n- Sunscreen"``) or whose bullets lack
    their space (``"-Mia"``) written as a list: every line ``- item``."""
    lines = text.split("\n")
    rest = [ln for ln in lines[1:] if ln.strip()]
    if len(lines) < 2 or not rest or not all(ln.lstrip().startswith("-") for ln in rest):
        return text
    first = lines[0]
    if not first.lstrip().startswith("-") and not first.rstrip().endswith(":"):
        first = f"- {first.strip()}"
    return "\n".join([first, *(re.sub(r"^(\s*)-(?=\S)", r"\1- ", ln) for ln in lines[1:])])


_EMPTY_ITEM = re.compile(r"(?:^|\s)(\d{1,2})\.(?!\d)(?=\s*(?:\d{1,2}\.(?!\d)|$))")


def empty_items(text: str) -> list[str]:
    """The numbers of numbered answer items with nothing after them (``"1. Diamond Head 2."``).
    Only in a numbered answer (an item ``1.`` opens a line): ``"rated 4.2."`` or ``"... is 4."``
    are no items."""
    if not re.search(r"(?m)^\s*1\.(?!\d)", text):
        return []
    return [m.group(1) for m in _EMPTY_ITEM.finditer(text)]


def split_items(text: str) -> str:
    """A one-line numbered answer (``"1. 463820 2.https://..."``) as one item per line."""
    if "\n" in text or not re.match(r"\s*1\.", text):
        return text
    return re.sub(r"\s*(?<![\d.])(\d{1,2})\.(?!\d)\s*", lambda m: f"\n{m.group(1)}. ",
                  text).strip()


def describe(calls: Sequence[Call]) -> str:
    """What the state-changing calls did, in words built from their names and arguments."""
    parts = []
    for name, args in calls:
        if not writes(name):
            continue
        shown = ", ".join(f"{k.replace('_', ' ')} {_short(v)}" for k, v in args.items())
        parts.append(f"{name.replace('_', ' ')} ({shown})" if shown else name.replace("_", " "))
    return "Done: " + "; ".join(parts) + "." if parts else ""


def _short(value: Any) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return repr(" / ".join(ln.strip("- ").strip() for ln in text.splitlines() if ln.strip()))


def fill_empty_item(prompt: str, calls: Sequence[Call], message: str) -> str:
    """An answer to a numbered instruction whose last item is empty (the source's ``"1. Diamond
    Head 2."``, where item 2 was an action) gets that item: what the actions did."""
    items = empty_items(message)
    done = describe(calls)
    if len(items) != 1 or not done or not re.search(rf"\b{items[0]}\.\s", prompt):
        return message
    return re.sub(rf"(?:^|\s){items[0]}\.\s*$", f"\n{items[0]}. {done}", message.rstrip())


# ------------------------------------------------------------------------------ all together


def repair(state: Mapping[str, Any], prompt: str, calls: Sequence[Call], message: str,
           facts: Sequence[str]) -> tuple[list[Call], str, list[str], list[str]]:
    """Every repair above applied to one gold: (calls, message, facts, what changed and why)."""
    calls, changed = ground_payees(state, calls)
    calls, message, moved = align_dates(prompt, today(state), calls, message)
    changed += moved
    fixed = [(n, {k: fix_bullets(v) if k in FREE_TEXT_ARGS and isinstance(v, str) else v
                  for k, v in a.items()}) for n, a in calls]
    if fixed != calls:
        changed.append("calls: a list argument whose first bullet was lost written as a list")
    steps = ((lambda m: pad_clock(prompt, m), "times as HH:MM as the instruction asks"),
             (fix_bullets, "a list whose first bullet was lost written as a list"),
             (split_items, "one numbered item a line"),
             (lambda m: fill_empty_item(prompt, fixed, m),
              "the empty last item says what the actions did"))
    for step, why in steps:
        if (new := step(message)) != message:
            changed.append(f"answer: {why}")
            message = new
    return fixed, message, [pad_clock(prompt, f) for f in facts], changed


def record_problems(state: Mapping[str, Any], prompt: str, candidate: Mapping[str, Any]
                    ) -> list[str]:
    """What in a positive record breaks one of the rules above: an ungrounded entity, a date
    the clock or the instruction contradicts, a stated time format not met, an empty or broken
    list item. Empty when the record is right on all of them."""
    calls = [(c["name"], c["arguments"]) for c in candidate["calls"]]
    message = candidate["final_message"]
    out = grounding_problems(state, prompt, calls, [c["output"] for c in candidate["calls"]])
    if align_dates(prompt, today(state), calls, "")[0] != calls:
        out.append("a date the instruction or the clock contradicts")
    if pad_clock(prompt, message) != message:
        out.append("a time not in the HH:MM format the instruction states")
    texts = [message, *(v for _, a in calls for k, v in a.items()
                        if k in FREE_TEXT_ARGS and isinstance(v, str))]
    if any(empty_items(t) for t in texts):
        out.append("an empty numbered item")
    if any(fix_bullets(t) != t for t in texts):
        out.append("a list with a lost or malformed bullet")
    return out
