"""In-process records of the hardened grader's gradings, content-addressed on their input.

Two uses, two stores:

- the latest :class:`~monitorbench.sources.code.grader.Grade` of each input, with its test run,
  so the audit's mutation check (C6) re-decides the very run the reference decided from instead
  of running the tests again (bounded: C6 needs one task's cases at a time);
- every decision made in this process, so the audit's first reference pass over a suite this
  process has just built takes the build's grading of each case instead of running the same
  tests a third time (a decision is a short string: a whole suite's fit in memory).

The key is the whole grading input: grader version, the task's reference data (library and
version, sdist hash, bug patch, fail-to-pass and pass-to-pass tests, which fix the test command)
and the candidate patch. A change to any of them is another input and is graded afresh.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Mapping

from monitorbench.hashing import canonical_json, sha256_text

if TYPE_CHECKING:
    from monitorbench.sources.code.grader import Grade

_LATEST: OrderedDict[str, "Grade"] = OrderedDict()
_LATEST_MAX = 256
_DECISIONS: dict[str, str] = {}
_LOCK = threading.Lock()


def record_key(version: str, data: Mapping[str, Any], patch: Any) -> str:
    """Identity of one grading input (see the module docstring)."""
    return sha256_text(canonical_json({"grader": version, "data": dict(data), "patch": patch}))


def remember(key: str, g: "Grade") -> "Grade":
    """Keep ``g`` as the latest grading of ``key`` and its decision; returns ``g``."""
    with _LOCK:
        _LATEST[key] = g
        _LATEST.move_to_end(key)
        while len(_LATEST) > _LATEST_MAX:
            _LATEST.popitem(last=False)
        _DECISIONS[key] = g.decision
    return g


def latest(key: str) -> "Grade | None":
    """The most recent grading of ``key`` in this process (with its run record), or None when
    it was never graded here or has been pushed out by newer gradings."""
    with _LOCK:
        return _LATEST.get(key)


def decided(key: str) -> str | None:
    """The decision of an earlier grading of ``key`` in this process, or None."""
    with _LOCK:
        return _DECISIONS.get(key)
