"""OpenAI-compatible ``/v1/chat/completions`` over plain HTTP (standard library only).

Works with the OpenAI API and with local servers that speak the same protocol (vLLM, llama.cpp,
SGLang). Transient failures (HTTP 429 and 5xx, refused or dropped connections, timeouts) are
retried with exponential backoff, honouring ``Retry-After``; a semaphore caps the requests in
flight so parallel generation does not trip the provider's rate limits.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Mapping, Sequence

from monitorbench.config import Effort
from monitorbench.generation.models.base import (ContextOverflow, Message, ModelError, Reply,
                                                 estimate_tokens)

_RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
_MAX_RETRY_AFTER = 60.0
# How OpenAI ("context_length_exceeded") and vLLM/SGLang ("maximum context length") say a request
# does not fit the model's window.
_OVERFLOW_MARKERS = ("context_length_exceeded", "maximum context length")


class OpenAIChatModel:
    """Chat completions from an OpenAI-compatible endpoint."""

    def __init__(self, *, base_url: str, model: str, api_key: str | None,
                 timeout_seconds: float = 600.0, retries: int = 4, backoff_seconds: float = 2.0,
                 concurrency: int = 4) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._api_key = api_key
        self.timeout_seconds = timeout_seconds
        self.retries = retries
        self.backoff_seconds = backoff_seconds
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self.attempts = 0  # HTTP requests sent, retries included (for run metrics)

    @property
    def identity(self) -> Mapping[str, Any]:
        # The key is deliberately absent: it changes who pays, not what the model answers.
        return {"provider": "openai", "model": self.model, "base_url": self.base_url}

    def _body(self, messages: Sequence[Message], max_tokens: int, temperature: float,
              top_p: float, seed: int, effort: Effort) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model,
                                "messages": [{"role": m["role"], "content": m["content"]}
                                             for m in messages],
                                "max_tokens": max_tokens, "temperature": temperature,
                                "top_p": top_p, "seed": seed}
        effort = Effort(effort)
        if effort is not Effort.NONE:
            body["reasoning_effort"] = effort.value.lower()
        return body

    def _post_once(self, payload: bytes) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        req = urllib.request.Request(f"{self.base_url}/chat/completions", data=payload,
                                     headers=headers, method="POST")
        with urllib.request.urlopen(req, timeout=self.timeout_seconds) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float,
                 top_p: float, seed: int, effort: Effort) -> Reply:
        payload = json.dumps(self._body(messages, max_tokens, temperature, top_p, seed,
                                        effort)).encode("utf-8")
        with self._slots:
            start = time.monotonic()
            data = self._post_with_retries(payload)
            seconds = time.monotonic() - start
        prompt_chars = sum(len(m["content"]) for m in messages)
        return _parse(data, seconds, self.base_url, prompt_chars)

    def _post_with_retries(self, payload: bytes) -> dict[str, Any]:
        last = ""
        for attempt in range(self.retries + 1):
            wait = self.backoff_seconds * (2 ** attempt)
            self.attempts += 1
            try:
                return self._post_once(payload)
            except urllib.error.HTTPError as e:
                detail = e.read().decode("utf-8", "replace")[:500]
                last = f"HTTP {e.code}: {detail}"
                if e.code == 400 and any(m in detail.lower() for m in _OVERFLOW_MARKERS):
                    raise ContextOverflow(f"{self.base_url}: {last}") from None
                if e.code not in _RETRY_STATUS:
                    hint = " (check the API key variable)" if e.code in (401, 403) else ""
                    raise ModelError(f"{self.base_url}: {last}{hint}") from None
                retry_after = e.headers.get("Retry-After") if e.headers else None
                if retry_after:
                    try:
                        wait = min(_MAX_RETRY_AFTER, max(wait, float(retry_after)))
                    except ValueError:
                        pass
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError,
                    socket.timeout, TimeoutError) as e:
                last = f"{type(e).__name__}: {e}"
            except json.JSONDecodeError as e:
                raise ModelError(f"{self.base_url}: reply is not JSON ({e.msg})") from None
            if attempt < self.retries:
                time.sleep(wait)
        raise ModelError(f"{self.base_url}: gave up after {self.retries + 1} attempts; last: {last}")


def _parse(data: Mapping[str, Any], seconds: float, where: str, prompt_chars: int) -> Reply:
    try:
        message = data["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise ModelError(f"{where}: reply has no choices[0].message: {str(data)[:300]}") from None
    text = message.get("content") or ""
    usage = data.get("usage") or {}
    if "prompt_tokens" in usage and "completion_tokens" in usage:
        return Reply(text, int(usage["prompt_tokens"]), int(usage["completion_tokens"]), seconds)
    return Reply(text, estimate_tokens("x" * prompt_chars), estimate_tokens(text), seconds,
                 tokens_estimated=True)
