"""The harness's only ways out of its sandbox: the model endpoint and ``run_public``.

Inside the sandbox (no network but its own loopback) :data:`LAUNCHER` listens on the
endpoint's loopback port and pipes every connection, byte for byte, into a Unix socket bound
into the sandbox. Outside, :class:`EndpointProxy` answers that socket: it forwards each HTTP
request to the real endpoint, and on the way enforces the generation budget (model calls, total
tokens, reply length), adds the configured GBNF grammar to chat-completions requests
(``scaffold.harness.grammar``: llama.cpp-family servers constrain the reply's format to it), and
writes every exchange to the trace as a ``model`` event. Nothing else is reachable: other ports,
other hosts and DNS do not exist inside.

:class:`RunPublicServer` answers a second socket: the workspace's ``run_public.py`` sends its
JSON arguments there and the request runs through the ``agent`` scaffold's budgeted
``run_public`` (``scaffolds/tools.py``), i.e. in monitorbench's sandbox, never in the harness's.
"""

from __future__ import annotations

import http.client
import json
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from monitorbench.providers.base import estimate_tokens
from monitorbench.generation.scaffolds import tools
from monitorbench.generation.scaffolds.context import RunContext
from monitorbench.generation.traces import cap

ENDPOINT_SOCK = "endpoint.sock"
RUN_PUBLIC_SOCK = "run_public.sock"
_REPLY_LIMIT_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens")
CHAT_COMPLETIONS = "/chat/completions"  # the request path (suffix) a grammar is added to

# Runs inside the sandbox: listen on the endpoint's port, start the harness, pipe connections.
LAUNCHER = r'''
import os, socket, sys, threading
port, sock_path, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port)); srv.listen(64)

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

def serve():
    while True:
        conn, _ = srv.accept()
        up = socket.socket(socket.AF_UNIX); up.connect(sock_path)
        threading.Thread(target=pipe, args=(conn, up), daemon=True).start()
        threading.Thread(target=pipe, args=(up, conn), daemon=True).start()

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


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class _UnixLineServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def _reply_text_and_usage(raw: bytes) -> tuple[str, dict[str, float]]:
    """The reply text and token usage from a JSON body or an SSE stream (any of the three
    wire formats: chat completions, Responses, Anthropic Messages)."""
    texts: list[str] = []
    usage: dict[str, float] = {}
    chunks = []
    body = raw.decode("utf-8", errors="replace")
    if body.lstrip().startswith("{"):
        chunks = [body]
    else:
        chunks = [ln[5:].strip() for ln in body.splitlines() if ln.startswith("data:")]
    for chunk in chunks:
        try:
            obj = json.loads(chunk)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            _collect(obj, texts, usage)
    return "".join(texts), usage


def _collect(obj: Mapping[str, Any], texts: list[str], usage: dict[str, float]) -> None:
    u = obj.get("usage") or (obj.get("response") or {}).get("usage") \
        or (obj.get("message") or {}).get("usage")
    if isinstance(u, dict):
        for src, dst in (("prompt_tokens", "prompt"), ("input_tokens", "prompt"),
                         ("completion_tokens", "completion"), ("output_tokens", "completion")):
            if isinstance(u.get(src), (int, float)) and u[src]:
                usage[dst] = float(u[src])
    for choice in obj.get("choices") or []:
        part = (choice.get("message") or choice.get("delta") or {})
        if isinstance(part.get("content"), str):
            texts.append(part["content"])
        for call in part.get("tool_calls") or []:
            texts.append(json.dumps(call.get("function", call)))
    if obj.get("type") in ("response.output_text.delta", "content_block_delta"):
        delta = obj.get("delta")
        texts.append(delta if isinstance(delta, str) else str((delta or {}).get("text", "")))
    for block in obj.get("content") or []:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            texts.append(block["text"])


class EndpointProxy:
    """Forwards the harness's HTTP requests to the endpoint under the generation budget."""

    def __init__(self, ctx: RunContext, base_url: str, sock_path: Path,
                 trace_lock: threading.Lock, *, api_key: str | None = None,
                 grammar: str | None = None) -> None:
        self.ctx = ctx
        parts = urlsplit(base_url)
        self.https = parts.scheme == "https"
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or (443 if self.https else 80)
        self.api_key = api_key  # added here, so the key never enters the sandbox
        self.grammar = grammar  # GBNF text added to each chat-completions request, or None
        self.lock = trace_lock
        self.limit_reason: str | None = None
        # Model calls let through so far. Counted when a call is admitted, not when its reply is
        # accounted: the harness sends its next request as soon as it has the reply, which can
        # be before the serving thread has counted the previous one.
        self.admitted = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep the framework's stderr clean
                pass

            def do_GET(self) -> None:
                proxy.handle(self, b"")

            def do_POST(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                proxy.handle(self, self.rfile.read(n))

        self.server = _UnixHTTPServer(str(sock_path), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _over_budget(self) -> str | None:
        s = self.ctx.scaffold
        if self.admitted >= s.max_steps:
            return f"step limit ({s.max_steps} model calls)"
        if self.ctx.total_tokens() >= s.max_total_tokens:
            return f"token limit ({s.max_total_tokens} tokens)"
        return None

    def _rewritten(self, path: str, body: bytes) -> tuple[bytes, Any]:
        """The request with its reply length capped at the condition's ``max_tokens`` and, for
        chat completions, the configured grammar set (replacing the harness's own, if any: the
        run's configuration decides the format)."""
        try:
            req = json.loads(body) if body else None
        except json.JSONDecodeError:
            return body, None
        if not isinstance(req, dict):
            return body, req
        limit = int(self.ctx.condition.max_tokens)
        keys = [k for k in _REPLY_LIMIT_KEYS if k in req] or ["max_tokens"]
        for k in keys:
            req[k] = min(int(req.get(k) or limit), limit)
        if self.grammar is not None and urlsplit(path).path.rstrip("/").endswith(CHAT_COMPLETIONS):
            req["grammar"] = self.grammar
        return json.dumps(req).encode(), req

    def handle(self, h: BaseHTTPRequestHandler, body: bytes) -> None:
        if h.command == "POST":
            with self.lock:
                reason = self._over_budget()
                if reason is not None:
                    self.limit_reason = reason
                    self.ctx.log("limit", detail=reason)
                else:
                    self.admitted += 1
            if reason is not None:
                self._send(h, 400, {"Content-Type": "application/json"}, json.dumps(
                    {"error": {"message": f"monitorbench budget exhausted: {reason}",
                               "type": "budget_exhausted"}}).encode())
                return
            body, req = self._rewritten(h.path, body)
        t0 = time.monotonic()
        try:
            cls = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
            conn = cls(self.host, self.port, timeout=self.ctx.condition.wall_seconds)
            headers = {k: v for k, v in h.headers.items()
                       if k.lower() not in ("host", "content-length", "connection",
                                            "accept-encoding", "authorization", "x-api-key")}
            if self.api_key:
                headers.update({"Authorization": f"Bearer {self.api_key}",
                                "x-api-key": self.api_key})
            conn.request(h.command, h.path, body=body or None, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
            status, rheaders = resp.status, dict(resp.getheaders())
            conn.close()
        except (OSError, http.client.HTTPException) as e:
            # Unreachable, refused, or the endpoint died mid-reply (IncompleteRead): the harness
            # gets a 502 it can report, and the trace records the call as failed.
            raw, status, rheaders = json.dumps({"error": {"message": f"endpoint failed: "
                                                           f"{type(e).__name__}: {e}"}}
                                               ).encode(), 502, {}
        delivered = self._send(h, status, rheaders, raw)
        if h.command == "POST":
            self._account(h.path, req, raw, status, time.monotonic() - t0, delivered)

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, headers: Mapping[str, str],
              raw: bytes) -> bool:
        """Answer the harness; False when it hung up first (its own request timeout): the
        endpoint's work is still accounted, the trace says it never arrived."""
        try:
            EndpointProxy._write(h, status, headers, raw)
            return True
        except (BrokenPipeError, ConnectionResetError):
            return False

    @staticmethod
    def _write(h: BaseHTTPRequestHandler, status: int, headers: Mapping[str, str],
               raw: bytes) -> None:
        h.send_response(status)
        for k, v in headers.items():
            if k.lower() not in ("transfer-encoding", "content-length", "connection",
                                 "content-encoding"):
                h.send_header(k, v)
        h.send_header("Content-Length", str(len(raw)))
        h.send_header("Connection", "close")
        h.end_headers()
        h.wfile.write(raw)

    def _account(self, path: str, req: Any, raw: bytes, status: int, seconds: float,
                 delivered: bool) -> None:
        text, usage = _reply_text_and_usage(raw)
        sent = req.get("messages") or req.get("input") if isinstance(req, dict) else None
        prompt = usage.get("prompt", float(estimate_tokens(json.dumps(sent, default=str))))
        completion = usage.get("completion", float(estimate_tokens(text)))
        with self.lock:
            c = self.ctx.counters
            c["model_calls"] += 1
            c["prompt_tokens"] += prompt
            c["completion_tokens"] += completion
            c["cache_misses"] += 1
            self.ctx.log("model", path=path, sent=sent, reply=text if status < 400 else cap(
                raw.decode(errors="replace"), 2000), http_status=status,
                prompt_tokens=prompt, completion_tokens=completion, cached=False,
                seconds=round(seconds, 4), delivered=delivered)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class RunPublicServer:
    """Answers the workspace's ``run_public.py`` through the scaffold's budgeted run_public."""

    def __init__(self, ctx: RunContext, sock_path: Path, trace_lock: threading.Lock) -> None:
        lock = trace_lock

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                body = self.rfile.read(1 << 20).decode("utf-8", errors="replace")
                with lock:
                    out = tools.run_public(ctx, body)
                self.wfile.write(out.encode("utf-8"))

        self.server = _UnixLineServer(str(sock_path), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

