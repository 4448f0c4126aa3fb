"""The reply text and token usage of an endpoint's answer, in any of the three wire formats
the harnesses speak (chat completions, Responses, Anthropic Messages), JSON or SSE stream: what
the proxy traces and counts against the token budget."""

from __future__ import annotations

import json
from typing import Any, Mapping


ANTHROPIC_CACHE_KEYS = ("cache_read_input_tokens", "cache_creation_input_tokens")


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def reply_text_and_usage(raw: bytes) -> tuple[str, dict[str, float]]:
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
        # Anthropic counts cached prompt tokens apart from input_tokens (OpenAI's cached
        # tokens are inside its input count): all of them were served and are budgeted.
        cached = sum(float(u[k]) for k in ANTHROPIC_CACHE_KEYS if _number(u.get(k)))
        if cached and _number(u.get("input_tokens")):
            usage["prompt"] = float(u["input_tokens"]) + cached
        elif cached:  # an event naming only cache counts: never lower the prompt seen so far
            usage["prompt"] = max(usage.get("prompt", 0.0), cached)
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
