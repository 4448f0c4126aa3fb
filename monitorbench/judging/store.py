"""Durable judgment records: one JSON line per judgment, written as it is made.

Each record is appended and flushed immediately (it survives the process being killed), and the
file is fsynced after every task (it survives the machine going down up to the last full task).
On start the store reads what is there, repairs a torn last line left by a kill, and reports
which judgments exist, so a resumed run judges only what is missing and never duplicates one.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Iterator, Mapping

# A sandbox failure says nothing about the verifier (e.g. Slurm signalled the whole job's process
# tree on preemption): such a record is kept in the file (every attempt is persisted) but does
# not count as done, so the judging loop's retry, or a resumed run, judges that case again and
# the newer record replaces it. One that nothing replaced is an infrastructure failure.
RETRY_REASONS = frozenset({"sandbox_error"})

RECORD_FIELDS = ("task_id", "task_type", "case_id", "group", "category", "label", "outcome",
                 "reason", "detail", "confidence", "seconds", "executions", "round", "access",
                 "verifier_hash", "case_hash", "suite_hash")


def record_key(rec: Mapping[str, Any]) -> tuple[str, str, int, str, str]:
    """A judgment is identified by what it judged, with what, and in which round."""
    return (rec["task_id"], rec["case_id"], int(rec["round"]), rec["access"],
            rec["verifier_hash"])


class JudgmentStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._records: dict[tuple[str, str, int, str, str], dict[str, Any]] = {}
        # Retryable records read from disk: re-judged on resume, reported if never replaced.
        self._retry: dict[tuple[str, str, int, str, str], dict[str, Any]] = {}
        self.repaired_bytes = 0
        self._load()
        self._fh = open(self.path, "a", encoding="utf-8")

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        good_end = 0
        pos = 0
        while pos < len(data):
            nl = data.find(b"\n", pos)
            if nl == -1:
                break  # a torn final line without newline: the kill hit mid-write
            line = data[pos:nl]
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                break
            key = record_key(rec)
            if rec.get("reason") in RETRY_REASONS:
                self._retry[key] = rec
            else:
                self._records[key] = rec
                self._retry.pop(key, None)
            pos = nl + 1
            good_end = pos
        if good_end < len(data):
            self.repaired_bytes = len(data) - good_end
            with open(self.path, "r+b") as f:
                f.truncate(good_end)
                f.flush()
                os.fsync(f.fileno())

    def __contains__(self, key: tuple[str, str, int, str, str]) -> bool:
        return key in self._records

    def __len__(self) -> int:
        """Judgments that count as done (retryable failures excluded)."""
        return len(self._records)

    def records(self) -> list[dict[str, Any]]:
        """One record per judgment; a retryable failure only where nothing replaced it."""
        with self._lock:
            return list(self._records.values()) + [r for k, r in self._retry.items()
                                                   if k not in self._records]

    def append(self, rec: Mapping[str, Any]) -> None:
        """Persist one judgment (flushed now); a retryable one does not mark its case done."""
        missing = [f for f in RECORD_FIELDS if f not in rec]
        if missing:
            raise ValueError(f"judgment record lacks {missing}")
        line = json.dumps(dict(rec), sort_keys=True, ensure_ascii=False) + "\n"
        with self._lock:
            key = record_key(rec)
            if key in self._records:
                return
            self._fh.write(line)
            self._fh.flush()
            if rec.get("reason") in RETRY_REASONS:  # kept, but the case is not done: a retry
                self._retry[key] = dict(rec)       # (now or on resume) may replace it
            else:
                self._records[key] = dict(rec)

    def sync(self) -> None:
        with self._lock:
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        self.sync()
        self._fh.close()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.records())
