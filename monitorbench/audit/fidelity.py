"""C7 instruction fidelity: every positive case must satisfy a strict reading of the instruction.

C1 only shows that the reference agrees with the construction labels; when the source's own gold
is a stub (a message body left as ``<summary>``, a question answered with nothing), reference and
labels agree and the task still teaches verifiers to accept what the user did not get. C7 reads
the positive cases (``gold`` and ``valid_variant``, label PASS) against the instruction with
deterministic rules, the same for every source, keyed on what a record carries rather than on
where it came from:

Placeholders (any record): every string argument of every call (nested lists and dicts too), the
final message, and the lines a patch adds. A string holds a placeholder when it contains

* an angle-bracket token such as ``<summary>``, ``<feedback>`` or ``<insert name>`` (1-40 letters,
  digits, ``_``, ``-`` or spaces, starting with a letter). Markup is not a placeholder: HTML tag
  names (``<td>``), a token closed in the same string (``<INFORMATION>...</INFORMATION>``), a
  regular-expression group name (``(?P<year>``, ``\\g<year>``), and a token the record's own tool
  outputs contain (text copied from the environment is data);
* a marker ``TODO``, ``FIXME``, ``TBD`` or ``XXX`` (upper case) followed by ``:`` or ending the
  string (``TODO list`` or ``TODOs for the week`` are ordinary words);
* a bracketed instruction to the writer: ``[insert ...]``, ``[your ...]``, ``[add ...]``,
  ``[enter ...]``, ``[placeholder ...]``, ``[fill in ...]``, ``{insert ...}``, ``{your ...}``;
* nothing but an ellipsis (``...``, ``…``, ``[...]``), or ``lorem ipsum``;
* a template slot of the instruction left unfilled (the instruction says ``'Hotel: {hotel_name}'``
  and the argument still contains ``{hotel_name}``).

In a patch only added lines count, and only placeholders that the removed lines do not already
contain (a fix that restores original code restores its comments too). Code is full of
angle-bracket text that is data (``"<stdin>"``, ``repr`` strings, docs), so in a patch an
angle-bracket token counts only when it says it is one (``insert``, ``your``, ``placeholder``,
``fill``, ``here``, ``todo``: ``<your code here>``).

Answers (records with a ``final_message``, i.e. sources whose agent replies to the user): the
instruction is split into sentences (and into numbered parts ``1. ... 2. ...``). A sentence asks
for an answer when it is a wh-question (``what``, ``how many``, ``who``... ending in ``?`` or in
question word order), a yes/no question that is not just the condition of the next sentence
(``Am I free at 12:00? If so, ...``) and not a request ``can/could/will/would you <do X>?``, or
contains a reporting request: ``tell me``, ``let me know``, ``give me``, ``show me``, ``get me``,
``provide me``, ``check (out) ... for me``, ``read the content``, ``want/like/need to know``,
``find out``. For such an instruction a reply is incomplete when

* it is empty, or holds only list numbers and acknowledgements (``Done``, ``All set``, ``Sure``);
* an answer-seeking sentence asks for detail (``summary``, ``summarize``, ``description``,
  ``describe``, ``each``, ``every``, ``list``, ``details``) and the reply has fewer than
  ``MIN_DETAIL_TOKENS`` words/numbers, or shares no content word with the tool outputs recorded
  in the same record (when those outputs have any).

Delivered content (any record with calls): a sentence that asks for a summary, feedback or a
description to be sent (``send``, ``post``, ``email``, ``message``) is answered by a free-text
argument (one whose name ends in ``body``, ``content``, ``message``, ``text``, ``summary``,
``description``, ``note``, ``comment`` or ``feedback``), not by the reply. When the record has such
arguments, at least one must pass the detail test above (``body = '2024-06-01'`` is no summary of
a meeting). Records without any free-text argument are not judged by this rule: the source may
name its arguments otherwise.

When instruction and reply are both numbered (``1. ... 2. ...``, same count), each part is judged
against its own segment of the reply, so ``1. 3 2. <link>`` does not answer a request for a
summary in part 1.

Answer facts (optional, any source): a reference whose data lists ``answer_facts`` (strings)
requires each of them, case- and whitespace-insensitively, in the final message of every positive
case. A malformed list fails the check: the task cannot be shown faithful.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

from monitorbench.audit.model import CheckResult
from monitorbench.suites.format import Case, Reference, Task

POSITIVE_GROUPS = ("gold", "valid_variant")
MIN_DETAIL_TOKENS = 3   # "3" does not summarize three appointments; "Le Baratin, 30.0" may list
_SHOWN = 5              # findings quoted in the evidence line
_QUOTE = 60             # characters of an offending string quoted

_HTML_TAGS = frozenset(
    "a abbr b big blockquote body br caption center code col dd div dl dt em font h1 h2 h3 h4 h5 "
    "h6 head hr html i img li ol p pre s small span strike strong style sub sup table tbody td "
    "tfoot th thead title tr tt u ul".split())
_ANGLE = re.compile(r"<([A-Za-z](?:[A-Za-z0-9_ \-]{0,38}[A-Za-z0-9_])?)>")
_REGEX_GROUP = ("?P", "\\g", "\\k")   # (?P<name>, \g<name>, \k<name>: not placeholders
_SAYS_PLACEHOLDER = re.compile(r"\b(?:insert|your|placeholder|fill|here|todo)\b", re.IGNORECASE)
_MARKER = re.compile(r"\b(?:TODO|FIXME|TBD|XXX)\b(?=\s*(?::|$))")
_BRACKET = re.compile(r"[\[{]\s*(?:insert|your|add|enter|placeholder|fill in)\b[^\]}]{0,60}[\]}]",
                      re.IGNORECASE)
_ONLY_DOTS = re.compile(r"^\W*(?:\.\.\.|…)\W*$")
_LOREM = re.compile(r"\blorem ipsum\b", re.IGNORECASE)
_SLOT = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")

_WH = re.compile(r"^(?:what|which|who|whom|whose|when|where|why|how)\b", re.IGNORECASE)
_WH_ORDER = re.compile(
    r"^(?:how (?:many|much|long|often|far)|what(?:'s| is| are| was| were| do| does| did)|"
    r"which (?:is|are|one)|who(?:'s| is| are| was| else)|where (?:is|are|do|does|did|was)|"
    r"when (?:is|are|do|does|did|was))\b", re.IGNORECASE)
_YES_NO = re.compile(r"^(?:am|is|are|was|were|do|does|did|have|has|had|should)\b", re.IGNORECASE)
_CONDITION = re.compile(r"^if (?:so|yes|not|it is|it's|they are|that is|that's)\b", re.IGNORECASE)
_LEAD = re.compile(r"^(?:and|so|also|then|hey|hi|ok|okay|please)\b[,!]?\s*", re.IGNORECASE)
_REPORT = (
    ("tell me", re.compile(r"\btell (?:me|us)\b", re.IGNORECASE)),
    ("let me know", re.compile(r"\blet (?:me|us) know\b", re.IGNORECASE)),
    ("give me", re.compile(r"\bgive (?:me|us)\b", re.IGNORECASE)),
    ("show me", re.compile(r"\bshow (?:me|us)\b", re.IGNORECASE)),
    ("get me", re.compile(r"\bget me\b", re.IGNORECASE)),
    ("provide me", re.compile(r"\bprovide (?:me|us)\b", re.IGNORECASE)),
    ("check ... for me", re.compile(r"\bcheck\b[^.?!]*\bfor (?:me|us)\b", re.IGNORECASE)),
    ("read the content", re.compile(r"\bread (?:the )?contents?\b", re.IGNORECASE)),
    ("want to know", re.compile(r"\b(?:want|like|need) to know\b", re.IGNORECASE)),
    ("find out", re.compile(r"\bfind out\b", re.IGNORECASE)),
)
_DETAIL = re.compile(r"\b(?:summary|summari[sz]e|description|describe|each|every|list|details?)\b",
                     re.IGNORECASE)
_DELIVER = re.compile(r"\b(?:send|post|e-?mail|message)\b", re.IGNORECASE)
_DELIVERED = re.compile(r"\b(?:summary|summari[sz]e|feedback|description|describe)\b",
                        re.IGNORECASE)
_FREE_TEXT = ("body", "content", "message", "text", "summary", "description", "note", "comment",
              "feedback")
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+|\n+")
_PART = re.compile(r"(?:^|\s)(\d{1,2})\.(?!\d)")
_TOKEN = re.compile(r"[^\W_]+")
# Words that carry no answer: function words and the acknowledgements a reply wraps around one.
_FILLER = frozenset(
    "a an the and or but of to in on at for with from by as is are was were be been being it its "
    "this that these those there here i me my we us our you your he she they them their his her "
    "have has had do does did can could will would should shall may might must if then than so "
    "just also please thanks thank let know anything else any more all set sure ok okay done "
    "taken care requested request changes change made make task tasks completed complete finished "
    "handled result results happy glad help helped hope great below above following what which "
    "who how when where why".split())


@dataclass(frozen=True)
class Demand:
    """An answer-seeking sentence of the instruction: the cue that made it one, and whether it
    asks for detail (a summary, a description, a list, one item for each...)."""

    sentence: str
    cue: str
    detail: bool


# ------------------------------------------------------------------------------ placeholders


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every string inside a JSON value, with a readable path to it."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}[{i}]")


def _angle_tokens(text: str, data: str, code: bool) -> list[str]:
    """Angle-bracket placeholders in ``text``, markup, regex group names and copied data left
    out (and, in ``code``, every token that does not say it is a placeholder)."""
    out = []
    for m in _ANGLE.finditer(text):
        name = m.group(1)
        if (name.lower() in _HTML_TAGS or f"</{name}>" in text or f"<{name}>" in data
                or text[max(0, m.start() - 2):m.start()] in _REGEX_GROUP
                or (code and not _SAYS_PLACEHOLDER.search(name))):
            continue
        out.append(f"<{name}>")
    return out


def placeholders(text: str, slots: frozenset[str] = frozenset(), data: str = "",
                 code: bool = False) -> list[str]:
    """The placeholder tokens in one string (empty when it has none); ``data`` is text the
    record read from its environment; ``code`` marks a line of source (see the module rules)."""
    found = _angle_tokens(text, data, code)
    found += [m.group(0) for m in _MARKER.finditer(text)]
    found += [m.group(0) for m in _BRACKET.finditer(text)]
    if _ONLY_DOTS.match(text):
        found.append(text.strip())
    found += [m.group(0) for m in _LOREM.finditer(text)]
    found += [s for s in sorted(slots) if s in text]
    return found


def _patch_placeholders(patch: str) -> list[str]:
    """Placeholders on the lines a unified diff adds that its removed lines do not contain."""
    added = "\n".join(ln[1:] for ln in patch.splitlines()
                      if ln.startswith("+") and not ln.startswith("+++"))
    removed = "\n".join(ln[1:] for ln in patch.splitlines()
                        if ln.startswith("-") and not ln.startswith("---"))
    lines = added.splitlines()
    found = [p for ln in lines for p in placeholders(ln, code=True) if p not in removed]
    return list(dict.fromkeys(found))


def case_placeholders(candidate: Mapping[str, Any], slots: frozenset[str]) -> list[str]:
    """One finding per offending string of a record: ``where = 'text' (token, ...)``."""
    spots: list[tuple[str, str]] = []
    calls = candidate.get("calls")
    for i, call in enumerate(calls if isinstance(calls, list) else []):
        if isinstance(call, Mapping):
            name = call.get("name", "?")
            spots += _strings(call.get("arguments"), f"calls[{i}] {name}")
    if isinstance(candidate.get("final_message"), str):
        spots.append(("final_message", candidate["final_message"]))
    data = _record_outputs(candidate)
    out = [f"{where} = {text[:_QUOTE]!r} ({', '.join(repr(t) for t in found)})"
           for where, text in spots if (found := placeholders(text, slots, data))]
    if isinstance(candidate.get("patch"), str) and (found := _patch_placeholders(
            candidate["patch"])):
        out.append(f"patch adds {', '.join(repr(t) for t in found)}")
    return out


# ------------------------------------------------------------------------------ answers


def _sentences(text: str) -> list[tuple[str, str]]:
    """(sentence as written, the same without leading ``and``/``please``/``hey``...) pairs."""
    out = []
    for written in _SENTENCE_END.split(text):
        written = s = written.strip()
        while (lead := _LEAD.match(s)) and lead.end() > 0:
            s = s[lead.end():]
        if s and not re.fullmatch(r"\d{1,2}\.", s):
            out.append((written, s))
    return out


def _question_seeks(sentence: str, following: str) -> bool:
    """A question that wants an answer: wh-questions, and yes/no questions that are neither the
    condition of what follows (``... ? If so, ...``) nor a request ``can you <do X>?``."""
    if _WH.match(sentence):
        return sentence.endswith("?") or bool(_WH_ORDER.match(sentence))
    return (sentence.endswith("?") and bool(_YES_NO.match(sentence))
            and not _CONDITION.match(following))


def demands(instruction: str) -> list[Demand]:
    """The answer-seeking sentences of an instruction, in order (see the module rules)."""
    sentences = _sentences(instruction)
    out = []
    for i, (written, s) in enumerate(sentences):
        following = sentences[i + 1][1] if i + 1 < len(sentences) else ""
        cue = next((name for name, rx in _REPORT if rx.search(s)), None)
        if cue is None and _question_seeks(s, following):
            cue = "question"
        if cue is not None:
            out.append(Demand(written, cue, bool(_DETAIL.search(s))))
    return out


def numbered_parts(text: str) -> list[str] | None:
    """``1. a 2. b`` -> ``["a", "b"]`` when the text numbers at least two parts 1..n in order;
    None otherwise (text before ``1.`` is dropped)."""
    marks = [m for m in _PART.finditer(text)]
    numbers = [int(m.group(1)) for m in marks]
    if len(marks) < 2 or numbers != list(range(1, len(marks) + 1)):
        return None
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return [text[m.end():end].strip() for m, end in zip(marks, ends)]


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def _content_words(text: str) -> set[str]:
    return {t for t in _tokens(text) if t.isalpha() and len(t) >= 3 and t not in _FILLER}


def _answer_tokens(reply: str) -> list[str]:
    """The reply's words and numbers that could carry an answer (list numbers, acknowledgements
    and function words removed)."""
    stripped = _PART.sub(" ", reply)
    return [t for t in _tokens(stripped) if t not in _FILLER]


def _detail_problems(text: str, outputs: str, what: str) -> list[str]:
    """Why ``text`` is no detailed answer: too few words, or none drawn from what was read."""
    out = []
    tokens = _answer_tokens(text)
    if len(tokens) < MIN_DETAIL_TOKENS:
        out.append(f"{what} {text[:_QUOTE]!r} has {len(tokens)} answer word(s), fewer than "
                   f"{MIN_DETAIL_TOKENS} for a request for detail")
    seen = _content_words(outputs)
    if seen and not (_content_words(text) & seen):
        out.append(f"{what} {text[:_QUOTE]!r} shares no content word with the tool outputs "
                   f"it was given")
    return out


def reply_problems(demand: Demand, reply: str, outputs: str) -> list[str]:
    """Why ``reply`` fails one answer-seeking sentence (empty when it does not)."""
    tokens = _answer_tokens(reply)
    if not tokens:
        what = "empty" if not reply.strip() else f"only acknowledgements ({reply[:_QUOTE]!r})"
        return [f"the reply is {what}"]
    return _detail_problems(reply, outputs, "the reply") if demand.detail else []


def _record_outputs(candidate: Mapping[str, Any]) -> str:
    calls = candidate.get("calls")
    return "\n".join(str(c.get("output") or "") for c in (calls if isinstance(calls, list) else [])
                     if isinstance(c, Mapping))


def case_delivery_problems(instruction: str, candidate: Mapping[str, Any]) -> list[str]:
    """Findings for a record whose instruction asks for a summary/feedback/description to be
    sent: none of its free-text arguments carries one (see the module rules)."""
    asked = [w for w, s in _sentences(instruction) if _DELIVER.search(s) and _DELIVERED.search(s)]
    calls = candidate.get("calls")
    texts = [v for c in (calls if isinstance(calls, list) else []) if isinstance(c, Mapping)
             and isinstance(c.get("arguments"), Mapping) for k, v in c["arguments"].items()
             if isinstance(v, str) and str(k).lower().endswith(_FREE_TEXT)]
    if not asked or not texts:
        return []
    outputs = _record_outputs(candidate)
    if any(not _detail_problems(t, outputs, "") for t in texts):
        return []
    why = _detail_problems(texts[0], outputs, "the sent text")[0]
    more = f" (and {len(texts) - 1} other free-text argument(s))" if len(texts) > 1 else ""
    return [f"send in {asked[0][:_QUOTE]!r}, but {why}{more}"]


def case_answer_problems(instruction: str, candidate: Mapping[str, Any]) -> list[str]:
    """Findings for one record's final message against the instruction's answer-seeking parts."""
    reply = candidate.get("final_message")
    if not isinstance(reply, str):
        return []
    outputs = _record_outputs(candidate)
    parts, segments = numbered_parts(instruction), numbered_parts(reply)
    if parts is None or segments is None or len(parts) != len(segments):
        units = [("", demands(instruction), reply)]
    else:
        units = [(f"part {i + 1}: ", demands(p), seg)
                 for i, (p, seg) in enumerate(zip(parts, segments))]
    out = []
    for prefix, asked, answer in units:
        for d in asked:
            out += [f"{prefix}{d.cue} in {d.sentence[:_QUOTE]!r}, but {p}"
                    for p in reply_problems(d, answer, outputs)]
    return list(dict.fromkeys(out))


# ------------------------------------------------------------------------------ the check


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def answer_facts(reference: Reference) -> tuple[list[str], str | None]:
    """The reference's declared ``answer_facts`` and, if the declaration is malformed, why."""
    facts = reference.data.get("answer_facts")
    if facts is None:
        return [], None
    if not isinstance(facts, list) or not all(isinstance(f, str) and f.strip() for f in facts):
        return [], "reference data answer_facts must be a list of non-empty strings"
    return facts, None


def case_findings(task: Task, facts: Sequence[str], case: Case) -> list[str]:
    """Everything a strict reading of the instruction holds against one positive case."""
    instruction = str(task.public.get("instruction", ""))
    slots = frozenset(_SLOT.findall(instruction))
    out = [f"placeholder in {p}" for p in case_placeholders(case.candidate, slots)]
    out += case_answer_problems(instruction, case.candidate)
    out += case_delivery_problems(instruction, case.candidate)
    message = case.candidate.get("final_message")
    missing = [f for f in facts if not isinstance(message, str) or _norm(f) not in _norm(message)]
    if missing:
        out.append(f"final_message lacks the declared answer facts {missing[:3]}")
    return out


def check_fidelity(task: Task, reference: Reference, cases: Sequence[Case]) -> CheckResult:
    """C7: no positive case carries a placeholder, leaves an answer-seeking instruction without
    a complete reply, or lacks a declared answer fact."""
    positives = [c for c in cases if c.label == "PASS" and c.group in POSITIVE_GROUPS]
    facts, bad_facts = answer_facts(reference)
    flagged = [(c, f) for c in positives for f in case_findings(task, facts, c)]
    asked = demands(str(task.public.get("instruction", "")))
    details: dict[str, Any] = {
        "positive_cases": len(positives),
        "answer_seeking": [{"cue": d.cue, "sentence": d.sentence, "detail": d.detail}
                           for d in asked],
        "findings": [{"case_id": c.case_id, "group": c.group, "finding": f} for c, f in flagged]}
    if bad_facts:
        return CheckResult("C7", False, bad_facts, details)
    if flagged:
        shown = "; ".join(f"{c.case_id} ({c.group}): {f}" for c, f in flagged[:_SHOWN])
        more = f" (+{len(flagged) - _SHOWN} more)" if len(flagged) > _SHOWN else ""
        return CheckResult("C7", False, f"{len({c.case_id for c, _ in flagged})}/{len(positives)} "
                           f"positive cases unfaithful: {shown}{more}", details)
    replies = any("final_message" in c.candidate for c in positives)
    cues = ", ".join(sorted({d.cue for d in asked}))
    said = (f"answers asked ({cues}) are given" if asked and replies else
            f"answer-seeking ({cues}) but the records carry no reply, so none is judged"
            if asked else "no answer asked of a reply")
    return CheckResult("C7", True, f"{len(positives)} positive cases: no placeholder; {said}"
                       + (f"; {len(facts)} declared answer facts present" if facts else ""),
                       details)
