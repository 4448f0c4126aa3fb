"""Connection servers that a hostile client cannot grow: the endpoint proxy and the
``run_public`` server run in the framework's process, so each caps its concurrent connections
(one thread each) and traces what it refuses without letting a flood of refusals grow the
trace."""

from __future__ import annotations

import socket
import socketserver
import threading
from typing import Any, Callable

from monitorbench.generation.scaffolds.context import RunContext


class BoundedUnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """A Unix-socket server with one thread per connection and at most ``slots`` of them:
    a connection beyond that is handed to ``on_full`` and closed at once, so held-open
    connections cannot grow the framework's threads."""

    daemon_threads = True
    request_queue_size = 64  # connections waiting to be accepted (and refused, when full)

    def __init__(self, path: str, serve: Callable[[socket.socket], None], slots: int,
                 on_full: Callable[[socket.socket], None]) -> None:
        self.serve, self.on_full = serve, on_full
        self.slots = threading.BoundedSemaphore(slots)
        self.active: set[socket.socket] = set()  # connections being served
        self.changed = threading.Condition()

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                serve(self.request)

        super().__init__(path, Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            try:
                self.on_full(request)
            finally:
                self.shutdown_request(request)
            return
        with self.changed:
            self.active.add(request)
        try:
            super().process_request(request, client_address)
        except BaseException:  # the thread did not start: its slot is free again
            self._done(request)
            self.shutdown_request(request)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._done(request)

    def _done(self, request: Any) -> None:
        with self.changed:
            self.active.discard(request)
            self.changed.notify_all()
        self.slots.release()

    def close(self, wait_seconds: float = 10.0) -> bool:
        """Stop accepting, end the connections still open (their threads then finish what they
        were doing) and wait up to ``wait_seconds`` for them; False if some are still busy."""
        self.shutdown()
        self.server_close()
        with self.changed:
            for request in self.active:
                try:
                    request.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            return self.changed.wait_for(lambda: not self.active, timeout=wait_seconds)


class RefusalTrace:
    """Traces refusals under the trace lock: the first ``limit`` one by one, then one event
    saying the rest are only counted (:meth:`close` gives the count at the end). The
    accepting thread notes without waiting (``wait=False``): while ``run_public`` holds the
    trace lock it counts instead, so accepting never stalls behind a sandbox run."""

    def __init__(self, ctx: RunContext, lock: threading.Lock, limit: int) -> None:
        self.ctx, self.lock, self.limit = ctx, lock, limit
        self.count = 0  # refusals noted under the lock
        self.untraced = 0  # refusals counted while the lock was busy (accepting thread only)
        self.closed = False  # set under the lock when the generation's trace is done with

    def note(self, event: str, *, wait: bool = True, **fields: Any) -> None:
        if not self.lock.acquire(blocking=wait):
            self.untraced += 1
            return
        try:
            if self.closed:
                return
            self.count += 1
            if self.count <= self.limit:
                self.ctx.log(event, **fields)
            elif self.count == self.limit + 1:
                self.ctx.log("refused", reason=f"over {self.limit} refusals: the rest are "
                                               "counted, not traced")
        finally:
            self.lock.release()

    def close(self) -> None:
        """Write the total when some refusals were not traced one by one; nothing is traced
        after this (a thread still busy when its server closed writes nothing)."""
        with self.lock:
            total = self.count + self.untraced
            if self.count > self.limit or self.untraced:
                self.ctx.log("refused", reason=f"{total} refusals in all", total=total)
            self.closed = True
