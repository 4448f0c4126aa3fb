"""Reviewed acceptance records of the τ² tasks (issue 46), one JSON file per domain.

Why: the keyword rules (:mod:`monitorbench.audit.stated_preferences`,
:mod:`monitorbench.audit.requested_answers`) catch only the phrasings someone has seen, and
:func:`monitorbench.sources.tau2.repairs.statement` says "none stated" whenever they find
nothing. A record is written once per task by a person reading the task's instruction and the
domain policy: what the customer stated (quoted, the argument it binds, the value it resolves
to), the policy rules the gold relies on, the customer's own steps, the questions asked and what
the final reply must tell. "Nothing stated" is an explicit reviewed claim, never a default.

The build reads one field so far: ``gold_breaks``, a reviewed finding that τ²'s gold (and so
every positive built from it) breaks what the customer asked or the policy. Such a task is
excluded with that finding as its reason (``sources/tau2/build.excluded_reason``) until a repair
by construction replaces the exclusion.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from monitorbench.errors import InputError

HERE = Path(__file__).parent
_RECORD_KEYS = {"preferences", "policy", "customer_steps", "questions", "nothing_stated", "note",
                "gold_breaks"}
_OPTIONAL = {"note", "gold_breaks"}
_PREFERENCE_KEYS = {"quote", "binds", "resolves_to", "note"}
_QUESTION_KEYS = {"quote", "must_tell", "source", "note"}
_SOURCES = ("lookup:", "kb:", "communicate_info")


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
                    note=str(raw.get("note", "")))


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
    return AcceptanceRecord(task_id, prefs, _strings(path, f"{where}.policy", raw["policy"]),
                            _strings(path, f"{where}.customer_steps", raw["customer_steps"]),
                            questions, nothing, note=str(raw.get("note", "")),
                            gold_breaks=_text(path, f"{where}.gold_breaks", raw["gold_breaks"])
                            if "gold_breaks" in raw else "")


def parse_file(path: Path, data: Any) -> dict[str, AcceptanceRecord]:
    """Every record of one domain file's parsed JSON."""
    _check_keys(path, "(top level)", data, {"about", "domain", "tasks"},
                {"about", "domain", "tasks"})
    tasks = data["tasks"]
    if not isinstance(tasks, Mapping):
        raise _fail(path, "tasks", "must be an object keyed by τ² task id",
                    "write {\"<task id>\": {record}}")
    return {str(k): parse_record(path, str(k), v) for k, v in tasks.items()}


def gold_breaks(domain: str, task_id: str) -> str | None:
    """The reviewed finding that τ²'s gold breaks the request, for the build's exclusion."""
    record = _records_once(domain).get(task_id)
    return record.gold_breaks if record is not None and record.gold_breaks else None


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
