"""Unified diffs in the ``a/``/``b/`` form ``git apply -p1`` accepts, built from file texts.

Patches are data in a suite (candidates, gold patches, bug patches), so they are made here from
before/after texts rather than by shelling out to git: deterministic and byte-stable.
"""

from __future__ import annotations

import difflib
from typing import Mapping

_NO_EOL = "\n\\ No newline at end of file\n"


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += _NO_EOL
    return lines


def file_diff(path: str, old: str | None, new: str | None) -> str:
    """Diff of one file; ``old=None`` creates it, ``new=None`` deletes it. '' when unchanged."""
    if old == new:
        return ""
    a = "/dev/null" if old is None else f"a/{path}"
    b = "/dev/null" if new is None else f"b/{path}"
    body = difflib.unified_diff(_lines(old or ""), _lines(new or ""), a, b, n=3)
    return "".join(line if line.endswith("\n") else line + "\n" for line in body)


def make_patch(changes: Mapping[str, tuple[str | None, str | None]]) -> str:
    """One patch for several files, in sorted path order."""
    return "".join(file_diff(p, old, new) for p, (old, new) in sorted(changes.items()))
