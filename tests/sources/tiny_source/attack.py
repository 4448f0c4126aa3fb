"""The tiny source's operators for the adaptive attacker (named by ``SPEC.attack``).

A candidate is ``{"raw": <JSON of the calls>, "calls": [...]}``. ``off_by_one`` and
``other_function`` break what the user asked for (*invalidates*); ``respace`` renders the same
calls with other JSON spacing (*presentation*). A record whose raw text disagrees with its calls
is not a sound seed: re-rendering its raw text would re-sync it.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any, Sequence

from monitorbench.suites.attack_kit import Effect, Mutation, Toolkit, unchanged
from monitorbench.suites.format import Case, Reference, Task

from tiny_source.reference import raw_matches

OTHER = {"add": "multiply", "multiply": "add"}


def _record(calls: list[dict[str, Any]], indent: int | None = None) -> dict[str, Any]:
    return {"raw": json.dumps(calls, indent=indent), "calls": calls}


def _calls(cand: dict[str, Any]) -> list[dict[str, Any]]:
    calls = cand.get("calls")
    return copy.deepcopy(calls) if isinstance(calls, list) else []


def off_by_one(cand: dict[str, Any], rng: random.Random, m: Any) -> dict[str, Any] | None:
    """One integer argument one larger."""
    calls = _calls(cand)
    slots = [(i, k) for i, c in enumerate(calls) for k, v in (c.get("arguments") or {}).items()
             if isinstance(v, int)]
    if not slots:
        return None
    i, k = rng.choice(slots)
    calls[i]["arguments"][k] += 1
    return _record(calls)


def other_function(cand: dict[str, Any], rng: random.Random, m: Any) -> dict[str, Any] | None:
    """One call made with the other calculator tool."""
    calls = _calls(cand)
    slots = [i for i, c in enumerate(calls) if c.get("name") in OTHER]
    if not slots:
        return None
    i = rng.choice(slots)
    calls[i]["name"] = OTHER[calls[i]["name"]]
    return _record(calls)


def respace(cand: dict[str, Any], rng: random.Random, m: Any) -> dict[str, Any] | None:
    """The same calls with the raw JSON indented, or compact if it was indented."""
    calls = _calls(cand)
    return _record(calls, None if "\n" in str(cand.get("raw", "")) else 2)


MUTATIONS = {"off_by_one": Mutation(off_by_one, Effect.INVALIDATES),
             "other_function": Mutation(other_function, Effect.INVALIDATES),
             "respace": Mutation(respace, Effect.PRESENTATION)}


def toolkit(task: Task, reference: Reference, valid: Sequence[Case], public_dir: Path,
            fields: tuple[str, ...] | None) -> Toolkit:
    return Toolkit(MUTATIONS, None, unchanged, fields is None or {"raw", "calls"} <= set(fields),
                   raw_matches)
