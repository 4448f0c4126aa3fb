"""C8 stated formats and whole answers: a positive delivers what was asked, in the form asked.

The user who writes "in the format 'HH:MM'" rejects ``1:30``; one who gets "1. Diamond Head 2."
has half a list. Rules, each keyed on the instruction's words and the record only:

* **HH:MM** stated (``HH:MM`` in the instruction): every clock time in the final message has two
  hour digits (``01:30``, not ``1:30``), and the final message or a free-text argument holds at
  least one such time (the format may be asked for a text the agent sends).
* **YYYY-MM-DD** stated: the final message or a free-text argument holds an ISO date, and a
  final message without one writes no date in another form (``May 15, 2024``, ``15/05/2024``).
* **one message** stated (``in one message``, ``in a single message``/``email``): no recipient
  or channel receives two calls of the same sending tool.
* **truncated list**: the final message or a free-text argument (``body``, ``content``,
  ``text``, ``message``, ``description``, ``summary``...) numbers items 1..n and a number has no
  item on its line (``1. Diamond Head 2.``), or a bullet line (``-``, ``*``, ``•``) has no item.
* **broken bullets**: bullet markers run inside a line after a colon (``Plan: - Diamond Head -
  Waikiki``: two `` - `` separators, each before a word, in a line that does not start with one;
  ``12:00 PM - 3:00 PM`` is a range, not a list), i.e. a list whose line breaks were lost;
  or, in a run of two or more bullet lines, a marker glued to its item (``-Mia Anderson: 2``),
  or a line just above the run that reads like its items (same ``key: value`` form, or all
  lower case) and ends without ``.``/``:``/``!``/``?``: the first item lost its bullet
  (``Olivia Smith: 4\n-Mia...``, ``butter\n- brown sugar``).
* **copied, not summarised**: the instruction asks for a summary (``summary``, ``summarise``)
  and a delivered text (free-text argument, else the final message) of at least
  :data:`COPY_MIN_WORDS` words is at least :data:`COPY_SHARE` covered by
  :data:`COPY_RUN`-word runs of the record's tool outputs, and is at least
  :data:`COPY_LENGTH_SHARE` as long as the outputs read before it that it copies from (three
  sentences lifted from a long file are an extract, both pages pasted whole are no summary).
  A text that quotes outputs read only after it was sent is a ``grounding`` finding instead.
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Mapping, Sequence

COPY_MIN_WORDS = 40
COPY_SHARE = 0.8
COPY_RUN = 10
COPY_LENGTH_SHARE = 0.4
FREE_TEXT = ("body", "content", "message", "text", "summary", "description", "note", "comment",
             "feedback")
_HHMM_STATED = re.compile(r"\bHH:MM\b", re.IGNORECASE)
_ISO_STATED = re.compile(r"\bYYYY-MM-DD\b", re.IGNORECASE)
_ONE_MESSAGE = re.compile(r"\b(?:in|as) (?:one|a single) (?:message|e-?mail|post)\b",
                          re.IGNORECASE)
_SUMMARY = re.compile(r"\bsummar(?:y|ies|i[sz]e[sd]?|i[sz]ing)\b", re.IGNORECASE)
_CLOCK = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])")
_ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_OTHER_DATE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?"
    r",?\s+\d{4}\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
    r"oct|nov|dec)[a-z]*\.?,?\s+\d{4}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?:^|(?<=\s))(\d{1,2})\.(?=\s|$)")
_EMPTY_BULLET = re.compile(r"^\s*[-*•]\s*$", re.MULTILINE)
_BULLET = re.compile(r"^\s*[-*•](?=\s*\S)")
_GLUED = re.compile(r"^\s*[-*•][^\W\d_]")
_INLINE_BULLETS = re.compile(r":\s*-\s+[^\W\d_].*?\s-\s+[^\W\d_]")
_TARGETS = ("recipient", "recipients", "channel", "email", "to", "user")
_QUOTE = 60


def _stated_formats(instruction: str, message: str, delivered: str) -> list[str]:
    """``delivered``: the final message and every free-text argument, joined."""
    out = []
    if _HHMM_STATED.search(instruction):
        bad = [m.group(0) for m in _CLOCK.finditer(message) if len(m.group(1)) != 2]
        if bad:
            out.append(f"HH:MM stated, final message writes {', '.join(map(repr, bad))}")
        elif not _CLOCK.search(delivered):
            out.append("HH:MM stated, no HH:MM time in the answer or a sent text")
    if _ISO_STATED.search(instruction):
        bad = [m.group(0) for m in _OTHER_DATE.finditer(message)]
        if bad and not _ISO.search(message):
            out.append(f"YYYY-MM-DD stated, final message writes {', '.join(map(repr, bad))}")
        elif not _ISO.search(delivered):
            out.append("YYYY-MM-DD stated, no YYYY-MM-DD date in the answer or a sent text")
    return out


def _one_message(instruction: str, calls: Sequence[Mapping[str, Any]]) -> list[str]:
    if not _ONE_MESSAGE.search(instruction):
        return []
    seen: dict[tuple[str, str], int] = {}
    for call in calls:
        args = call.get("arguments") or {}
        name = str(call.get("name", ""))
        if not re.search(r"send|post|message|mail", name, re.IGNORECASE):
            continue
        target = next((repr(args[k]) for k in _TARGETS if k in args), "")
        seen[(name, target)] = seen.get((name, target), 0) + 1
    return [f"'one message' stated, {name} sent {n} times to {target or 'the same target'}"
            for (name, target), n in seen.items() if n > 1]


def list_problem(text: str) -> tuple[str, str] | None:
    """(``truncated_list`` or ``broken_bullets``, what) when a text shows one (module rules)."""
    marks = list(_NUMBER.finditer(text))
    if len(marks) >= 2 and [int(m.group(1)) for m in marks] == list(range(1, len(marks) + 1)):
        ends = [m.start() for m in marks[1:]] + [len(text)]
        for m, end in zip(marks, ends):
            if not text[m.end():end].split("\n", 1)[0].strip():
                return "truncated_list", f"item {m.group(1)} of a numbered list is empty"
    if _EMPTY_BULLET.search(text):
        return "truncated_list", "a bullet has no item"
    lines = text.splitlines()
    for line in lines:
        if not _BULLET.match(line) and _INLINE_BULLETS.search(line):
            return "broken_bullets", f"list items run inside one line ({line.strip()[:_QUOTE]!r})"
    for start, run in _bullet_runs(lines):
        if any(_GLUED.match(ln) for ln in run):
            return "broken_bullets", f"a bullet has no space after its marker ({run[0].strip()!r})"
        before = lines[start - 1].strip() if start > 0 else ""
        if before and not before.endswith((".", ":", "!", "?")) and _same_form(before, run):
            return "broken_bullets", f"the first item has lost its bullet ({before[:_QUOTE]!r})"
    return None


def _bullet_runs(lines: Sequence[str]) -> Iterator[tuple[int, list[str]]]:
    """(index of the first line, the lines) of every run of two or more bullet lines."""
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and _BULLET.match(lines[j]):
            j += 1
        if j - i >= 2:
            yield i, list(lines[i:j])
        i = max(j, i + 1)


def _same_form(line: str, run: Sequence[str]) -> bool:
    """Whether an unbulleted line reads like the items below it: all ``key: value``, or all
    starting lower case (a heading would not)."""
    items = [_BULLET.sub("", ln, count=1).strip() for ln in run]
    key_value = re.compile(r"^[^:]{1,40}: \S")
    if key_value.match(line) and all(key_value.match(it) for it in items):
        return True
    return line[:1].islower() and all(it[:1].islower() for it in items)


def _texts(candidate: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(where, text) for the final message and every free-text argument of the record."""
    if isinstance(candidate.get("final_message"), str):
        yield "final_message", candidate["final_message"]
    for i, call in enumerate(candidate.get("calls") or []):
        for k, v in (call.get("arguments") or {}).items():
            if isinstance(v, str) and str(k).lower().endswith(FREE_TEXT):
                yield f"calls[{i}] {call.get('name')}.{k}", v


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def copied_share(text: str, sources: Sequence[str]) -> float:
    """The share of ``text``'s words inside runs of :data:`COPY_RUN` words found in ``sources``."""
    words = _words(text)
    runs = {tuple(w[i:i + COPY_RUN]) for s in sources if (w := _words(s))
            for i in range(len(w) - COPY_RUN + 1)}
    covered = [False] * len(words)
    for i in range(len(words) - COPY_RUN + 1):
        if tuple(words[i:i + COPY_RUN]) in runs:
            covered[i:i + COPY_RUN] = [True] * COPY_RUN
    return sum(covered) / len(words) if words else 0.0


def _runs(text: str) -> set[tuple[str, ...]]:
    words = _words(text)
    return {tuple(words[i:i + COPY_RUN]) for i in range(len(words) - COPY_RUN + 1)}


def _delivered(candidate: Mapping[str, Any]) -> list[tuple[str, str, list[str]]]:
    """(where, text, the outputs read before it) for each free-text argument, else for the
    final message (a channel read after a post echoes the post: no source of it)."""
    calls = [c for c in candidate.get("calls") or [] if isinstance(c, Mapping)]
    outputs = [str(c.get("output") or "") for c in calls]
    out = [(f"calls[{i}] {c.get('name')}.{k}", v, outputs[:i]) for i, c in enumerate(calls)
           for k, v in (c.get("arguments") or {}).items()
           if isinstance(v, str) and str(k).lower().endswith(FREE_TEXT)]
    message = candidate.get("final_message")
    return out or ([("final_message", message, outputs)] if isinstance(message, str) else [])


def _copied(instruction: str, candidate: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(kind, finding): ``copied_summary``, or ``grounding`` when the copied outputs were only
    read after the text was sent (a reordering that breaks the data flow)."""
    if not _SUMMARY.search(instruction):
        return []
    everything = [str(c.get("output") or "") for c in candidate.get("calls") or []
                  if isinstance(c, Mapping)]
    out = []
    for where, text, read in _delivered(candidate):
        n = len(_words(text))
        if n < COPY_MIN_WORDS or (share := copied_share(text, everything)) < COPY_SHARE:
            continue
        runs = _runs(text)
        source = sum(len(_words(o)) for o in set(read) if _runs(o) & runs)  # read twice: once
        if source == 0:
            out.append(("grounding", f"{where}: quotes tool outputs read only after it was sent"))
        elif n >= COPY_LENGTH_SHARE * source:
            out.append(("copied_summary", f"{where}: summary asked, {share:.0%} of its {n} words "
                        f"copied from tool outputs of {source} words"))
    return out


def check_formats(instruction: str, candidate: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(kind, finding) per stated format the record misses (``format``), per truncated or broken
    list (``truncated_list``, ``broken_bullets``) and per summary copied from tool outputs
    (``copied_summary``); see the module rules."""
    message = candidate.get("final_message") if isinstance(candidate.get("final_message"),
                                                            str) else ""
    calls = [c for c in candidate.get("calls") or [] if isinstance(c, Mapping)]
    delivered = "\n".join(text for _, text in _texts(candidate))
    out = [("format", f) for f in _stated_formats(instruction, message, delivered)
           + _one_message(instruction, calls)]
    out += [(kind, f"{where}: {what}") for where, text in _texts(candidate)
            if (found := list_problem(text)) is not None for kind, what in [found]]
    return out + _copied(instruction, candidate)
