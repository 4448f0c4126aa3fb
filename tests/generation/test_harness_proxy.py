"""The endpoint proxy is the harness's only door to the model, and it counts everything.

Real proxy, real Unix socket (the one bound into the harness sandbox), real loopback endpoint.
The requests are written byte by byte in the tests and the endpoint is a scripted loopback HTTP
server that records everything reaching it: a hostile model driving a harness sends exactly
such hand-made requests (other paths, chunked smuggling, trailing bytes, huge bodies, held-open
connections), which no real harness or real llama.cpp server produces on demand. What is
asserted is what reaches the endpoint, with which headers, and what the trace records.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from gen_helpers import openai_cfg
from monitorbench.config import ConditionConfig, ScaffoldConfig
from monitorbench.generation.harnesses.bridge import (EndpointProxy, ProxyLimits,
                                                      RunPublicServer)
from monitorbench.generation.scaffolds.context import RunContext
from monitorbench.generation.traces import read_trace
from monitorbench.providers.factory import make_chat_model

KEY = "sk-canary-5f1e"
CAP = 32  # condition.max_tokens in these tests


class Endpoint:
    """Scripted loopback endpoint: records (method, path, headers, body) of every request that
    reaches it and answers any request 200 with a chat completion (so a forwarded GET or
    foreign POST would be visible as served); ``reply_bytes`` pads the reply."""

    def __init__(self, reply_bytes: int = 0, chunked: bool = False) -> None:
        self.seen: list[tuple[str, str, dict[str, str], bytes]] = []
        outer = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return None

            def _any(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                outer.seen.append((self.command, self.path, dict(self.headers),
                                   self.rfile.read(n)))
                reply = json.dumps({"choices": [{"message": {"content": "ok" + " " * reply_bytes}}],
                                    "usage": {"prompt_tokens": 10, "completion_tokens": 2}}
                                   ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for i in range(0, len(reply), 1 << 16):
                        part = reply[i:i + (1 << 16)]
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    self.send_header("Content-Length", str(len(reply)))
                    self.end_headers()
                    self.wfile.write(reply)

            do_GET = do_POST = do_DELETE = do_PUT = _any

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        # A short poll: close() waits for serve_forever to notice the shutdown (0.5 s default).
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    e = Endpoint()
    yield e
    e.close()


def _ctx(task_dir, tmp_path: Path, base_url: str, max_steps: int = 30) -> RunContext:
    task, public = task_dir
    gen = openai_cfg(base_url)
    return RunContext(task=task, public_dir=public, out_dir=tmp_path / "out",
                      model=make_chat_model(gen),
                      condition=ConditionConfig(max_tokens=CAP, wall_seconds=30),
                      scaffold=ScaffoldConfig(name="probe", max_steps=max_steps))


def _proxy(ctx: RunContext, base_url: str, tmp_path: Path, **limits: Any) -> EndpointProxy:
    return EndpointProxy(ctx, base_url, tmp_path / "ep.sock", threading.Lock(), api_key=KEY,
                         limits=ProxyLimits(**limits))


def _raw(sock_path: Path, data: bytes, timeout: float = 10.0) -> tuple[int, bytes]:
    """Send ``data`` as is on one connection; the status and body of the reply (0: none)."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(timeout)
        s.connect(str(sock_path))
        try:
            s.sendall(data)
        except OSError:
            pass
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except OSError:
            pass
    if not out.startswith(b"HTTP/1."):
        return 0, out
    head, _, body = out.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), body


def _request(method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    if body is not None and not any(k.lower() == "content-length" for k in (headers or {})):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")


def _chat(**fields: Any) -> bytes:
    return json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}],
                       **fields}).encode()


def _events(ctx: RunContext, name: str) -> list[dict[str, Any]]:
    return [e for e in read_trace(ctx.out_dir / "trace.jsonl") if e["event"] == name]


def test_only_the_model_call_is_forwarded_and_only_it_carries_the_key(
        endpoint: Endpoint, task_dir, tmp_path: Path) -> None:
    ctx = _ctx(task_dir, tmp_path, endpoint.base_url)
    proxy = _proxy(ctx, endpoint.base_url, tmp_path)
    sock = tmp_path / "ep.sock"
    try:
        foreign = [_request("GET", "/v1/files"), _request("GET", "/props"),
                   _request("GET", "/slots?fail_on_no_slot=1"),
                   _request("POST", "/v1/embeddings", _chat()),
                   _request("POST", "/v1/completions", _chat()),
                   _request("POST", "/v1/chat/completions/../../../props", _chat()),
                   _request("DELETE", "/v1/chat/completions"),
                   _request("GET", "/v1/chat/completions"),
                   _request("POST", "http://127.0.0.1/v1/chat/completions", _chat())]
        codes = [_raw(sock, r)[0] for r in foreign]
        listed = _raw(sock, _request("GET", "/v1/models"))
        served = _raw(sock, _request("POST", "/v1/chat/completions", _chat(),
                                     {"Authorization": "Bearer harness-own",
                                      "Content-Type": "application/json"}))
    finally:
        proxy.close()
    assert codes == [404, 404, 404, 404, 404, 404, 405, 405, 400]
    assert listed[0] == 200 and json.loads(listed[1])["data"][0]["id"] == "scripted-model"
    assert served[0] == 200 and json.loads(served[1])["choices"][0]["message"]["content"] == "ok"
    assert [(m, p) for m, p, _, _ in endpoint.seen] == [("POST", "/v1/chat/completions")]
    headers = endpoint.seen[0][2]
    assert headers["Authorization"] == f"Bearer {KEY}" and headers["x-api-key"] == KEY
    refused = _events(ctx, "refused")
    assert len(refused) == len(foreign) and all(e["reason"] for e in refused)
    assert refused[0]["method"] == "GET" and refused[0]["path"] == "/v1/files"
    assert [e["path"] for e in _events(ctx, "model_list")] == ["/v1/models"]
    assert len(_events(ctx, "model")) == 1


@pytest.mark.parametrize("raw,status", [
    # chunked framing carrying a second chat completion after the first
    (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 60\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n%s\r\n0\r\n\r\n" % (len(_chat()), _chat())
     + _request("POST", "/v1/chat/completions", _chat(max_tokens=999999)), 501),
    # bytes after the JSON object inside the declared body
    (_request("POST", "/v1/chat/completions", _chat(max_tokens=999999) + b" {\"n\": 64}"), 400),
    # a second request pipelined after the body
    (_request("POST", "/v1/chat/completions", _chat())
     + _request("POST", "/v1/chat/completions", _chat(max_tokens=999999)), 400),
    (_request("POST", "/v1/chat/completions", b"[1, 2]"), 400),
    (_request("POST", "/v1/chat/completions", b'{"max_tokens": NaN}'), 400),
    (_request("POST", "/v1/chat/completions", _chat(max_tokens="999999")), 400),
    (_request("POST", "/v1/chat/completions", _chat(),
              {"Content-Length": "5", "content-length": "9"}), 400),
    (_request("POST", "/v1/chat/completions", _chat(), {"Content-Encoding": "gzip"}), 415),
    (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n" + _chat(), 411),
])
def test_requests_not_strictly_one_json_object_are_refused_unforwarded(
        endpoint: Endpoint, task_dir, tmp_path: Path, raw: bytes, status: int) -> None:
    ctx = _ctx(task_dir, tmp_path, endpoint.base_url)
    proxy = _proxy(ctx, endpoint.base_url, tmp_path)
    try:
        code, _ = _raw(tmp_path / "ep.sock", raw)
    finally:
        proxy.close()
    assert code == status
    assert endpoint.seen == []
    assert [e["http_status"] for e in _events(ctx, "refused")] == [status]
    assert ctx.counters["model_calls"] == 0 and proxy.admitted == 0


def test_reply_caps_are_written_into_the_forwarded_body(
        endpoint: Endpoint, task_dir, tmp_path: Path) -> None:
    ctx = _ctx(task_dir, tmp_path, endpoint.base_url)
    proxy = _proxy(ctx, endpoint.base_url, tmp_path)
    sock = tmp_path / "ep.sock"
    try:
        codes = [_raw(sock, _request("POST", path, body))[0] for path, body in [
            ("/v1/chat/completions", _chat(max_tokens=999999, n=64, stream=True)),
            ("/v1/chat/completions", _chat(n_predict=-1, max_completion_tokens=10)),
            ("/v1/chat/completions", _chat(n_predict=5)),
            ("/v1/chat/completions", _chat()),
            ("/v1/responses", json.dumps({"input": "hi", "max_output_tokens": 10 ** 9}).encode()),
            ("/v1/messages?beta=true", json.dumps({"messages": [], "max_tokens": 4096}).encode()),
        ]]
    finally:
        proxy.close()
    assert codes == [200] * 6
    sent = [json.loads(b) for _, _, _, b in endpoint.seen]
    assert sent[0]["max_tokens"] == CAP and sent[0]["n"] == 1 and sent[0]["stream"] is True
    assert sent[1]["n_predict"] == CAP and sent[1]["max_completion_tokens"] == 10
    assert sent[2]["n_predict"] == 5 and sent[2]["max_tokens"] == CAP  # binds any server
    assert sent[3]["max_tokens"] == CAP  # added when the harness sets none
    assert sent[4]["max_output_tokens"] == CAP and sent[5]["max_tokens"] == CAP
    assert [p for _, p, _, _ in endpoint.seen][4:] == ["/v1/responses", "/v1/messages?beta=true"]
    model = _events(ctx, "model")
    assert model[0]["capped"] == {"model": ["m", "scripted-model"], "max_tokens": [999999, CAP],
                                  "n": [64, 1]}
    assert {b["model"] for b in sent} == {"scripted-model"}  # "m" or none: the configured one


def test_the_budget_counts_every_forwarded_request_whatever_the_mix(
        endpoint: Endpoint, task_dir, tmp_path: Path) -> None:
    ctx = _ctx(task_dir, tmp_path, endpoint.base_url, max_steps=12)
    proxy = _proxy(ctx, endpoint.base_url, tmp_path)
    sock = tmp_path / "ep.sock"
    mix = [_request("POST", "/v1/chat/completions", _chat()),
           _request("POST", "/v1/responses", json.dumps({"input": "x"}).encode()),
           _request("POST", "/v1/messages", json.dumps({"messages": []}).encode()),
           _request("GET", "/v1/models"), _request("GET", "/v1/files"),
           _request("POST", "/v1/embeddings", _chat())]
    try:
        codes = [_raw(sock, mix[i % len(mix)])[0] for i in range(60)]
    finally:
        proxy.close()
    assert len(endpoint.seen) == 12 and {m for m, _, _, _ in endpoint.seen} == {"POST"}
    assert codes.count(200) == 12 + 10  # 12 forwarded calls and the 10 model lists
    assert ctx.counters["model_calls"] == 12 and len(_events(ctx, "model")) == 12
    assert len(_events(ctx, "limit")) == 30 - 12  # every API call past the budget, traced
    assert proxy.limit_reason == "step limit (12 model calls)"


def _rss_peak_kib() -> int:
    status = Path("/proc/self/status").read_text()
    key = "VmHWM:" if "VmHWM:" in status else "VmRSS:"
    return int(next(ln for ln in status.splitlines() if ln.startswith(key)).split()[1])


def test_an_oversize_body_is_refused_unread_and_rss_stays_bounded(
        endpoint: Endpoint, task_dir, tmp_path: Path) -> None:
    """100 MB sent in 1 MB chunks under a declared Content-Length: answered 413 before the
    body is read; the process's peak RSS (VmHWM, reset first where the kernel allows) grows by
    far less than the body."""
    ctx = _ctx(task_dir, tmp_path, endpoint.base_url)
    proxy = _proxy(ctx, endpoint.base_url, tmp_path)
    size, chunk = 100 << 20, b"x" * (1 << 20)
    try:
        Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    except OSError:
        pass
    before = _rss_peak_kib()
    sent = 0
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(str(tmp_path / "ep.sock"))
        s.sendall(f"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: {size}\r\n\r\n"
                  .encode())
        try:
            while sent < size:
                s.sendall(chunk)
                sent += len(chunk)
        except OSError:  # the proxy answered and closed: the rest is never read
            pass
        reply = s.recv(65536)
    grown_mib = (_rss_peak_kib() - before) / 1024
    proxy.close()
    assert reply.startswith(b"HTTP/1.1 413")
    assert sent < size  # the proxy stopped the upload instead of swallowing it
    assert grown_mib < 20, f"peak RSS grew {grown_mib:.1f} MiB on a refused 100 MB body"
    assert endpoint.seen == [] and "not read" in _events(ctx, "refused")[0]["reason"]


@pytest.mark.parametrize("chunked", [False, True])
def test_a_reply_over_the_cap_is_a_counted_502(task_dir, tmp_path: Path, chunked: bool) -> None:
    e = Endpoint(reply_bytes=2 << 20, chunked=chunked)
    ctx = _ctx(task_dir, tmp_path, e.base_url)
    proxy = _proxy(ctx, e.base_url, tmp_path, reply_bytes=1 << 20)
    try:
        code, body = _raw(tmp_path / "ep.sock", _request("POST", "/v1/chat/completions", _chat()))
    finally:
        proxy.close()
        e.close()
    assert code == 502 and b"over the proxy's 1048576-byte limit" in body
    assert len(e.seen) == 1 and ctx.counters["model_calls"] == 1
    assert [m["http_status"] for m in _events(ctx, "model")] == [502]


def _hold(sock_path: Path, n: int) -> list[socket.socket]:
    held = []
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX)
        s.connect(str(sock_path))  # blocking: waits while the listen backlog is full
        s.settimeout(10)
        held.append(s)
    return held


def _dropped(held: list[socket.socket]) -> int:
    """How many of the held connections the server has ended (EOF or a reply then EOF)."""
    n = 0
    for s in held:
        try:
            while s.recv(65536):
                pass
            n += 1
        except OSError:
            n += 1
        finally:
            s.close()
    return n


def test_held_idle_connections_neither_grow_threads_nor_outlive_the_deadline(
        endpoint: Endpoint, task_dir, tmp_path: Path) -> None:
    ctx = _ctx(task_dir, tmp_path, endpoint.base_url)
    threads = threading.active_count()
    proxy = _proxy(ctx, endpoint.base_url, tmp_path, connections=8, read_seconds=1.0)
    runner = RunPublicServer(ctx, tmp_path / "rp.sock", proxy.lock, connections=4,
                             read_seconds=1.0)
    try:
        held = _hold(tmp_path / "ep.sock", 200) + _hold(tmp_path / "rp.sock", 200)
        time.sleep(0.3)
        grown = threading.active_count() - threads
        t0 = time.monotonic()
        dropped = _dropped(held)
        waited = time.monotonic() - t0
        code, _ = _raw(tmp_path / "ep.sock", _request("POST", "/v1/chat/completions", _chat()))
    finally:
        proxy.close()
        runner.close()
    assert grown <= 2 + 8 + 4, f"{grown} threads for 400 held connections"
    assert dropped == 400 and waited < 5.0  # all ended within about the 1 s deadline
    assert code == 200  # the proxy still serves once the holders are gone
    reasons = [e["reason"] for e in _events(ctx, "refused")]
    assert any("concurrent connections" in r for r in reasons)
    assert any("read deadline" in r for r in reasons)
    assert any(e["status"] == "refused" for e in _events(ctx, "run_public"))


def test_an_oversize_run_public_request_is_refused_without_running(
        endpoint: Endpoint, task_dir, tmp_path: Path) -> None:
    ctx = _ctx(task_dir, tmp_path, endpoint.base_url)
    runner = RunPublicServer(ctx, tmp_path / "rp.sock", threading.Lock(), request_bytes=1000)
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(10)
            s.connect(str(tmp_path / "rp.sock"))
            try:
                s.sendall(b'{"calls": "' + b"x" * 100_000 + b'"}\n')
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            out = s.recv(65536).decode()
    finally:
        runner.close()
    assert "over 1000 bytes" in out and "nothing was executed" in out
    assert ctx.counters["executions_used"] == 0
    assert [e["status"] for e in _events(ctx, "run_public")] == ["refused"]


def _threads(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(ln for ln in status.splitlines() if ln.startswith("Threads:")).split()[1])


def test_the_forwarder_inside_the_sandbox_pipes_a_bounded_number_of_connections(
        tmp_path: Path) -> None:
    """The real LAUNCHER (run here without bwrap: what is measured is its own thread count)
    in front of a Unix socket that accepts nothing: 100 TCP connections held open give it at
    most 32 piped connections (two threads each); the rest are closed at once."""
    import subprocess
    import sys

    from monitorbench.generation.harnesses.bridge import LAUNCHER

    upstream = socket.socket(socket.AF_UNIX)
    upstream.bind(str(tmp_path / "up.sock"))
    upstream.listen(256)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (tmp_path / "launch.py").write_text(LAUNCHER)
    proc = subprocess.Popen([sys.executable, "-I", "-S", str(tmp_path / "launch.py"), str(port),
                             str(tmp_path / "up.sock"), "sleep", "60"])
    held: list[socket.socket] = []
    try:
        for _ in range(100):
            for _ in range(50):  # until the launcher listens
                try:
                    held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
                    break
                except ConnectionRefusedError:
                    time.sleep(0.1)
        time.sleep(1.0)
        threads = _threads(proc.pid)
        closed = _closed_by_the_peer(held, expected=100 - 32)
    finally:
        for s in held:
            s.close()
        proc.kill()
        proc.wait()
        upstream.close()
    assert len(held) == 100
    assert threads <= 2 + 2 * 32, f"{threads} threads for 100 held connections"
    assert closed == 100 - 32


def _closed_by_the_peer(held: list[socket.socket], expected: int) -> int:
    """How many of ``held`` the peer closes (EOF): watched together until ``expected`` have
    closed (at most 10 s, for a slow machine), then 0.5 s more in which no other may close.
    Read one after another with 0.5 s each, the connections left open cost 16 s."""
    import selectors

    closed = 0
    deadline = time.monotonic() + 10.0
    with selectors.DefaultSelector() as sel:
        for s in held:
            sel.register(s, selectors.EVENT_READ)
        while sel.get_map():
            if closed >= expected and deadline - time.monotonic() > 0.5:
                deadline = time.monotonic() + 0.5
            left = deadline - time.monotonic()
            if left <= 0:
                break
            for key, _ in sel.select(left):
                sel.unregister(key.fileobj)
                closed += key.fileobj.recv(1) == b""
    return closed


@pytest.mark.parametrize("extra,status", [(["-H", "Expect: 100-continue"], 200),
                                          (["-H", "Transfer-Encoding: chunked"], 501)])
def test_a_real_http_client_is_served_or_refused(endpoint: Endpoint, task_dir, tmp_path: Path,
                                                 extra: list[str], status: int) -> None:
    """curl, a real client: a body announced with ``Expect: 100-continue`` is asked for at
    once (curl would otherwise wait a second) and served; curl's own chunked upload is
    refused."""
    import shutil
    import subprocess

    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    ctx = _ctx(task_dir, tmp_path, endpoint.base_url)
    proxy = _proxy(ctx, endpoint.base_url, tmp_path)
    big = [{"role": "user", "content": "x" * 100_000}]  # in an allowed field (field_policy)
    (tmp_path / "body.json").write_bytes(_chat(messages=big))
    try:
        out = subprocess.run(["curl", "-sv", "--unix-socket", str(tmp_path / "ep.sock"),
                              "-o", "/dev/null", "-w", "%{http_code}", "--data-binary",
                              f"@{tmp_path / 'body.json'}", *extra,
                              "http://localhost/v1/chat/completions"],
                             capture_output=True, text=True, timeout=30)
    finally:
        proxy.close()
    assert out.stdout == str(status)
    assert len(endpoint.seen) == (status == 200)
    if status == 200:
        assert "HTTP/1.1 100 Continue" in out.stderr
        assert json.loads(endpoint.seen[0][3])["messages"] == big


def test_a_client_still_uploading_when_refused_can_send_the_rest_and_read_the_refusal(
        endpoint: Endpoint, task_dir, tmp_path: Path) -> None:
    """The race a loaded CI machine lost once (curl printed 000 for a chunked upload the
    proxy had answered 501): made certain here by sending the body only after the refusal
    has arrived. The proxy drains what it did not read, so the send succeeds and the client
    reads the answer instead of a broken pipe."""
    import select

    ctx = _ctx(task_dir, tmp_path, endpoint.base_url)
    proxy = _proxy(ctx, endpoint.base_url, tmp_path)
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(10)
            s.connect(str(tmp_path / "ep.sock"))
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n")
            assert select.select([s], [], [], 10)[0], "no refusal within 10 s"
            time.sleep(0.2)  # the proxy has answered and, before the fix, closed
            s.sendall(b"x" * 1_000_000)  # more than a Unix socket buffers: needs a reader
            s.shutdown(socket.SHUT_WR)
            reply = b""
            while chunk := s.recv(65536):
                reply += chunk
    finally:
        proxy.close()
    assert reply.startswith(b"HTTP/1.1 501 ")
    assert not endpoint.seen


def test_excess_connections_are_refused_at_once_while_run_public_holds_the_trace_lock(
        endpoint: Endpoint, task_dir, tmp_path: Path) -> None:
    """run_public runs under the trace lock (tens of seconds in the sandbox); refusing a
    connection over the cap must not wait for it, or accepting stalls."""
    ctx = _ctx(task_dir, tmp_path, endpoint.base_url)
    proxy = _proxy(ctx, endpoint.base_url, tmp_path, connections=2, read_seconds=5.0)
    try:
        with proxy.lock:  # as RunPublicServer holds it while the sandbox runs
            held = _hold(tmp_path / "ep.sock", 20)
            replies = []
            for s in held[2:]:
                s.settimeout(3)
                replies.append(s.recv(12))
        for s in held:
            s.close()
    finally:
        proxy.close()
    assert replies == [b"HTTP/1.1 503"] * 18
    assert any(e.get("total") == 18 for e in _events(ctx, "refused"))  # counted at the end


def test_a_call_in_flight_when_the_generation_ends_is_cut_off_and_traced(
        task_dir, tmp_path: Path) -> None:
    """The harness exits (or hits its wall clock) while the endpoint still computes: closing
    the proxy cuts the call off at once and traces it as a failed call (502), instead of
    the reply arriving after the trace is done with (seen with Claude Code on a loaded
    llama.cpp server: the model event was lost and the handler thread raised)."""
    arrived, release = threading.Event(), threading.Event()

    class Slow(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return None

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            arrived.set()
            release.wait(30)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    ctx = _ctx(task_dir, tmp_path, base)
    proxy = _proxy(ctx, base, tmp_path)
    harness = threading.Thread(target=_raw, args=(tmp_path / "ep.sock",
                                                  _request("POST", "/v1/chat/completions",
                                                           _chat())))
    harness.start()
    assert arrived.wait(30)  # the call is in flight: the endpoint has it and computes
    t0 = time.monotonic()
    proxy.close()
    closed_in = time.monotonic() - t0
    model = _events(ctx, "model")  # traced by the time close returns, the endpoint still busy
    release.set()
    harness.join(10)
    httpd.shutdown()
    assert closed_in < 5.0
    assert [m["http_status"] for m in model] == [502]
    assert "endpoint failed" in model[0]["reply"]
    assert ctx.counters["model_calls"] == 1


def test_a_run_public_request_cut_short_by_the_end_of_the_generation_is_not_run(
        endpoint: Endpoint, task_dir, tmp_path: Path) -> None:
    """Closing ends the connections still open; the half-sent arguments of one of them must
    not run as a (counted) run_public call."""
    ctx = _ctx(task_dir, tmp_path, endpoint.base_url)
    runner = RunPublicServer(ctx, tmp_path / "rp.sock", threading.Lock())
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(tmp_path / "rp.sock"))
        s.sendall(b'{"calls": [1, ')
        time.sleep(0.5)
        runner.close()
    assert ctx.counters["executions_used"] == 0
    assert _events(ctx, "run_public") == []


class UsageEndpoint:
    """Scripted loopback endpoint playing a hostile model that spends all it can: each reply
    comes after ``hold`` seconds (so concurrent calls are all in flight together), uses the
    whole reply cap it was sent, and reports a prompt of ``len(body) * tokens_per_byte``
    tokens, as a real tokenizer would count that prompt. ``served`` sums what it answered."""

    def __init__(self, hold: float = 0.5, tokens_per_byte: float = 0.25) -> None:
        self.served = 0
        self.calls = 0
        lock = threading.Lock()
        outer = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                prompt = int(len(body) * tokens_per_byte)
                completion = int(json.loads(body).get("max_tokens") or 0)
                time.sleep(hold)
                with lock:
                    outer.served += prompt + completion
                    outer.calls += 1
                reply = json.dumps({"choices": [{"message": {"content": "x"}}], "usage": {
                    "prompt_tokens": prompt, "completion_tokens": completion}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _budget_ctx(task_dir, tmp_path: Path, base_url: str, budget: int) -> RunContext:
    task, public = task_dir
    return RunContext(task=task, public_dir=public, out_dir=tmp_path / "out",
                      model=make_chat_model(openai_cfg(base_url)),
                      condition=ConditionConfig(max_tokens=CAP, wall_seconds=30),
                      scaffold=ScaffoldConfig(name="probe", max_steps=100,
                                              max_total_tokens=budget))


def _concurrently(sock: Path, bodies: list[bytes]) -> list[int]:
    """Send every body at once, each on its own connection; the statuses in order."""
    codes = [0] * len(bodies)

    def one(i: int) -> None:
        codes[i] = _raw(sock, _request("POST", "/v1/chat/completions", bodies[i]), 30)[0]

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return codes


@pytest.mark.parametrize("prompt_bytes,tokens_per_byte", [
    (1_200_000, 0.25), (200_000, 0.25), (40_000, 0.25), (40_000, 1.0)])
def test_concurrent_large_prompts_cannot_pass_the_token_budget(
        task_dir, tmp_path: Path, prompt_bytes: int, tokens_per_byte: float) -> None:
    """Issue 44: 12 concurrent large prompts were all admitted (3.6M tokens served against a
    200k budget). The endpoint here is a scripted hostile model: it uses every reply token it
    is allowed and counts its prompts at 1 token per 4 bytes (ordinary text) or per byte (a
    prompt built to tokenize densely). It now serves at most the budget, plus one reply cap,
    plus the first call's under-estimate (its prompt reserved at 1/3 token per byte; calls
    admitted beside it are reserved at 1 per byte). 1.2 MB prompts are refused unforwarded
    (one alone is over the budget); without the reservation the 200 KB case served 12 x 50k
    = 600k tokens and the dense 40 KB case 480k."""
    budget = 200_000
    ep = UsageEndpoint(tokens_per_byte=tokens_per_byte)
    ctx = _budget_ctx(task_dir, tmp_path, ep.base_url, budget)
    proxy = _proxy(ctx, ep.base_url, tmp_path)
    body = _chat(messages=[{"role": "user", "content": "a" * prompt_bytes}])
    try:
        codes = _concurrently(tmp_path / "ep.sock", [body] * 12)
    finally:
        proxy.close()
        ep.close()
    first_underestimate = max(0, int(len(body) * tokens_per_byte) - len(body) // 3)
    assert ep.served <= budget + CAP + first_underestimate
    assert codes.count(200) == ep.calls and codes.count(400) == 12 - ep.calls
    assert len(_events(ctx, "limit")) == 12 - ep.calls
    if prompt_bytes == 1_200_000:
        assert ep.calls == 0
    else:
        assert 1 <= ep.calls < 12
    assert proxy.budget.in_flight == [] and ctx.total_tokens() == ep.served  # settled


def test_the_reservation_is_released_when_the_call_fails_and_learns_a_dense_prompt(
        task_dir, tmp_path: Path) -> None:
    """A call whose endpoint is gone (a 502) gives its reservation back, so the budget is not
    eaten by failures; an endpoint reporting 1 token per byte (a prompt that tokenizes densely,
    scripted) raises the rate later calls are reserved at, from 1/3 to 1 token per byte."""
    ep = UsageEndpoint(hold=0.0, tokens_per_byte=1.0)
    ctx = _budget_ctx(task_dir, tmp_path, ep.base_url, 100_000)
    proxy = _proxy(ctx, "http://127.0.0.1:1/v1", tmp_path)  # nothing listens on port 1
    sock = tmp_path / "ep.sock"
    body = _chat(messages=[{"role": "user", "content": "a" * 30_000}])
    try:
        assert [_raw(sock, _request("POST", "/v1/chat/completions", body))[0]
                for _ in range(5)] == [502] * 5
        assert proxy.budget.in_flight == []
        proxy.port = ep.httpd.server_address[1]  # the endpoint comes back
        assert _raw(sock, _request("POST", "/v1/chat/completions", body))[0] == 200
        assert proxy.budget.tokens_per_byte == pytest.approx(1.0, abs=0.01)
        assert proxy.budget.estimate(len(body)) >= len(body)
    finally:
        proxy.close()
        ep.close()


VENDOR_SIDE = {
    "/v1/chat/completions": {
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "bash"}}, {"type": "web_search"},
                  {"type": "mcp", "server_url": "https://mcp.example/sse"}],
        "web_search_options": {}, "mcp_servers": [{"url": "https://mcp.example"}],
        "store": True, "service_tier": "priority", "background": True,
        "reasoning": {"effort": "high", "max_tokens": 999_999}, "max_output_tokens": 10},
    "/v1/responses": {
        "input": "hi", "tools": [
            {"type": "function", "name": "exec_command"}, {"type": "web_search"},
            {"type": "code_interpreter", "container": {"type": "auto"}},
            {"type": "mcp", "server_label": "x", "server_url": "https://mcp.example/sse"},
            {"type": "namespace", "name": "ns", "tools": [{"type": "function", "name": "f"},
                                                          {"type": "web_search_preview"}]}],
        "tool_choice": {"type": "web_search"}, "background": True, "store": True,
        "service_tier": "priority", "previous_response_id": "resp_1",
        "mcp_servers": [{"url": "https://mcp.example"}], "max_tokens": 10,
        "reasoning": {"effort": "high", "budget_tokens": 999_999}},
    "/v1/messages": {
        "messages": [{"role": "user", "content": "hi"}], "max_tokens": 999_999,
        "tools": [{"name": "Bash", "input_schema": {}}, {"type": "bash_20250124", "name": "bash"},
                  {"type": "web_search_20250305", "name": "web_search"},
                  {"type": "web_fetch_20250910", "name": "web_fetch"},
                  {"type": "code_execution_20250825", "name": "code_execution"}],
        "mcp_servers": [{"type": "url", "url": "https://mcp.example/sse", "name": "x"}],
        "thinking": {"type": "enabled", "budget_tokens": 999_999}, "container": "c1",
        "service_tier": "priority", "background": True, "store": True},
}
VENDOR_FIELDS = {"web_search_options", "mcp_servers", "service_tier", "background",
                 "previous_response_id", "container", "thinking"}
VENDOR_TOOL_TYPES = {"web_search", "mcp", "code_interpreter", "web_search_preview",
                     "web_search_20250305", "web_fetch_20250910", "code_execution_20250825"}


def _tool_types(body: dict[str, Any]) -> set[str | None]:
    out: set[str | None] = set()
    for t in body.get("tools") or []:
        out |= {t.get("type")} | _tool_types(t)
    return out


@pytest.mark.parametrize("path", list(VENDOR_SIDE))
def test_vendor_side_tools_and_fields_never_reach_the_endpoint(
        endpoint: Endpoint, task_dir, tmp_path: Path, path: str) -> None:
    """Issue 44: through the proxy, a harness (steered by a hostile model) reached the endpoint
    with server-side web search, MCP servers, code interpreters, background and stored
    responses, a priority tier and a 999,999-token thinking budget. In each API now the
    endpoint (scripted: it records what reaches it) sees only client-side tools and the API's
    own fields, the reply cap in the API's own field, ``store`` false where it is defined, and
    the trace names every stripped field."""
    ctx = _ctx(task_dir, tmp_path, endpoint.base_url)
    proxy = _proxy(ctx, endpoint.base_url, tmp_path)
    try:
        code, _ = _raw(tmp_path / "ep.sock", _request("POST", path,
                                                      json.dumps(VENDOR_SIDE[path]).encode()))
    finally:
        proxy.close()
    assert code == 200
    sent = json.loads(endpoint.seen[0][3])
    assert not VENDOR_FIELDS & set(sent) and not VENDOR_TOOL_TYPES & _tool_types(sent)
    assert all("server_url" not in t for t in sent.get("tools", []))
    stripped = set(_events(ctx, "model")[0]["capped"]["stripped"][0])
    if path == "/v1/responses":
        assert sent["max_output_tokens"] == CAP and "max_tokens" not in sent
        assert sent["store"] is False and "tool_choice" not in sent
        assert [t["name"] for t in sent["tools"]] == ["exec_command", "ns"]
        assert sent["tools"][1]["tools"] == [{"type": "function", "name": "f"}]
        assert sent["reasoning"] == {"effort": "high"}
        assert {"tools:web_search", "tools:mcp", "max_tokens", "reasoning.budget"} <= stripped
    elif path == "/v1/messages":
        assert sent["max_tokens"] == CAP and "store" not in sent
        assert [t["name"] for t in sent["tools"]] == ["Bash", "bash"]
        assert {"thinking.budget", "tools:web_fetch_20250910", "mcp_servers"} <= stripped
    else:
        assert sent["max_tokens"] == CAP and "max_output_tokens" not in sent
        assert "store" not in sent and sent["reasoning"] == {"effort": "high"}
        assert [t["type"] for t in sent["tools"]] == ["function"]


def test_a_vendor_side_tool_named_by_the_scaffold_passes(
        endpoint: Endpoint, task_dir, tmp_path: Path) -> None:
    """``allowed_fields`` (the scaffold's choice, not the harness's) lets a named tool type,
    in any version, and a named field through; the rest is still stripped."""
    ctx = _ctx(task_dir, tmp_path, endpoint.base_url)
    proxy = EndpointProxy(ctx, endpoint.base_url, tmp_path / "ep.sock", threading.Lock(),
                          api_key=KEY, allowed_fields=frozenset({"web_search", "service_tier"}))
    try:
        code, _ = _raw(tmp_path / "ep.sock", _request(
            "POST", "/v1/messages", json.dumps(VENDOR_SIDE["/v1/messages"]).encode()))
    finally:
        proxy.close()
    sent = json.loads(endpoint.seen[0][3])
    assert code == 200 and sent["service_tier"] == "priority" and "mcp_servers" not in sent
    assert [t["name"] for t in sent["tools"]] == ["Bash", "bash", "web_search"]


def test_cached_prompt_tokens_count_against_the_budget() -> None:
    """Anthropic reports cached prompt tokens apart from ``input_tokens``; they were served,
    so they count (a harness with prompt caching otherwise spends its prompts unbudgeted).
    OpenAI's ``cached_tokens`` are inside ``input_tokens`` and are not added twice."""
    from monitorbench.generation.harnesses.reply_usage import reply_text_and_usage

    stream = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in [
        ("message_start", {"type": "message_start", "message": {"usage": {
            "input_tokens": 10, "cache_read_input_tokens": 5000,
            "cache_creation_input_tokens": 200, "output_tokens": 1}}}),
        ("content_block_delta", {"type": "content_block_delta", "delta": {"text": "hi"}}),
        ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 20}})])
    text, usage = reply_text_and_usage(stream.encode())
    assert text == "hi" and usage == {"prompt": 5210.0, "completion": 20.0}
    done = {"type": "response.completed", "response": {"usage": {
        "input_tokens": 100, "input_tokens_details": {"cached_tokens": 80},
        "output_tokens": 7}}}
    assert reply_text_and_usage(f"data: {json.dumps(done)}\n\n".encode())[1] == {
        "prompt": 100.0, "completion": 7.0}
