"""One job per run directory, and what a stopped job tells its user.

Two identical jobs (a sweep re-launched while the first still runs, two shells) share a run key
and so a run directory. Both judging it would judge every case twice and race on its files, so
the directory is locked with ``flock`` for the whole judge-score-track part of a job: the
second job refuses with one line naming the holder, or waits for it with
``wait_for_lock=true`` (then judges nothing that the first one judged). The kernel drops the
lock when its holder dies, however it dies, so a killed job never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import socket
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from monitorbench.errors import MonitorbenchError

LOCK_FILE = "run.lock"
JUDGMENTS = "judgments.jsonl"

log = logging.getLogger(__name__)


class RunBusyError(MonitorbenchError):
    """Another job holds the run directory (same configuration, same run key). That job also
    owns the configuration's MLflow run: ``run_owned_elsewhere`` tells tracking (which cannot
    import this layer) to leave the run's status alone instead of marking the holder FAILED."""

    run_owned_elsewhere = True


class JobInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGINT) during a job, with the one line that says what was kept and how to
    resume. A KeyboardInterrupt, so the MLflow run is marked KILLED like any interrupt."""


@contextmanager
def run_lock(run_dir: Path, *, wait: bool = False) -> Iterator[None]:
    """Hold ``run_dir`` exclusively while the block runs; see the module docstring."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / LOCK_FILE
    with open(path, "a+", encoding="utf-8") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(path)
            if not wait:
                raise RunBusyError(
                    f"run directory {run_dir} is in use by another job with the same "
                    f"configuration ({holder}); wait for it to end, or re-run with "
                    "wait_for_lock=true to wait and then reuse its judgments") from None
            log.info("waiting for the job that holds %s (%s)", run_dir, holder)
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()} on {socket.gethostname()} since "
                 f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n")
        fh.flush()
        yield   # the lock is released when the file is closed (or the process dies)


def _holder(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip() or "holder unknown"
    except OSError:
        return "holder unknown"


@contextmanager
def interrupted_hint(run_dir: Path) -> Iterator[None]:
    """Turn a KeyboardInterrupt in the block into :class:`JobInterrupted` carrying the line
    the entry point prints: how many judgments the run directory keeps and how to resume."""
    try:
        yield
    except JobInterrupted:
        raise
    except KeyboardInterrupt:
        raise JobInterrupted(
            f"interrupted: {_count_lines(run_dir / JUDGMENTS)} judgments are kept in "
            f"{run_dir}; run the same command again to resume (only the missing cases are "
            "judged)") from None


def _count_lines(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


def adopt_judgments(run_dir: Path, legacy_dir: Path) -> bool:
    """A new run directory starts from the judgments of the same configuration's directory
    under an earlier version's run key (:data:`monitorbench.launch.run_identity.MIGRATIONS`):
    the judgments depend on what both keys hash alike. Copied, not moved: the old directory
    stays as it was. True when judgments were adopted."""
    old, new = legacy_dir / JUDGMENTS, run_dir / JUDGMENTS
    if legacy_dir == run_dir or new.exists() or not old.is_file():
        return False
    shutil.copyfile(old, new)
    log.info("started %s from the %s judgments of %s (same configuration, run key of an "
             "earlier version)", run_dir, _count_lines(new), legacy_dir)
    return True
