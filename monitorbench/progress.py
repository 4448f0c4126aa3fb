"""Progress of long stages (suite builds, generation, judging), for a person and for MLflow.

On a terminal it is a tqdm bar with rate and ETA. When stderr is not a terminal (a log file, a
Slurm job, CI), bars would fill the log with carriage returns, so one line is logged every
``interval`` seconds instead, plus a last one. Either way an optional ``on_update(done)`` sink
(the job's MLflow run) is fed at most every ``interval`` seconds and at the end.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import Callable

log = logging.getLogger("monitorbench")


class Progress:
    """Counts units of one stage; thread-safe (judging updates from worker threads)."""

    def __init__(self, total: int, desc: str, *, unit: str = "it", interval: float = 5.0,
                 on_update: Callable[[int], None] | None = None,
                 tty: bool | None = None) -> None:
        self.total, self.desc, self.unit, self.interval = total, desc, unit, interval
        self.done = 0
        self.on_update = on_update
        self._lock = threading.Lock()
        self._start = self._last = time.monotonic()
        self._bar = None
        if sys.stderr.isatty() if tty is None else tty:
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True)

    def update(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            if self._bar is not None:
                self._bar.update(n)
            now = time.monotonic()
            if now - self._last >= self.interval:
                self._last = now
                self._report(now)

    def line(self, now: float) -> str:
        """``judging: 120/400 cases (30%), 12.0 cases/s, ETA 23 s``."""
        elapsed = max(now - self._start, 1e-9)
        rate = self.done / elapsed
        pct = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        eta = (f", ETA {(self.total - self.done) / rate:.0f} s"
               if rate > 0 and self.total >= self.done else "")
        return (f"{self.desc}: {self.done}/{self.total} {self.unit}{pct}, "
                f"{rate:.1f} {self.unit}/s{eta}")

    def _report(self, now: float) -> None:
        if self._bar is None:
            log.info("%s", self.line(now))
        if self.on_update is not None:
            self.on_update(self.done)

    def close(self) -> None:
        with self._lock:
            if self._bar is not None:
                self._bar.close()
            self._report(time.monotonic())

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
