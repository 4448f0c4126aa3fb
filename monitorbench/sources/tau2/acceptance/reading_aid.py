"""The reading aid of a blind banking pass: the lines of a reader's own record that a rule of
GUIDE.md names by its words, listed for the reader to decide again (issue 46).

Why: of the deciding twenty-seventh pass's 16 disagreements, 12 were the reader's under the
guide, and most were items the guide names that the reader filed as a not-item: a condition
("If the agent mentions multiple cards, ask them to make one recommendation" filed as manner),
what is kept (a "keep the Silver one" filed as a restatement of the closure), a reason a tool
takes (the theft, inside a manner line). A reader who has written a record reads those lines
once, and a second look at the ones a rule's words point to is what a careful reviewer does.

The aid reads only the reader's record and the cue words below; it never reads a task's
reviewed record, so a pass read with it stays blind. It lists, it does not decide: each line
names the rule, and the reader keeps the line as it is where the rule does not make it an
item. A ``restated`` sentence is listed only where it says what its ``of`` does not (a
restatement states nothing new), and an item quoted at a lead-in ending in a colon is listed
because the guide makes such a line an item only where it says the ask itself.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from monitorbench.sources.tau2.acceptance import AcceptanceRecord


FIGURE = "a figure"
# A record whose preferences bind one of these writes opens, applies for or refers a product:
# only there is a figure about the customer a criterion (coverage rule 2), elsewhere situation.
_OPENS = re.compile(r"open|apply|referral", re.I)


class Cue(NamedTuple):
    """Words that point at a rule of GUIDE.md, and the rule."""

    what: str
    words: re.Pattern[str]
    rule: str


CUES = (
    Cue("a condition", re.compile(r"\b(?:if|unless|only when|as long as)\b", re.I),
        "preferences rule 3: every condition and fallback is its own item; a conditional ask "
        "for one option is a question (Recommendations); only a lead-in that says when the "
        "line of its own sentence is said is `order`"),
    Cue("what is kept", re.compile(r"\b(?:keep|keeps|keeping|kept|stay|stays)\b", re.I),
        "preferences rule 6: what is kept is an item when the customer says it; an answer "
        "about a term of the product is a criterion (coverage rule 2)"),
    Cue("an ask for a human", re.compile(
        r"\b(?:human|supervisor|real person|someone (?:who|else)|escalat\w*)\b", re.I),
        "coverage rule 6: every ask for a human is an item binding transfer_to_human_agents"),
    Cue("a reason a tool may take", re.compile(
        r"\b(?:stolen|theft|lost|fraud\w*|compromised|damaged)\b", re.I),
        "a reason is an item where a tool argument holds it (a closure's, a replacement's or a "
        "dispute's reason); only a reason no argument takes is `reason`"),
    Cue(FIGURE, re.compile(r"\$\s?\d|\d\s?%"),
        "coverage rule 2: money the customer puts into, keeps in or spends through a product "
        "opened or applied for is a criterion item, one per figure at its first statement"),
)
# An `order` line is the guide's own place for a lead-in that says when a line is said, most of
# them conditions ("**If the agent offers a statement credit:**"): listing them (109 of the
# twenty-seventh pass's 226 cue lines) buried the few the reader had misfiled elsewhere.
UNLISTED = frozenset({"order"})
# A lead-in over the lines under it ("After freezing, confirm cards should be cancelled:").
_LEAD_IN = re.compile(r"^\W*(?:if|when|once|after|before|unless|only)\b.*:\W*$", re.I | re.S)
LEAD_IN_RULE = ("coverage rule 4 and Spans: a label that says the ask itself is the item; one "
                "that only says when the lines under it are said is `order`, and the line that "
                "says the ask is the item")


def _cues(text: str, opens: bool) -> list[Cue]:
    return [c for c in CUES if c.words.search(text) and (opens or c.what != FIGURE)]


def to_confirm(rec: AcceptanceRecord) -> list[str]:
    """The record's lines a rule's words point to, each with the rule: not-items but `order`
    holding a cue (a ``restated`` one only where its ``of`` lacks that cue; a figure only where
    a preference of the record opens or applies for a product), and items quoted at a lead-in
    ending in a colon."""
    opens = any(_OPENS.search(p.binds) for p in rec.preferences)
    lines = []
    for n in rec.not_items:
        if n.why in UNLISTED:
            continue
        cues = _cues(n.quote, opens)
        if n.why == "restated":
            cues = [c for c in cues if not c.words.search(n.of or "")]
        lines += [f"not-item ({n.why}) {n.quote!r} holds {c.what}: {c.rule}" for c in cues]
    for item in (*rec.preferences, *rec.questions):
        if _LEAD_IN.match(item.quote):
            lines.append(f"item {item.quote!r} is a lead-in: {LEAD_IN_RULE}")
    return lines
