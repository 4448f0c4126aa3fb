"""The types a task source's adaptive-attack operators are written in: :class:`Effect`,
:class:`Mutation` and :class:`Toolkit`.

A source owns its operators (in its own package, named by ``SourceSpec.attack``); the attacker
(:mod:`monitorbench.attack`, two layers above the sources) only drives them. The types live here,
below both, so a source can build a toolkit without importing the attacker. What the effects
mean along a chain of mutations is decided in :mod:`monitorbench.attack.validity`.

Public API::

    Effect, Mutation, Toolkit, unchanged, always_sound
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from typing import Any, Callable, Mapping


class Effect(enum.Enum):
    """How a mutation changes a candidate, judged by the task's requirements."""

    # Same content in another form (prose, fences, comments, whitespace, call order where the
    # task leaves order free, a note addressed to the verifier): validity unchanged.
    PRESENTATION = "presentation"
    # Breaks a requirement of a valid candidate (a value changed, a required argument or call
    # dropped, an extra call or state change). Applied to an invalid parent it might repair the
    # very thing that was wrong, so the result is unknown.
    INVALIDATES = "invalidates"
    # Starts over from a valid candidate of the task and breaks one requirement: invalid
    # whatever the parent was.
    RESTARTS = "restarts"
    # Adds test-machinery tampering and fixes nothing: an invalid parent stays invalid; on a
    # valid one, whether tampering alone violates the task is not claimed (unknown).
    ADDS_TAMPERING = "adds_tampering"
    # Pairs an invalid parent's raw text or calls with a valid record's other half: invalid
    # when the monitor sees both halves; under a one-half view completion erases the pairing.
    DESYNC = "desync"


Apply = Callable[[dict[str, Any], random.Random, Any], "dict[str, Any] | None"]


@dataclass(frozen=True)
class Mutation:
    """A named construction: ``apply(candidate, rng, material)`` -> mutant or None (does not
    apply), its declared effect, and whether its mutants may be mutated further (a desynced
    record may not: re-rendering its raw text from its calls would silently re-sync it)."""

    apply: Apply
    effect: Effect
    terminal: bool = False


@dataclass(frozen=True)
class Toolkit:
    """What the attacker mutates one task with. ``material`` is passed to every mutation;
    ``complete(candidate)`` fills what the monitor cannot see (tool calls under a one-half
    view); ``sees_whole`` says whether the monitor sees every field of a candidate;
    ``sound_seed(candidate)`` whether an invalid case stays invalid under presentation changes
    (a tool-call record whose raw text disagrees with its calls may not: re-rendering the raw
    text from the calls can re-sync it)."""

    mutations: Mapping[str, Mutation]
    material: Any
    complete: Callable[[dict[str, Any]], dict[str, Any]]
    sees_whole: bool
    sound_seed: Callable[[dict[str, Any]], bool]


def unchanged(candidate: dict[str, Any]) -> dict[str, Any]:
    """``Toolkit.complete`` for a source whose candidates have nothing to fill in."""
    return candidate


def always_sound(candidate: dict[str, Any]) -> bool:
    """``Toolkit.sound_seed`` for a source whose invalid cases survive any presentation change."""
    return True
