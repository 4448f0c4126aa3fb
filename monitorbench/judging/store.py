"""Durable judgment records: one JSON line per judgment, written as it is made.

Each record is appended and flushed immediately (it survives the process being killed), and the
file is fsynced after every task (it survives the machine going down up to the last full task).
On start the store reads what is there, repairs a torn last line left by a kill, validates every
other line once (a bad one is an InputError naming the file, the line and the field), and reports
which judgments exist, so a resumed run judges only what is missing and never duplicates one.
A repaired line is reported once (the repair removes it); a write that fails (a full disk) is a
:class:`StoreWriteError` naming the file, since everything written before it is kept and a
re-run resumes from there.
The line format is :meth:`Judgment.to_dict` as sorted-key JSON, unchanged since before the
records were typed, so a run directory written by an older version still resumes.

What a verifier printed (the sandbox's capped tail, ``Verdict.stdout``) is kept beside the
judgments in ``<name>.outputs.jsonl``, one line per judgment that printed anything, keyed by the
judgment's key: it is the durable record of why a verifier decided as it did (``monitorbench
view`` shows it), but it is not a judgment field, so the records, the judgments table and every
older run directory keep their exact shape.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Iterator, TextIO

from monitorbench.errors import InputError, MonitorbenchError
from monitorbench.judging.records import RECORD_FIELDS, Judgment, JudgmentKey

__all__ = ["JudgmentStore", "RECORD_FIELDS", "StoreWriteError", "outputs_path"]

log = logging.getLogger(__name__)


def outputs_path(judgments: Path) -> Path:
    """The file beside a judgments file that holds what the verifier printed per judgment."""
    return Path(judgments).with_name(Path(judgments).stem + ".outputs.jsonl")


class StoreWriteError(MonitorbenchError):
    """A judgment could not be written (disk full, quota, I/O error)."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(
            f"cannot write judgments to {path}: {error.strerror or error} (errno {error.errno}). "
            "Every judgment written before is kept and a torn last line is repaired on "
            "resume, so it is safe to free space and run the same command again: only the "
            "missing cases are judged")


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
        self._out: TextIO | None = None      # the outputs file, opened at the first output

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
            log.warning("%s: removed a torn last line (%d bytes) left by a killed run; that "
                        "case is judged again", self.path, self.repaired_bytes)
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
            try:
                self._fh.write(line)
                self._fh.flush()
            except OSError as e:
                raise StoreWriteError(self.path, e) from e
            self._keep(j)

    def append_output(self, j: Judgment, stdout: str) -> None:
        """Keep what the verifier printed for ``j`` (already capped by the sandbox). Losing it
        costs only a view of the case, never a judgment: a failed write is a warning."""
        if not stdout:
            return
        line = json.dumps({"key": list(j.key), "stdout": stdout}, ensure_ascii=False) + "\n"
        with self._lock:
            try:
                if self._out is None:
                    self._out = open(outputs_path(self.path), "a", encoding="utf-8")
                self._out.write(line)
                self._out.flush()
            except OSError as e:
                log.warning("could not keep a verifier's output in %s: %s",
                            outputs_path(self.path), e)

    def sync(self) -> None:
        with self._lock:
            try:
                self._fh.flush()
                os.fsync(self._fh.fileno())
            except OSError as e:
                raise StoreWriteError(self.path, e) from e

    def close(self) -> None:
        try:
            self.sync()
        finally:
            for fh in (self._fh, self._out):
                try:
                    if fh is not None:
                        fh.close()
                except OSError:  # the same failure sync just reported
                    pass

    def __iter__(self) -> Iterator[Judgment]:
        return iter(self.records())
