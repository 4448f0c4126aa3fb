"""The keyword rules against the reviewed records (issue 46): each keeps the other honest.

Why: the C8 rules (:mod:`monitorbench.audit.stated_preferences`,
:mod:`monitorbench.audit.requested_answers`) read the instruction's words; a record is a
person's reading of the same words. Where they differ, one of them is wrong: a rule that finds
a payment method or a question the record lacks points at a record to fix, and a record item
the rules miss shows a phrasing the rules do not know ("the other card"). This lists the
differences; it decides nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from monitorbench.audit.requested_answers import asks_for_information, unreviewed_asks
from monitorbench.audit.stated_preferences import preferences
from monitorbench.sources.tau2 import source as src
from monitorbench.sources.tau2.acceptance import (AcceptanceRecord, load_records,
                                                  reviewed_questions)

# Record arguments that are a payment or refund method (what stated_method looks for).
_PAYMENT_BINDS = ("payment_id", "payment_methods", "refund method")


@dataclass(frozen=True)
class Disagreement:
    """One place where a keyword rule and a task's record differ."""

    task_id: str
    kind: str      # "rule-only preference", "record-only payment", "rule-only question", ...
    detail: str


def _tool_parameters(domain: str) -> dict[str, Mapping[str, Any]]:
    return {t["name"]: t.get("parameters") or {} for t in src.tool_specs(domain)}


def _record_text(rec: AcceptanceRecord) -> str:
    return " ".join(f"{p.quote} {p.binds} {p.resolves_to}" for p in rec.preferences).lower()


def _preference_disagreements(task_id: str, instruction: str, rec: AcceptanceRecord,
                              tools: Mapping[str, Mapping[str, Any]]) -> list[Disagreement]:
    """A rule preference whose token no record preference names, and a record payment
    preference where the rule finds no method."""
    found = preferences(instruction, tools)
    text = _record_text(rec)
    out = [Disagreement(task_id, "rule-only preference",
                        f"the rule binds {p.argument} to {p.token!r} ({p.quote!r})")
           for p in found if p.token.lower().replace("_", " ") not in text.replace("_", " ")]
    rule_method = any("payment" in p.argument or "method" in p.argument for p in found)
    out += [Disagreement(task_id, "record-only payment",
                         f"the record binds {p.binds} ({p.quote!r}); the rule finds no method")
            for p in rec.preferences
            if not rule_method and any(w in p.binds for w in _PAYMENT_BINDS)]
    return out


def _question_disagreements(task_id: str, instruction: str,
                            rec: AcceptanceRecord) -> list[Disagreement]:
    """The question rule against the record's questions (present or absent): a question word
    of the rule inside no reviewed question and no reviewed not-question, and a record
    question where the rule finds none."""
    asked = asks_for_information(instruction)
    outside = unreviewed_asks(instruction, reviewed_questions(rec))
    if outside:
        return [Disagreement(task_id, "rule-only question",
                             f"the rule reads a question in {outside[0]!r}; the record neither "
                             "asks it nor explains it")]
    if rec.questions and not asked:
        return [Disagreement(task_id, "record-only question",
                             f"the record asks {q.quote!r}; the rule finds no question")
                for q in rec.questions]
    return []


def _order(task_id: str) -> tuple[int, str]:
    """τ²'s order: airline and retail ids are numbers ("9" before "10")."""
    return (int(task_id), "") if task_id.isdigit() else (0, task_id)


def cross_check(domain: str) -> list[Disagreement]:
    """Every difference between the keyword rules and ``domain``'s records, by task."""
    tasks = {t.task_id: t for t in src.load_tasks(domain)}
    tools = _tool_parameters(domain)
    out: list[Disagreement] = []
    for task_id, rec in sorted(load_records(domain).items(), key=lambda kv: _order(kv[0])):
        if task_id not in tasks:
            continue   # the quote test reports an unknown task
        instruction = src.user_request(tasks[task_id])
        out += _preference_disagreements(task_id, instruction, rec, tools)
        out += _question_disagreements(task_id, instruction, rec)
    return out
