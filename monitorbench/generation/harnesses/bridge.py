"""The harness's only ways out of its sandbox: the model endpoint and ``run_public``.

Inside the sandbox (no network but its own loopback) :data:`LAUNCHER` listens on the
endpoint's loopback port and pipes every connection, byte for byte, into a Unix socket bound
into the sandbox. Outside, :class:`EndpointProxy` answers that socket. The harness and the model
driving it are untrusted, so the proxy is a gate, not a pipe: it parses each request strictly
(``http_gate``), serves only the model API call (``api_policy``: one POST per wire format, and a
model list it answers itself), re-serialises the body it forwards with the reply cap and ``n=1``
written in, adds the key only to that forwarded call, counts every forwarded call against the
generation budget (model calls; total tokens, reserved on admission for the prompt estimate
plus the reply cap and settled with the real usage: ``token_budget``) before it leaves, and writes every exchange to the
trace as a ``model`` event and every refusal as a ``refused`` (or, past the budget, ``limit``)
event with its reason. Other ports, other hosts and DNS do not exist inside.

:class:`RunPublicServer` answers a second socket: the workspace's ``run_public.py`` sends its
JSON arguments there and the request runs through the ``agent`` scaffold's budgeted
``run_public`` (``scaffolds/tools.py``), i.e. in monitorbench's sandbox, never in the harness's.

Both servers run in the framework's process, so a hostile harness must not be able to grow it:
each caps its concurrent connections (one thread each; excess connections are refused at
once), drops a connection whose request is not complete within a read deadline, and refuses a
request over its byte cap before reading it (:class:`ProxyLimits`).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from monitorbench.providers.base import estimate_tokens
from monitorbench.generation.harnesses.api_policy import (MODELS, api_routes, capped,
                                                          model_list, parse_object, route)
from monitorbench.generation.harnesses.bounded_server import BoundedUnixServer, RefusalTrace
from monitorbench.generation.harnesses.http_gate import (Head, Refused, linger_close, read_body,
                                                          read_head, write_reply)
from monitorbench.generation.harnesses.reply_usage import reply_text_and_usage
from monitorbench.generation.harnesses.token_budget import Reservation, TokenBudget
from monitorbench.generation.scaffolds import tools
from monitorbench.generation.scaffolds.context import RunContext
from monitorbench.generation.traces import cap

ENDPOINT_SOCK = "endpoint.sock"
RUN_PUBLIC_SOCK = "run_public.sock"
JSON_HEADERS = (("Content-Type", "application/json"),)
# Request headers forwarded as the harness sent them: a vendor API needs its version and beta
# flags; framing, hop-by-hop and credential headers are the proxy's own.
FORWARDED_HEADERS = ("accept", "user-agent", "anthropic-version", "anthropic-beta",
                     "openai-beta")


@dataclass(frozen=True)
class ProxyLimits:
    """What one harness connection may cost the framework process.

    ``request_bytes`` (8 MiB): a harness request is its whole conversation; a 128k-token context
    is about 0.5 MB of JSON, so 8 MiB is 16x headroom, and ``connections`` of them stay under
    150 MB. ``reply_bytes`` (16 MiB): a reply is at most ``condition.max_tokens`` tokens, a few
    hundred KB even as a verbose stream; a larger one is an endpoint fault, answered 502.
    ``connections`` (16): harnesses open a few at a time; each is one thread here. A
    connection whose request is not complete within ``read_seconds`` (30 s) is dropped, so
    idle held connections free their slot. Past ``traced_refusals`` refusals in one generation
    the rest are counted, not traced one by one (the trace stays bounded under a flood)."""

    request_bytes: int = 8 << 20
    reply_bytes: int = 16 << 20
    connections: int = 16
    read_seconds: float = 30.0
    traced_refusals: int = 200


# run_public: its arguments are a JSON object of keyword arguments (the case to run), well
# under 1 MiB; a few calls at a time (they run one by one under the trace lock anyway).
RUN_PUBLIC_REQUEST_BYTES = 1 << 20
RUN_PUBLIC_CONNECTIONS = 4
# How often the two servers look for shutdown(): closing one waits up to this long, once per
# generation (socketserver's default, 0.5 s, measured 0.485 s per close).
SHUTDOWN_POLL_SECONDS = 0.05

# Runs inside the sandbox: listen on the endpoint's port, start the harness, pipe connections.
# At most 32 connections are piped at once (two threads each); more are closed at accept.
LAUNCHER = r'''
import os, socket, sys, threading
port, sock_path, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port)); srv.listen(64)
slots = threading.BoundedSemaphore(32)

def pipe(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    finally:
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

def bridge(conn):
    up = socket.socket(socket.AF_UNIX)
    try:
        up.connect(sock_path)
        back = threading.Thread(target=pipe, args=(up, conn), daemon=True)
        back.start()
        pipe(conn, up)
        back.join()
    except (OSError, RuntimeError):
        pass
    finally:
        conn.close(); up.close(); slots.release()

def serve():
    while True:
        conn, _ = srv.accept()
        if not slots.acquire(blocking=False):
            conn.close()
            continue
        try:
            threading.Thread(target=bridge, args=(conn,), daemon=True).start()
        except RuntimeError:
            conn.close(); slots.release()

threading.Thread(target=serve, daemon=True).start()
pid = os.fork()
if pid == 0:
    os.execvp(argv[0], argv)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
'''

# Written into the workspace: the harness's run_public command.
RUN_PUBLIC_SCRIPT = r'''"""run_public: runs env.run_public in monitorbench's sandbox, budgeted.

Usage: python3 run_public.py '{"key": "value"}'   (JSON keyword arguments for env.run_public)
"""
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect("/mb/sock/run_public.sock")
s.sendall((sys.argv[1] if len(sys.argv) > 1 else "{}").encode() + b"\n")
s.shutdown(socket.SHUT_WR)
out = b""
while True:
    data = s.recv(65536)
    if not data:
        break
    out += data
print(out.decode(errors="replace"))
'''


class EndpointProxy:
    """Forwards the harness's model calls to the endpoint under the generation budget, and
    nothing else (module docstring)."""

    def __init__(self, ctx: RunContext, base_url: str, sock_path: Path,
                 trace_lock: threading.Lock, *, api_key: str | None = None,
                 grammar: str | None = None, limits: ProxyLimits = ProxyLimits(),
                 allowed_fields: frozenset[str] = frozenset()) -> None:
        self.ctx = ctx
        parts = urlsplit(base_url)
        self.https = parts.scheme == "https"
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or (443 if self.https else 80)
        self.routes = api_routes(parts.path)
        self.api_key = api_key  # added here, so the key never enters the sandbox
        self.grammar = grammar  # GBNF text added to each chat-completions request, or None
        self.allowed_fields = allowed_fields  # vendor-side fields/tools let through by name
        self.limits = limits
        self.model = str(ctx.model.identity.get("model", ""))  # the one model calls may name
        self.lock = trace_lock
        self.refusals = RefusalTrace(ctx, trace_lock, limits.traced_refusals)
        self.limit_reason: str | None = None
        # Model calls let through so far. Counted when a call is admitted, not when its reply is
        # accounted: the harness sends its next request as soon as it has the reply, which can
        # be before the serving thread has counted the previous one.
        self.admitted = 0
        # Tokens: each admitted call holds a reservation until its reply is accounted, so calls
        # in flight count against the budget too (token_budget).
        self.budget = TokenBudget(int(ctx.scaffold.max_total_tokens),
                                  int(ctx.condition.max_tokens))
        self.listed = 0  # model lists answered by the proxy itself
        self.calls: set[http.client.HTTPConnection] = set()  # endpoint calls in flight
        self.closing = False
        self.server = BoundedUnixServer(str(sock_path), self.serve, limits.connections,
                                        self._full)
        threading.Thread(target=self.server.serve_forever,
                         kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS}, daemon=True).start()

    def serve(self, sock: socket.socket) -> None:
        """One connection: one request, read strictly, then refused, answered or forwarded."""
        deadline = time.monotonic() + self.limits.read_seconds
        head: Head | None = None
        try:
            head, rest = read_head(sock, deadline)
            kind = route(self.routes, head.method, head.path)
            body = read_body(sock, head, rest, self.limits.request_bytes, deadline)
            if kind == MODELS:
                self._list_models(sock, head)
                return
            req, changed = capped(parse_object(body), kind, int(self.ctx.condition.max_tokens),
                                  self.grammar, self.model, self.allowed_fields)
        except Refused as e:
            self._refuse(sock, head, e)
            return
        self._admit_and_forward(sock, head, req, changed)

    def _refuse(self, sock: socket.socket, head: Head | None, e: Refused) -> None:
        if (e.status is None and head is None) or self.closing:
            return  # opened and closed without a byte, or cut off by close(): nothing asked
        self.refusals.note("refused", method=head.method if head else None,
                           path=cap(head.target, 300) if head else None,
                           http_status=e.status, reason=e.reason)
        if e.status is not None and write_reply(
                sock, e.status, JSON_HEADERS,
                _error(f"monitorbench proxy refused the request: {e.reason}", "refused")):
            linger_close(sock)  # the client may still be sending the body we did not read

    def _full(self, sock: socket.socket) -> None:
        self.refusals.note("refused", wait=False, http_status=503,
                           reason=f"over {self.limits.connections} concurrent connections")
        write_reply(sock, 503, JSON_HEADERS, _error("monitorbench proxy: too many concurrent "
                                                    "connections", "refused"), seconds=0.5)

    def _list_models(self, sock: socket.socket, head: Head) -> None:
        """Answered here, never forwarded; at most ``max_steps`` times per generation."""
        with self.lock:
            self.listed += 1
            allowed = self.listed <= self.ctx.scaffold.max_steps
        if not allowed:
            self._refuse(sock, head, Refused(429, f"model list asked more than "
                                                  f"{self.ctx.scaffold.max_steps} times"))
            return
        with self.lock:
            if not self.refusals.closed:
                self.ctx.log("model_list", path=head.target, answered_by="proxy")
        write_reply(sock, 200, JSON_HEADERS, model_list(self.model))

    def _admit(self, payload: bytes) -> Reservation | str:
        """A reservation for the call, or why it is refused: past the step limit, or used
        plus reserved tokens plus its own estimate past the token limit. Called under the
        lock, so concurrent admissions see each other's reservations."""
        s = self.ctx.scaffold
        if self.admitted >= s.max_steps:
            return f"step limit ({s.max_steps} model calls)"
        held = self.budget.admit(self.ctx.total_tokens(), len(payload))
        if isinstance(held, Reservation):
            self.admitted += 1
        return held

    def _admit_and_forward(self, sock: socket.socket, head: Head, req: dict[str, Any],
                           changed: Mapping[str, Any]) -> None:
        payload = json.dumps(req).encode()
        with self.lock:
            held = self._admit(payload)
            if isinstance(held, str):
                self.limit_reason = held
        if isinstance(held, str):
            self.refusals.note("limit", detail=held, path=cap(head.target, 300))
            write_reply(sock, 400, JSON_HEADERS, _error(f"monitorbench budget exhausted: "
                                                        f"{held}", "budget_exhausted"))
            return
        t0, status, raw, delivered = time.monotonic(), 502, b"", False
        try:
            status, rheaders, raw = self._forward(head, payload)
            delivered = write_reply(sock, status, rheaders, raw)
        finally:  # the reservation is settled whatever happened to the call
            self._account(head.target, req, raw, status, time.monotonic() - t0, delivered,
                          changed, held)

    def _forward(self, head: Head, payload: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
        """The endpoint's answer to the re-serialised request, the key added; a 502 when the
        endpoint cannot be reached, dies mid-reply or sends more than ``reply_bytes``."""
        headers = {k: v for k, v in head.headers.items() if k in FORWARDED_HEADERS}
        headers["Content-Type"] = "application/json"
        if self.api_key:
            headers.update({"Authorization": f"Bearer {self.api_key}",
                            "x-api-key": self.api_key})
        cls = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
        conn = cls(self.host, self.port, timeout=self.ctx.condition.wall_seconds)
        with self.lock:
            self.calls.add(conn)
        try:
            if self.closing:
                raise ConnectionAbortedError("the generation ended before the call was sent")
            conn.request("POST", head.target, body=payload, headers=headers)
            resp = conn.getresponse()
            raw = _read_capped(resp, self.limits.reply_bytes)
            return resp.status, resp.getheaders(), raw
        except (OSError, http.client.HTTPException, _ReplyTooLarge) as e:
            # Unreachable, refused, the endpoint died mid-reply (IncompleteRead) or flooded:
            # the harness gets a 502 it can report, and the trace records the call as failed.
            return 502, list(JSON_HEADERS), _error(f"endpoint failed: {type(e).__name__}: {e}",
                                                   "endpoint_failed")
        finally:
            with self.lock:
                self.calls.discard(conn)
            conn.close()

    def _account(self, path: str, req: Mapping[str, Any], raw: bytes, status: int,
                 seconds: float, delivered: bool, changed: Mapping[str, Any],
                 held: Reservation) -> None:
        text, usage = reply_text_and_usage(raw)
        sent = req.get("messages") or req.get("input")
        prompt = usage.get("prompt", float(estimate_tokens(json.dumps(sent, default=str))))
        completion = usage.get("completion", float(estimate_tokens(text)))
        with self.lock:
            self.budget.settle(held, usage.get("prompt"))
            if self.refusals.closed:  # still in flight when the generation ended past the wait
                return
            c = self.ctx.counters
            c["model_calls"] += 1
            c["prompt_tokens"] += prompt
            c["completion_tokens"] += completion
            c["cache_misses"] += 1
            self.ctx.log("model", path=path, sent=sent, reply=text if status < 400 else cap(
                raw.decode(errors="replace"), 2000), http_status=status,
                prompt_tokens=prompt, completion_tokens=completion, cached=False,
                seconds=round(seconds, 4), delivered=delivered, capped=dict(changed))
            self.ctx.step_line(f"{path} HTTP {status}", completion, self.ctx.scaffold.max_steps,
                               step=c["model_calls"])

    def close(self) -> None:
        """End the generation's door: calls still waiting for the endpoint (the harness
        exited, or hit its wall clock, before the reply came) are cut off and traced as failed
        502s, so no reply is accounted after the trace is done with."""
        with self.lock:
            self.closing = True
            for conn in self.calls:
                if conn.sock is not None:
                    try:
                        conn.sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
        self.server.close()
        self.refusals.close()


class _ReplyTooLarge(Exception):
    pass


def _read_capped(resp: http.client.HTTPResponse, limit: int) -> bytes:
    """The reply body, at most ``limit`` bytes (a fixed length over it is not read at all);
    a body cut short raises IncompleteRead as ``resp.read()`` does."""
    if resp.length is not None:
        if resp.length > limit:
            raise _ReplyTooLarge(f"reply of {resp.length} bytes is over the proxy's "
                                 f"{limit}-byte limit")
        return resp.read()
    out = bytearray()
    while chunk := resp.read(65536):
        out += chunk
        if len(out) > limit:
            raise _ReplyTooLarge(f"reply over the proxy's {limit}-byte limit")
    return bytes(out)


def _error(message: str, kind: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": kind}}).encode()


class RunPublicServer:
    """Answers the workspace's ``run_public.py`` through the scaffold's budgeted run_public:
    one request per connection, read to its end within ``RUN_PUBLIC_REQUEST_BYTES`` and the
    read deadline, at most ``RUN_PUBLIC_CONNECTIONS`` connections at once."""

    def __init__(self, ctx: RunContext, sock_path: Path, trace_lock: threading.Lock, *,
                 request_bytes: int = RUN_PUBLIC_REQUEST_BYTES,
                 connections: int = RUN_PUBLIC_CONNECTIONS,
                 read_seconds: float = ProxyLimits.read_seconds) -> None:
        self.ctx, self.lock = ctx, trace_lock
        self.request_bytes, self.read_seconds = request_bytes, read_seconds
        self.closing = False
        self.refusals = RefusalTrace(ctx, trace_lock, ProxyLimits.traced_refusals)
        self.server = BoundedUnixServer(str(sock_path), self.serve, connections, self._full)
        threading.Thread(target=self.server.serve_forever,
                         kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS}, daemon=True).start()

    def serve(self, sock: socket.socket) -> None:
        try:
            body = _read_to_end(sock, self.request_bytes, time.monotonic() + self.read_seconds)
        except Refused as e:
            if self.closing:
                return
            self.refusals.note("run_public", status="refused", reason=e.reason)
            _send_text(sock, f"Error: {e.reason}; nothing was executed")
            return
        with self.lock:  # a request cut short by close() is not run
            out = "Error: the generation has ended; nothing was executed" \
                if self.closing or self.refusals.closed else \
                tools.run_public(self.ctx, body.decode("utf-8", errors="replace"))
        _send_text(sock, out)

    def _full(self, sock: socket.socket) -> None:
        self.refusals.note("run_public", wait=False, status="refused",
                           reason="too many concurrent calls")
        _send_text(sock, "Error: too many concurrent run_public calls; nothing was executed",
                   seconds=0.5)

    def close(self) -> None:
        """Waits for a ``run_public`` still running (bounded by its sandbox's limits) so its
        result is traced."""
        self.closing = True
        self.server.close()
        self.refusals.close()


def _read_to_end(sock: socket.socket, limit: int, deadline: float) -> bytes:
    """Everything the client sends before it shuts its side, at most ``limit`` bytes."""
    out = bytearray()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise Refused(408, "run_public request not complete within the read deadline")
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            raise Refused(408, "run_public request not complete within the read deadline")
        except OSError as e:
            raise Refused(None, f"connection failed while reading: {e}")
        if not chunk:
            return bytes(out)
        out += chunk
        if len(out) > limit:
            raise Refused(413, f"run_public request over {limit} bytes")


def _send_text(sock: socket.socket, text: str, seconds: float = 60.0) -> None:
    try:
        sock.settimeout(seconds)
        sock.sendall(text.encode("utf-8"))
    except OSError:
        pass
