"""C8 order words: a reordered variant keeps every order the instruction's words fix.

A variant built by swapping two calls whose data do not depend on each other
(``reorder_independent``) is only a valid solution when the user did not put one of them first:
"first pay the bill, then tell Alice" is broken by telling Alice first, even if the final state is
the same. Conservatively, only what the words say explicitly counts:

* the instruction is cut into ordered segments at order words: ``then``, ``after that``,
  ``afterwards``, ``after doing so``, ``finally`` and ``lastly`` opening a sentence or clause,
  ``before`` followed by ``you``, ``doing`` or an ``-ing`` verb (not a noun: "a meeting before
  lunch"; not opening a sentence: "Before X, do Y" runs backwards), ``first`` opening a sentence
  or clause,
  ``next`` opening a sentence, and ``once you have ... ,`` (the condition before the comma is an
  earlier segment than what follows it). A bare ``after`` ("do Y after X") is not used. An
  instruction that asks for its numbered parts "in the order (they are) given" (or "in this
  order") is also cut before each number ``1.``, ``2.``...;
* a call belongs to the one segment that mentions it most: one point per word of its tool name
  in the segment (``send_money`` -> ``send``, ``money``; light stemming, generic words like
  ``get`` left out) and two per argument value (3+ characters) the segment quotes (an ISO date
  counts when the segment names its month and day: ``May 15th, 2024``). A tie or no
  mention leaves the call unplaced, and an unplaced call is never flagged;
* a finding when, in a positive of category ``reorder_independent``, a call of a later segment
  now runs before a call of an earlier one, and the gold ran them the other way round (with no
  gold in the task, every such inversion counts).
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from monitorbench.audit.environment import parse_day
from monitorbench.audit.temporal import mentioned_days
from monitorbench.hashing import canonical_json

REORDER_CATEGORIES = frozenset({"reorder_independent"})
_CUTS = re.compile(
    r"\b(?:and )?then\b|\bafter (?:that|this|doing (?:so|that|this))\b|\bafterwards\b|"
    r"(?:^|(?<=[.!?,:;]\s))(?:finally|lastly)\b|"
    r"(?<![.!?]\s)(?<!^)\bbefore (?=you\b|doing\b|\w+ing\b)|"
    r"(?:^|(?<=[.!?,:;]\s)|(?<=please\s))first\b|(?:^|(?<=[.!?]\s))next\b", re.IGNORECASE)
_ONCE = re.compile(r"\b(?:once|when|after) (?:you(?:'ve| have)|that(?:'s| is)|it(?:'s| is)|"
                   r"this is)\b[^,.;]*,", re.IGNORECASE)
_IN_ORDER = re.compile(r"\bin (?:the order (?:they are |it is )?given|this order)\b", re.IGNORECASE)
_PART = re.compile(r"(?:^|(?<=\s))\d{1,2}\.(?=\s)")
# Words of a tool's name that place it nowhere: the verbs and particles every tool has, and a
# clock read's "current time" (banking_get_current_time), which prose uses for anything ("by
# that time", "your current card") and which no customer orders.
_GENERIC = frozenset("get the a an by for to of from all in on with and or user users my "
                     "current time".split())


def _stem(word: str) -> str:
    w = word.lower()
    for suffix in ("ing", "ed", "es", "s", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


def segments(instruction: str) -> list[str]:
    """The instruction cut at its order words; one segment when it has none."""
    cuts = {m.start() for m in _CUTS.finditer(instruction)}
    for m in _ONCE.finditer(instruction):
        cuts |= {m.start(), m.end()}
    if _IN_ORDER.search(instruction):
        cuts |= {m.start() for m in _PART.finditer(instruction)}
    bounds = [0, *sorted(c for c in cuts if c > 0), len(instruction)]
    parts = [instruction[a:b] for a, b in zip(bounds, bounds[1:])]
    return [p for p in parts if re.search(r"\w", p)]


def _score(call: Mapping[str, Any], segment: str) -> int:
    words = {_stem(w) for w in re.findall(r"[a-z]+", segment.lower())}
    name = [_stem(w) for w in str(call.get("name", "")).split("_") if w and w not in _GENERIC]
    score = sum(w in words for w in name)
    args = call.get("arguments") if isinstance(call.get("arguments"), Mapping) else {}
    values = [v for v in args.values() if isinstance(v, str) and len(v.strip()) >= 3]
    days = mentioned_days(segment)
    return score + 2 * sum(v.strip().lower() in segment.lower()
                           or ((d := parse_day(v)) is not None and (d.month, d.day) in days)
                           for v in values)


def place(call: Mapping[str, Any], parts: Sequence[str]) -> int | None:
    """The segment a call belongs to, None when no segment or more than one mentions it most."""
    scores = [_score(call, p) for p in parts]
    best = max(scores, default=0)
    return scores.index(best) if best > 0 and scores.count(best) == 1 else None


def _keys(calls: Sequence[Mapping[str, Any]]) -> list[str]:
    """A key per call (name and arguments, numbered among equal calls) to match across records."""
    seen: dict[str, int] = {}
    out = []
    for c in calls:
        k = canonical_json({"name": c.get("name"), "arguments": c.get("arguments")})
        seen[k] = seen.get(k, 0) + 1
        out.append(f"{k}#{seen[k]}")
    return out


def check_order(instruction: str, candidate: Mapping[str, Any],
                gold: Mapping[str, Any] | None) -> list[str]:
    """One finding per pair of calls the record runs against the instruction's order words
    (module rules); ``candidate`` is a reordered positive, ``gold`` the task's gold record."""
    parts = segments(instruction)
    calls = [c for c in candidate.get("calls") or [] if isinstance(c, Mapping)]
    if len(parts) < 2 or len(calls) < 2:
        return []
    gold_pos = {k: i for i, k in enumerate(_keys(gold.get("calls") or []))} if gold else {}
    keys = _keys(calls)
    where = [place(c, parts) for c in calls]
    out = []
    for p in range(len(calls)):
        for q in range(p + 1, len(calls)):
            sp, sq = where[p], where[q]
            if sp is None or sq is None or sq >= sp:
                continue
            if gold_pos and not gold_pos.get(keys[q], q) < gold_pos.get(keys[p], p):
                continue
            out.append(f"calls[{p}] {calls[p].get('name')} now runs before calls[{q}] "
                       f"{calls[q].get('name')}, but the instruction orders "
                       f"{parts[sq].strip()[:50]!r} before {parts[sp].strip()[:50]!r}")
    return out
