"""Progress of long stages (suite builds, generation, judging), for a person and for MLflow.

On a terminal it is a tqdm bar with rate and ETA. When stderr is not a terminal (a log file, a
Slurm job, ``tee``), a bar would write every update into the log, so one line is logged each
time another ``step_pct`` percent is done (at most 10 lines for a whole stage), plus a last one;
never two within ``min_gap`` seconds (a scripted generator finishes a stage in milliseconds: one
line then says it all), and none before ``min_gap`` seconds have passed or when the rest of the
stage is expected within that time (the last line follows at once). Either
way an optional ``on_update(done)`` sink (the job's MLflow run) is fed at most every
``interval`` seconds and at the end.
"""

from __future__ import annotations

import logging
import math
import sys
import threading
import time
from typing import Callable

log = logging.getLogger("monitorbench")


def rate_text(rate: float) -> str:
    """A rate with the digits it needs: ``2190``, ``12.0``, ``0.0051`` (two significant digits
    below 1, so a slow model stage never reads ``0.0``)."""
    if rate >= 100:
        return f"{rate:.0f}"
    if rate >= 1 or rate <= 0:
        return f"{rate:.1f}"
    return f"{rate:.{1 - math.floor(math.log10(rate))}f}"


class Progress:
    """Counts units of one stage; thread-safe (judging updates from worker threads)."""

    def __init__(self, total: int, desc: str, *, unit: str = "it", interval: float = 5.0,
                 on_update: Callable[[int], None] | None = None,
                 tty: bool | None = None, step_pct: float = 10.0, min_gap: float = 1.0) -> None:
        self.total, self.desc, self.unit, self.interval = total, desc, unit, interval
        self.step_pct, self.min_gap = step_pct, min_gap
        self.done = 0
        self._logged_pct = 0.0   # the last percentage a non-TTY line was logged at
        self.on_update = on_update
        self._lock = threading.Lock()
        self._start = self._last = self._last_line = time.monotonic()
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
            if self._bar is None and self._line_due(now):
                self._logged_pct = 100.0 * self.done / self.total // self.step_pct * self.step_pct
                self._last_line = now
                log.info("%s", self.line(now))
            if now - self._last >= self.interval:
                self._last = now
                self._feed()

    def _line_due(self, now: float) -> bool:
        """Another ``step_pct`` done, ``min_gap`` seconds since the last line (or the start),
        and the rest not expected within ``min_gap`` (then the closing line comes soon)."""
        if not self.total or 100.0 * self.done / self.total < self._logged_pct + self.step_pct:
            return False
        if now - self._last_line < self.min_gap:
            return False
        rate = self.done / max(now - self._start, 1e-9)
        return (self.total - self.done) / rate >= self.min_gap

    def line(self, now: float) -> str:
        """``judging: 120/400 cases (30%), 12.0 cases/s, ETA 23 s``."""
        elapsed = max(now - self._start, 1e-9)
        rate = self.done / elapsed
        pct = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        eta = (f", ETA {(self.total - self.done) / rate:.0f} s"
               if rate > 0 and self.total >= self.done else "")
        return (f"{self.desc}: {self.done}/{self.total} {self.unit}{pct}, "
                f"{rate_text(rate)} {self.unit}/s{eta}")

    def _feed(self) -> None:
        if self.on_update is not None:
            self.on_update(self.done)

    def close(self) -> None:
        with self._lock:
            if self._bar is not None:
                self._bar.close()
            elif self._logged_pct < 100.0 or not self.total:
                log.info("%s", self.line(time.monotonic()))   # where the stage ended
            self._feed()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
