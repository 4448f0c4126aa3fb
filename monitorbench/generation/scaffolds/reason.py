"""How a scaffold run ended, in words a person reads in the log, the trace and the viewer.

The detail a scaffold records is a short tag for programs (``step_limit; draft submitted``,
``challenge_unmet; ...``; :func:`monitorbench.generation.traces.trace_stats` reads it). A tag
hides what a reader needs to act on: that a step limit submitted a draft cut at ``max_tokens``,
or that no reply held an action block (issue 48). :func:`end_reason` spells that out from the
run's counters, so the words are derived from the same facts the stats hold, never a guess.
"""

from __future__ import annotations

from typing import Mapping

LIMIT_WORDS = {"step_limit": "step limit reached", "token_limit": "token budget spent",
               "wall_limit": "wall-clock limit reached",
               "context_limit": "the prompt outgrew the model's context window"}


def _limit_words(limit: str, counters: Mapping[str, float], limits: Mapping[str, float]) -> str:
    """The limit with where the budget stood, e.g. ``step limit reached (8/8 steps)``."""
    words = LIMIT_WORDS.get(limit, limit)
    if limit == "step_limit":
        return f"{words} ({int(counters['steps'])}/{int(limits['max_steps'])} steps)"
    if limit == "token_limit":
        used = int(counters["prompt_tokens"] + counters["completion_tokens"])
        return f"{words} ({used}/{int(limits['max_total_tokens'])} tokens)"
    if limit == "wall_limit":
        return f"{words} ({limits['wall_seconds']:.0f} s)"
    return words


def reply_facts(counters: Mapping[str, float], cut_replies: int, max_tokens: int) -> list[str]:
    """What the replies were like: how many held no action block, how many hit ``max_tokens``
    (a reply at the cap was most likely cut, the usual cause of a missing block)."""
    calls = int(counters["model_calls"])
    facts = []
    if calls and counters["format_errors"]:
        facts.append(f"{int(counters['format_errors'])}/{calls} replies had no action block")
    if calls and cut_replies:
        every = "every reply" if cut_replies == calls else f"{cut_replies}/{calls} replies"
        facts.append(f"{every} hit max_tokens={max_tokens}")
    return facts


def end_reason(detail: str, has_draft: bool, counters: Mapping[str, float],
               limits: Mapping[str, float], cut_replies: int, salvaged: int) -> str:
    """The run's end in words, '' for a plain ``submit`` with nothing to add.

    ``limits`` holds ``max_steps``, ``max_total_tokens``, ``wall_seconds`` and ``max_tokens``;
    ``cut_replies`` counts replies whose completion reached ``max_tokens``; ``salvaged`` counts
    drafts kept from a reply cut inside its block."""
    tags = [t.strip() for t in detail.split(";")]
    if tags == ["submit"]:
        return ""   # the model submitted by itself: the tag says it all
    limit = next((t for t in tags if t in LIMIT_WORDS), None)
    parts = []
    if limit is not None:
        outcome = ("no verifier was written" if not has_draft
                   else "the draft was submitted although no self-test of it passed"
                   if "challenge_unmet" in tags else "the draft was submitted")
        parts.append(f"{_limit_words(limit, counters, limits)}: {outcome}")
    if salvaged:
        parts.append(f"{salvaged} draft(s) salvaged from a reply cut inside its block")
    parts += reply_facts(counters, cut_replies, int(limits["max_tokens"]))
    return "; ".join(parts)
