"""Sentence coverage of a τ² brief by its acceptance record (issue 46).

Why: the blind passes showed that banking's disagreements are not quote spans but items one
reader records and the other omits: free-form reading lets each reader skip different
sentences. Coverage makes the reading mechanical: the brief is split into sentences
(:func:`sentences`), and every one must be accounted for by a quote of the record (an item, a
not-question or a not-item with its category, GUIDE.md "Coverage (banking)");
:func:`uncovered` lists those that are not, so a reader checks their own work.
"""

from __future__ import annotations

import re

from monitorbench.sources.tau2.acceptance import AcceptanceRecord
from monitorbench.sources.tau2.acceptance.second_pass import _norm

# The domains whose records must cover every sentence of the brief (GUIDE.md): airline and
# retail briefs are short and two readers already agree on them.
COVERAGE_DOMAINS = ("banking_knowledge",)
# τ²'s fixed framing, not the customer's words: the header every brief starts with and the
# role lines τ² appends to some briefs unchanged. Listed rather than derived from every brief,
# because only the header is in all of them; a test checks each is in some banking brief.
BOILERPLATE = (
    "The customer's brief:",
    "You are playing the role of a customer contacting a customer service representative agent.",
    "You are currently on the line with a customer support agent.",
    "Don't dump all your information at once.",
    "Never respond as a customer service representative/assistant.",
    "You are playing the role of the customer.",
)
_BOILERPLATE = frozenset(_norm(s) for s in BOILERPLATE)
# τ²'s token that ends the simulated customer's side of the call: a signal, not words.
_STOP = "###STOP###"
# A line's list or heading marker: "## ", "- ", "* ", "> ", "3. ".
_MARKER = re.compile(r"^\s*(?:#+|[-*>]|\d+\.)\s+")
# A bold label ending in a colon ("**Your goal:**"); it is split from what follows it.
_LABEL = re.compile(r"\*\*([^*]+?:)\*\*")
# Words that make a label a stage direction (GUIDE.md quotes those), not a part's name.
_CONDITION = re.compile(r"^(?:if|when|once|after|before|unless|only)\b", re.IGNORECASE)
# A sentence ends at . ! ? (and a closing quote or bracket) before a space, or right before a
# capital where the brief lacks the space ("right now.Your main source").
_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+|(?<=[a-z0-9)][.!?])(?=[A-Z])")


def _segments(line: str) -> list[tuple[str, bool]]:
    """The line's pieces without markdown, each with whether it is a structural label (a
    ``#`` heading, or a bold label ending in a colon that names a part, not a condition)."""
    line = line.replace(_STOP, "")
    heading = line.lstrip().startswith("#")
    body = _MARKER.sub("", line)
    pieces: list[tuple[str, bool]] = []
    rest = 0
    for m in _LABEL.finditer(body):
        pieces.append((body[rest:m.start()], heading))
        pieces.append((m.group(1), not _CONDITION.match(m.group(1).strip())))
        rest = m.end()
    pieces.append((body[rest:], heading))
    return [(re.sub(r"\*\*|__|`", "", p).strip(), label) for p, label in pieces]


def sentences(brief: str) -> list[str]:
    """The brief's sentences in order: split at line breaks, bold labels and sentence ends,
    markdown markers and τ²'s ``###STOP###`` token stripped; τ²'s :data:`BOILERPLATE`,
    structural labels ("Your goal:", "Conversation Flow:") and pieces with no word or figure
    (``---``) dropped."""
    out = []
    for line in brief.splitlines():
        for piece, label in _segments(line):
            if label:
                continue
            for sentence in _END.split(piece):
                sentence = sentence.strip()
                if _norm(sentence) and _norm(sentence) not in _BOILERPLATE:
                    out.append(sentence)
    return out


def record_quotes(rec: AcceptanceRecord) -> list[str]:
    """Every quote of the record that accounts for words of the brief."""
    return [i.quote for i in (*rec.preferences, *rec.questions, *rec.not_questions,
                              *rec.not_items)]


def covers(quote: str, sentence: str) -> bool:
    """The quote accounts for the sentence: under :func:`second_pass._norm`, one contains the
    other (a quote of a clause covers its sentence; one over two sentences covers both)."""
    q, s = _norm(quote), _norm(sentence)
    return bool(q) and (q in s or s in q)


def uncovered(rec: AcceptanceRecord, brief: str) -> list[str]:
    """The brief's :func:`sentences` that no quote of the record covers, in order."""
    quotes = record_quotes(rec)
    return [s for s in sentences(brief) if not any(covers(q, s) for q in quotes)]
