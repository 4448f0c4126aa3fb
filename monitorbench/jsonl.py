"""Reading JSON-lines files: one implementation, two error policies, chosen by who wrote the file.

* :func:`read_strict` for files monitorbench wrote whole and reads as data (a suite's
  ``cases.jsonl``, a judgments file handed to the metrics, a source's shipped data): a line that
  does not parse is an :class:`~monitorbench.errors.InputError` naming the file, the line and the
  fix, because reading on would judge or score something other than what is there.
* :func:`read_lenient` for logs whose writer may have been killed mid-line or is not trusted
  (a generation trace, a harness's session files): lines that do not parse are skipped.

The judgment store's log is a third case with its own reader
(:class:`monitorbench.judging.store.JudgmentStore`): only its last line may be torn, and the
store cuts it off so the case is judged again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from monitorbench.errors import InputError


def read_strict(path: Path, fix: str, text: str | None = None) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of ``path`` (or of ``text``, read from
    it); a line that is not JSON raises InputError with ``fix``."""
    path = Path(path)
    if text is None:
        text = path.read_text(encoding="utf-8")
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(path, f"line {lineno}", f"invalid JSON ({e.msg})", fix) from None


def read_lenient(text: str) -> list[Any]:
    """The values of the lines of ``text`` that parse as JSON; the others are skipped."""
    out = []
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out
