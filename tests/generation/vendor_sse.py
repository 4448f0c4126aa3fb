"""Scripted streaming endpoints for the two vendor wire formats the real harness programs speak
besides chat completions: the OpenAI Responses API (Codex) and the Anthropic Messages API
(Claude Code).

They exist only because the one real model server here (SmolLM2-135M on llama.cpp) cannot
produce a tool call, so a real harness talking to it never writes a file through its own tools.
Each server plays a model that answers turn ``n`` of a conversation with ``turns[n]``: one tool
call, or a final text. The events follow the vendors' published streaming formats (the event
names, the item/block shapes and the ``response.completed`` / ``message_stop`` terminators the
clients wait for), so what is exercised is the harness's real parser, tool dispatch and file
write.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SSE = list[tuple[str, dict[str, Any]]]  # (event name, data object)
USAGE_IN, USAGE_OUT = 100, 20


class ScriptedServer:
    """A loopback HTTP server answering ``POST`` with ``render(body)`` as server-sent events.
    Every request body is kept in ``requests``; other paths and methods get a JSON 404, as a
    vendor API would, and a request that does not ask for a stream gets a 400 (both harnesses
    always stream; a change there should fail loudly, not be answered in a guessed format)."""

    path = "/v1/unset"

    def __init__(self, turns: list[dict[str, Any]]) -> None:
        self.turns = turns
        self.requests: list[dict[str, Any]] = []
        self.other: list[str] = []  # "METHOD path" of requests that were not the API call
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def turn(self, n: int) -> dict[str, Any]:
        """The scripted answer after ``n`` earlier assistant turns (the last one repeats)."""
        return self.turns[min(n, len(self.turns) - 1)]

    def render(self, body: dict[str, Any]) -> SSE:
        """The stream's events for one request."""
        raise NotImplementedError

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            return None

        def _reply(self, status: int, ctype: str, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            server.other.append(f"GET {self.path}")
            self._reply(404, "application/json", b'{"error": {"message": "not found"}}')

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.split("?")[0] != server.path:
                server.other.append(f"POST {self.path}")
                self._reply(404, "application/json", b'{"error": {"message": "not found"}}')
                return
            body = json.loads(raw)
            server.requests.append(body)
            if not body.get("stream"):
                self._reply(400, "application/json",
                            b'{"error": {"message": "this scripted endpoint only streams"}}')
                return
            text = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n"
                           for name, data in server.render(body))
            self._reply(200, "text/event-stream", text.encode())

    return Handler


# --- OpenAI Responses API ---------------------------------------------------------------------

def _responses_item(turn: dict[str, Any], n: int) -> dict[str, Any]:
    """The finished output item of a scripted turn: ``{"call": name, "arguments": {...}}`` (a
    function call) or ``{"text": str}`` (the final assistant message)."""
    if "call" in turn:
        return {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                "name": turn["call"], "arguments": json.dumps(turn["arguments"]),
                "status": "completed"}
    return {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": turn["text"], "annotations": []}]}


def _responses_item_events(item: dict[str, Any]) -> SSE:
    """output_item.added, the item's deltas and its .done events, output_item.done."""
    at = {"output_index": 0, "item_id": item["id"]}
    if item["type"] == "function_call":
        started = {**item, "arguments": "", "status": "in_progress"}
        middle = [("response.function_call_arguments.delta", {**at, "delta": item["arguments"]}),
                  ("response.function_call_arguments.done", {**at,
                                                             "arguments": item["arguments"]})]
    else:
        text = item["content"][0]["text"]
        part = {"type": "output_text", "text": "", "annotations": []}
        started = {**item, "content": [], "status": "in_progress"}
        middle = [("response.content_part.added", {**at, "content_index": 0, "part": part}),
                  ("response.output_text.delta", {**at, "content_index": 0, "delta": text}),
                  ("response.output_text.done", {**at, "content_index": 0, "text": text}),
                  ("response.content_part.done", {**at, "content_index": 0,
                                                  "part": {**part, "text": text}})]
    return [("response.output_item.added", {"output_index": 0, "item": started}), *middle,
            ("response.output_item.done", {"output_index": 0, "item": item})]


class ResponsesServer(ScriptedServer):
    """``POST /v1/responses`` streaming scripted output items, as Codex reads them. The turn
    number is the count of model output items (calls, assistant messages) already in the
    request's ``input``, so a harness that resends its whole history gets the next turn."""

    path = "/v1/responses"

    def render(self, body: dict[str, Any]) -> SSE:
        items = body.get("input") if isinstance(body.get("input"), list) else []
        n = sum(1 for i in items if isinstance(i, dict) and (
            i.get("type") in ("function_call", "custom_tool_call", "local_shell_call")
            or (i.get("type") == "message" and i.get("role") == "assistant")))
        item = _responses_item(self.turn(n), n)
        head = {"id": f"resp_{len(self.requests)}", "object": "response", "created_at": 0,
                "model": body.get("model"), "output": []}
        usage = {"input_tokens": USAGE_IN, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": USAGE_OUT, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": USAGE_IN + USAGE_OUT}
        done = {**head, "status": "completed", "output": [item], "usage": usage}
        events = [("response.created", {"response": {**head, "status": "in_progress"}}),
                  ("response.in_progress", {"response": {**head, "status": "in_progress"}}),
                  *_responses_item_events(item), ("response.completed", {"response": done})]
        return [(name, {"type": name, "sequence_number": i, **data})
                for i, (name, data) in enumerate(events)]


# --- Anthropic Messages API -------------------------------------------------------------------

def _anthropic_block_events(turn: dict[str, Any], n: int) -> tuple[SSE, str]:
    """The start/delta/stop events of a scripted turn's content block (``{"tool": name,
    "input": {...}}`` or ``{"text": str}``), and the message's stop reason."""
    if "tool" in turn:
        start = {"type": "tool_use", "id": f"toolu_{n}", "name": turn["tool"], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(turn["input"])}
        reason = "tool_use"
    else:
        start, delta, reason = {"type": "text", "text": ""}, {"type": "text_delta",
                                                              "text": turn["text"]}, "end_turn"
    events = [("content_block_start", {"index": 0, "content_block": start}),
              ("content_block_delta", {"index": 0, "delta": delta}),
              ("content_block_stop", {"index": 0})]
    return events, reason


class MessagesServer(ScriptedServer):
    """``POST /v1/messages`` streaming one scripted content block, as Claude Code reads it. The
    turn number is the count of assistant messages in the request."""

    path = "/v1/messages"

    def render(self, body: dict[str, Any]) -> SSE:
        n = sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant")
        events, reason = _anthropic_block_events(self.turn(n), n)
        msg = {"id": f"msg_{len(self.requests)}", "type": "message", "role": "assistant",
               "model": body.get("model"), "content": [], "stop_reason": None,
               "stop_sequence": None, "usage": {"input_tokens": USAGE_IN, "output_tokens": 1}}
        stream = [("message_start", {"message": msg}), *events,
                  ("message_delta", {"delta": {"stop_reason": reason, "stop_sequence": None},
                                     "usage": {"output_tokens": USAGE_OUT}}),
                  ("message_stop", {})]
        return [(name, {"type": name, **data}) for name, data in stream]

