"""Durable judgment records: one JSON line per judgment, written as it is made.

Each record is appended and flushed immediately (it survives the process being killed), and the
file is fsynced after every task (it survives the machine going down up to the last full task).
On start the store reads what is there, repairs a torn last line left by a kill, validates every
other line once (a bad one is an InputError naming the file, the line and the field), and reports
which judgments exist, so a resumed run judges only what is missing and never duplicates one.
The line format is :meth:`Judgment.to_dict` as sorted-key JSON, unchanged since before the
records were typed, so a run directory written by an older version still resumes.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Iterator

from monitorbench.errors import InputError
from monitorbench.judging.records import RECORD_FIELDS, Judgment, JudgmentKey

__all__ = ["JudgmentStore", "RECORD_FIELDS"]


class JudgmentStore:
    """The judgments of one run directory, on disk and in memory, safe across threads."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._records: dict[JudgmentKey, Judgment] = {}
        # Retryable records read from disk: re-judged on resume, reported if never replaced.
        self._retry: dict[JudgmentKey, Judgment] = {}
        self.repaired_bytes = 0
        self._load()
        self._fh = open(self.path, "a", encoding="utf-8")

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        good_end = pos = 0
        lineno = 0
        while pos < len(data):
            nl = data.find(b"\n", pos)
            if nl == -1:
                break  # a torn final line without newline: the kill hit mid-write
            lineno += 1
            try:
                obj = json.loads(data[pos:nl])
            except json.JSONDecodeError as e:
                if data[nl + 1:].strip():  # only the last line can be torn by a kill
                    raise InputError(self.path, f"line {lineno}", f"invalid JSON ({e.msg})",
                                     "repair or delete the line; the case is judged again"
                                     ) from None
                break
            self._keep(Judgment.from_dict(obj, source=self.path, where=f"line {lineno}"))
            pos = good_end = nl + 1
        if good_end < len(data):
            self.repaired_bytes = len(data) - good_end
            with open(self.path, "r+b") as f:
                f.truncate(good_end)
                f.flush()
                os.fsync(f.fileno())

    def _keep(self, j: Judgment) -> None:
        """Index one persisted judgment; a retryable one does not mark its case done."""
        if j.retryable:
            self._retry[j.key] = j
        else:
            self._records[j.key] = j
            self._retry.pop(j.key, None)

    def __contains__(self, key: JudgmentKey) -> bool:
        return key in self._records

    def __len__(self) -> int:
        """Judgments that count as done (retryable failures excluded)."""
        return len(self._records)

    def records(self) -> list[Judgment]:
        """One record per judgment; a retryable failure only where nothing replaced it."""
        with self._lock:
            return list(self._records.values()) + [r for k, r in self._retry.items()
                                                   if k not in self._records]

    def append(self, j: Judgment) -> None:
        """Persist one judgment (flushed now); a judgment already done is not written again."""
        if not isinstance(j, Judgment):
            raise TypeError(f"append takes a Judgment, got {type(j).__name__}")
        line = json.dumps(j.to_dict(), sort_keys=True, ensure_ascii=False) + "\n"
        with self._lock:
            if j.key in self._records:
                return
            self._fh.write(line)
            self._fh.flush()
            self._keep(j)

    def sync(self) -> None:
        with self._lock:
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        self.sync()
        self._fh.close()

    def __iter__(self) -> Iterator[Judgment]:
        return iter(self.records())
