"""Progress points for an MLflow run, sent from a background thread so judging never waits.

A progress update only records the latest value per curve; one daemon thread sends what is
pending. When the store stops answering the thread stops sending, and a point that arrives
while one is in flight replaces the pending one instead of queueing behind it.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

log = logging.getLogger(__name__)

Send = Callable[[str, float, int], None]   # (curve, value, step)


class ProgressSink:
    """Best-effort ``progress/<curve>`` points: :meth:`put` never blocks on the network."""

    def __init__(self, send: Send, on_lost: Callable[[BaseException], None]) -> None:
        self._send, self._on_lost = send, on_lost
        self._pending: dict[str, float] = {}
        self._steps: dict[str, int] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = False
        self._busy = False          # a batch is being sent
        self._thread = threading.Thread(target=self._loop, name="mlflow-progress", daemon=True)
        self._thread.start()

    def put(self, curve: str, value: float) -> None:
        with self._lock:
            if self._stopped:
                return
            self._pending[curve] = float(value)
        self._wake.set()

    def flush(self, timeout_s: float) -> None:
        """Send what is pending (the last points of each curve) within ``timeout_s``; then
        stop. Called once the job is done, so the logged curves end at the final count."""
        deadline = time.monotonic() + timeout_s
        while self._has_pending() and self._thread.is_alive() and time.monotonic() < deadline:
            self._wake.set()
            time.sleep(0.02)
        with self._lock:
            self._stopped = True
        self._wake.set()

    def _has_pending(self) -> bool:
        with self._lock:
            return (bool(self._pending) or self._busy) and not self._stopped

    def _loop(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            with self._lock:
                if self._stopped:
                    return
                batch, self._pending, self._busy = self._pending, {}, True
            for curve, value in batch.items():
                step = self._steps.get(curve, 0)
                try:
                    self._send(curve, value, step)
                except Exception as e:  # the store went away: stop sending, the job goes on
                    with self._lock:
                        self._stopped = True
                        self._pending = {}
                    self._on_lost(e)
                    return
                self._steps[curve] = step + 1
            with self._lock:
                self._busy = False
