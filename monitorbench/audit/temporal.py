"""C8 temporal consistency: every date a positive writes agrees with the clock and the words.

A gold that books next November's trip in the previous November (the environment's today is
2024-05-15, the event lands on 2023-11-14) leaves the user without the event they asked for; a
verifier that checks the date must not be punished. Dates are the ``YYYY-MM-DD`` prefixes found
in string arguments (nested ones too). A finding when

* **stated date changed**: the instruction states a date with its year (``2024-04-25``,
  ``April 25, 2024``, ``25 April 2024``) and an argument has the same month and day in another
  year;
* **past date**: the environment's current date is known (``environment.today``, see
  :mod:`monitorbench.audit.environment`), the call writes (its name does not start with a read
  verb: :data:`READ_VERBS`), the date is before today, the instruction does not state that date,
  and the instruction speaks of nothing past (:data:`_PAST`: ``yesterday``, ``last week``,
  ``ago``, ``previous``...). A request about the past may rightly write a past date; one about
  an upcoming event may not. A date the record takes from the environment (a value of the
  initial state, or of an earlier call's output: a passenger's birth date, a flight already
  booked) is a fact the environment holds, not a date the agent chose, and is not a finding.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Iterator, Mapping, Sequence

from monitorbench.audit.environment import StateTask, parse_day
from monitorbench.audit.grounding import Grounds, StateIndex

READ_VERBS = ("get", "search", "list", "read", "find", "check", "view", "query", "lookup",
              "fetch", "show", "count", "calculate", "compute")
_MONTHS = ("january february march april may june july august september october november "
           "december").split()
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY_YEAR = re.compile(_MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b",
                             re.IGNORECASE)
_DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH
                             + r",?\s+(\d{4})\b", re.IGNORECASE)
_PAST = re.compile(r"\b(?:yesterday|last (?:week|month|year|time|\w+day)|ago|previous(?:ly)?|"
                   r"earlier|past|in the past)\b", re.IGNORECASE)
_QUOTE = 60


def _month(name: str) -> int:
    return next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(name[:3].lower()))


def _safe(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def stated_dates(text: str) -> list[date]:
    """The dates with a year that a text states, in ISO or English form."""
    out = [_safe(int(y), int(m), int(d)) for y, m, d in _ISO.findall(text)]
    out += [_safe(int(y), _month(m), int(d)) for m, d, y in _MONTH_DAY_YEAR.findall(text)]
    out += [_safe(int(y), _month(m), int(d)) for d, m, y in _DAY_MONTH_YEAR.findall(text)]
    return [d for d in out if d is not None]


_MONTH_DAY = re.compile(_MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b", re.IGNORECASE)
_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH, re.IGNORECASE)


def mentioned_days(text: str) -> set[tuple[int, int]]:
    """(month, day) of every date a text mentions, with or without its year."""
    out = {(int(m), int(d)) for _, m, d in _ISO.findall(text)}
    out |= {(_month(m), int(d)) for m, d in _MONTH_DAY.findall(text)}
    return out | {(_month(m), int(d)) for d, m in _DAY_MONTH.findall(text)}


def _argument_dates(value: Any, name: str) -> Iterator[tuple[str, date]]:
    if isinstance(value, str):
        for m in _ISO.finditer(value):
            if (day := parse_day(m.group(0))) is not None:
                yield name, day
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _argument_dates(v, f"{name}.{k}")
    elif isinstance(value, list):
        for v in value:
            yield from _argument_dates(v, name)


def writes(call_name: str) -> bool:
    """Whether a tool name reads as a change (not one of the read verbs)."""
    return not call_name.lower().startswith(READ_VERBS)


def _date_finding(task: StateTask, call: str, day: date, stated: Sequence[date],
                  grounds: Grounds) -> str | None:
    changed = [s for s in stated if (s.month, s.day) == (day.month, day.day) and s.year != day.year]
    if changed:
        return f"the instruction states {changed[0].isoformat()}"
    if (task.today is not None and writes(call) and day < task.today and day not in stated
            and not _PAST.search(task.instruction) and not grounds.holds(day.isoformat())):
        return (f"before the environment's today {task.today.isoformat()}, and the instruction "
                f"asks about nothing past")
    return None


def check_temporal(task: StateTask, candidate: Mapping[str, Any],
                   index: StateIndex | None = None) -> list[str]:
    """One finding per argument date that contradicts the instruction or the clock
    (``index``: :meth:`StateIndex.of` the task's state, when the caller checks many records)."""
    stated = stated_dates(task.instruction)
    grounds = Grounds(task, index if index is not None else StateIndex.of(task.state))
    calls = candidate.get("calls")
    out = []
    for i, call in enumerate(calls if isinstance(calls, Sequence) else []):
        if not isinstance(call, Mapping) or not isinstance(call.get("arguments"), Mapping):
            continue
        name = str(call.get("name"))
        for top, value in call["arguments"].items():
            for arg, day in _argument_dates(value, str(top)):
                if (why := _date_finding(task, name, day, stated, grounds)) is not None:
                    out.append(f"calls[{i}] {name}.{arg} = {day.isoformat()}: {why}")
        grounds.texts += [repr(call.get("output"))]
    return out
