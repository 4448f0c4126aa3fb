"""Helpers for generation tests: a real chat-completions HTTP server on 127.0.0.1 that
stands in for a paid API and returns scripted replies, plus configs and scripted actions, and
the helpers the harness tests share (a real harness generator, judging what it delivered, and a
streaming tool-calling endpoint).

Scripted replies are a function of the request (e.g. of the turn number, counted from the
assistant messages already in the conversation), so a re-run sends identical requests and the
response cache can be tested honestly.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from pathlib import Path

import pytest

from monitorbench.config import (ConditionConfig, HarnessConfig, OpenAIGeneratorConfig,
                                 RequestConfig, ScaffoldConfig)
from monitorbench.generation.base import GenerationResult
from monitorbench.generation.harnesses.generator import HarnessGenerator
from monitorbench.sandbox.base import Limits, SandboxSpec
from monitorbench.sandbox.bwrap import BwrapSandbox, bwrap_usable
from monitorbench.suites.format import Task

Script = Callable[[dict[str, Any]], "str | tuple[int, str]"]

TASK_PUBLIC = {"instruction": "Call get_weather for Paris.",
               "tools": [{"name": "get_weather", "required": ["city"]}]}
needs_bwrap = pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap cannot run here")

FAST = Limits(wall_seconds=5.0, cpu_seconds=2, memory_mb=256, processes=16, file_size_mb=4,
              open_files=64, output_bytes=65536)

VERIFIER = '''\
def verify(candidate, env):
    call = candidate.get("call", {})
    ok = call.get("name") == "get_weather" and "city" in call.get("args", {})
    return "PASS" if ok else "FAIL"
'''
GOOD = {"call": {"name": "get_weather", "args": {"city": "Paris"}}}
GOOD2 = {"call": {"name": "get_weather", "args": {"city": "paris", "unit": "C"}}}
BAD = {"call": {"name": "get_weather", "args": {}}}


def turn(body: dict[str, Any]) -> int:
    """0 for the first request of a conversation, 1 after one assistant reply, ..."""
    return sum(1 for m in body["messages"] if m["role"] == "assistant")


def block(name: str, body: str = "", arg: str = "") -> str:
    head = f"{name} {arg}".strip()
    return f"Next step.\n```{head}\n{body}\n```\n"


@dataclass
class ChatServer:
    """Chat-completions endpoint with a scripted reply function and request bookkeeping."""

    script: Script
    delay: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server._lock:
                    server.requests.append({"body": body, "auth": self.headers.get("Authorization")})
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    time.sleep(server.delay)
                    out = server.script(body)
                    status, text = out if isinstance(out, tuple) else (200, out)
                    if status != 200:
                        payload = json.dumps({"error": {"message": text}}).encode()
                    else:
                        payload = json.dumps({
                            "id": "x", "object": "chat.completion", "model": body["model"],
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": text}}],
                            "usage": {"prompt_tokens": 10 * len(body["messages"]),
                                      "completion_tokens": max(1, len(text) // 4)}}).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                finally:
                    with server._lock:
                        server.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def openai_cfg(base_url: str, model: str = "scripted-model",
               **condition: Any) -> OpenAIGeneratorConfig:
    return OpenAIGeneratorConfig(name="openai", model=model, base_url=base_url, api_key_env=None,
                                 condition=ConditionConfig(max_tokens=256, **condition),
                                 request=RequestConfig(timeout_seconds=10, retries=2,
                                                       concurrency=2))


def spec_for(runtime: str = "none") -> Callable[[Task], SandboxSpec]:
    return lambda task: SandboxSpec(limits=FAST, runtime=runtime)


# --- real harness programs --------------------------------------------------------------------

VERIFIER_SRC = ("def verify(candidate, env):\n"
                "    call = candidate.get('call', {})\n"
                "    ok = call.get('name') == 'get_weather' and 'city' in call.get('args', {})\n"
                "    return 'PASS' if ok else 'FAIL'\n")


def real_harness(name: str, base_url: str, install_root: Path, *, model: str = "scripted-model",
                 max_steps: int = 4, max_tokens: int = 256, wall: float = 600.0,
                 runtimes_dir: Path | None = None) -> HarnessGenerator:
    """The registered harness ``name`` (a real program, installed under ``install_root`` on
    first use) as monitorbench runs it: bubblewrap sandbox, endpoint proxy, budgets. With
    ``runtimes_dir`` its ``run_public.py`` runs in monitorbench's sandbox on the ``echo``
    runtime (conftest's ``runtimes_dir``); without, it has no sandbox to run in."""
    from monitorbench.generation.harnesses.registry import HARNESSES
    from monitorbench.providers.factory import make_chat_model

    gen = openai_cfg(base_url, model=model)
    gen.condition = ConditionConfig(max_tokens=max_tokens, wall_seconds=wall)
    scaffold = ScaffoldConfig(name=name, max_steps=max_steps, run_public_budget=2,
                              harness=HarnessConfig(name=name, context_window=8192))
    sandbox = BwrapSandbox(runtimes_dir) if runtimes_dir is not None else None
    return HarnessGenerator(HARNESSES[name], make_chat_model(gen), gen, scaffold, api_key=None,
                            sandbox=sandbox, spec_for=spec_for("echo") if sandbox else None,
                            install_root=install_root)


def judged(result: GenerationResult, public: Path, runtimes_dir: Path) -> list[str | None]:
    """The delivered verifier judged in monitorbench's sandbox on a valid and an invalid
    candidate (VERIFIER_SRC gives ["PASS", "FAIL"])."""
    with BwrapSandbox(runtimes_dir).session(result.verifier_dir, public,
                                            spec_for()(None)) as s:
        return [s.judge(GOOD).decision, s.judge(BAD).decision]


class SSEServer:
    """An OpenAI chat-completions endpoint that streams scripted assistant messages (text or
    one tool call) as server-sent events, the way Pi reads them. It stands in for a model that
    calls tools, which the SmolLM2 here cannot do. ``turns[n]`` is the delta sent after ``n``
    assistant messages (the last one repeats)."""

    def __init__(self, turns: list[dict[str, Any]]) -> None:
        self.turns: list[dict[str, Any]] = turns
        self.requests: list[dict[str, Any]] = []
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                n = sum(1 for m in body["messages"] if m["role"] == "assistant")
                delta = outer.turns[min(n, len(outer.turns) - 1)]
                finish = "tool_calls" if "tool_calls" in delta else "stop"
                chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", **delta},
                                        "finish_reason": None}]},
                          {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                           "usage": {"prompt_tokens": 100, "completion_tokens": 20}}]
                head = {"id": "c", "object": "chat.completion.chunk", "model": "m"}
                payload = "".join(f"data: {json.dumps({**head, **c})}\n\n"
                                  for c in chunks) + "data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(payload.encode())))
                self.end_headers()
                self.wfile.write(payload.encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class PeakRss:
    """How far this process's peak resident memory rises from here on, in MiB.

    The peak is reset (``clear_refs``) to the current resident size, which in a long-lived
    pytest-xdist worker already holds what earlier tests left (close to 1 GB on a full run), so
    tests compare the rise, not the absolute peak: the flood the issue measured raised the
    framework's peak by about 740 MiB (335 MiB to 1.07 GB)."""

    def __init__(self) -> None:
        Path("/proc/self/clear_refs").write_text("5")
        self.start = self._kib("VmRSS:")

    @staticmethod
    def _kib(field: str) -> int:
        line = next(ln for ln in Path("/proc/self/status").read_text().splitlines()
                    if ln.startswith(field))
        return int(line.split()[1])

    def rise_mib(self) -> float:
        return (self._kib("VmHWM:") - self.start) / 1024
