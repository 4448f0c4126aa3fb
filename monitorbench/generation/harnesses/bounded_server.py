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
        try:
            super().process_request(request, client_address)
        except BaseException:  # the thread did not start: its slot is free again
            self.slots.release()
            self.shutdown_request(request)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def close(self) -> None:
        self.shutdown()
        self.server_close()


class RefusalTrace:
    """Traces refusals under the trace lock: the first ``limit`` one by one, then one event
    saying the rest are only counted (:meth:`summary` gives the count at the end). The
    accepting thread notes without waiting (``wait=False``): while ``run_public`` holds the
    trace lock it counts instead, so accepting never stalls behind a sandbox run."""

    def __init__(self, ctx: RunContext, lock: threading.Lock, limit: int) -> None:
        self.ctx, self.lock, self.limit = ctx, lock, limit
        self.count = 0  # refusals noted under the lock
        self.untraced = 0  # refusals counted while the lock was busy (accepting thread only)

    def note(self, event: str, *, wait: bool = True, **fields: Any) -> None:
        if not self.lock.acquire(blocking=wait):
            self.untraced += 1
            return
        try:
            self.count += 1
            if self.count <= self.limit:
                self.ctx.log(event, **fields)
            elif self.count == self.limit + 1:
                self.ctx.log("refused", reason=f"over {self.limit} refusals: the rest are "
                                               "counted, not traced")
        finally:
            self.lock.release()

    def summary(self) -> None:
        if self.count > self.limit or self.untraced:
            total = self.count + self.untraced
            with self.lock:
                self.ctx.log("refused", reason=f"{total} refusals in all", total=total)
