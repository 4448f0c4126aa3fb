"""OpenAI-compatible chat completions through the official ``openai`` SDK.

One client for the OpenAI API, OpenRouter, vendors' OpenAI-compatible endpoints and local
servers (vLLM, SGLang, llama.cpp, the server ``local_server`` starts). The SDK does the
transport: timeouts, retries of 408/409/429/5xx and dropped connections with exponential backoff
honouring ``Retry-After``, and typed errors, which are mapped here onto the framework's own:
a prompt that does not fit the window becomes :class:`ContextOverflow` (a limit the scaffold
handles), everything else :class:`ModelError` (recorded, never a crash). A semaphore caps the
requests in flight so parallel generation does not trip the provider's rate limits.

Endpoints spell the token limit and reasoning effort differently; ``dialect`` picks the spelling
(see ``effort_fields``) and is part of the identity, because it changes what the model receives.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
from typing import Any, Mapping, Sequence

import openai

from monitorbench.config import Dialect, Effort
from monitorbench.providers.base import (ContextOverflow, EndpointUnreachable, Message,
                                         ModelError, Reply, estimate_tokens)

# How OpenAI ("context_length_exceeded"), vLLM/SGLang ("maximum context length") and llama.cpp
# ("exceed_context_size_error") say a request does not fit the model's window.
_OVERFLOW_MARKERS = ("context_length_exceeded", "maximum context length",
                     "exceed_context_size", "exceeds the available context size")
DIALECTS = tuple(d.value for d in Dialect)   # the config's enum is the one list
# Sent as the bearer token when the endpoint needs none (api_key_env: null). An explicit
# placeholder, so the SDK never falls back to $OPENAI_API_KEY and leaks it to a local server.
NO_KEY = "EMPTY"


def effort_fields(dialect: str, effort: Effort, max_tokens: int) -> dict[str, Any]:
    """Request fields for the token limit and the reasoning effort in one endpoint dialect.

    ``openai``: ``max_completion_tokens`` + ``reasoning_effort`` (OpenAI; vLLM, SGLang and
    llama.cpp accept both). ``openrouter``: ``max_tokens`` + ``reasoning: {effort}``.
    ``enable_thinking``: ``max_tokens`` + ``chat_template_kwargs.enable_thinking`` (hybrid
    thinking templates such as Qwen3 on vLLM/SGLang/llama.cpp: HIGH thinks, LOW does not).
    ``plain``: ``max_tokens`` only; effort stays in the cache key but is not sent. Effort NONE
    sends no effort field in any dialect."""
    effort = Effort(effort)
    level = effort.value.lower()
    if dialect == "openai":
        out: dict[str, Any] = {"max_completion_tokens": max_tokens}
        if effort is not Effort.NONE:
            out["reasoning_effort"] = level
        return out
    out = {"max_tokens": max_tokens}
    if effort is Effort.NONE or dialect == "plain":
        return out
    if dialect == "openrouter":
        out["extra_body"] = {"reasoning": {"effort": level}}
    elif dialect == "enable_thinking":
        out["extra_body"] = {"chat_template_kwargs": {"enable_thinking": effort is Effort.HIGH}}
    else:
        raise ValueError(f"unknown dialect {dialect!r}; use one of {', '.join(DIALECTS)}")
    return out


class OpenAIChatModel:
    """Chat completions from an OpenAI-compatible endpoint through the ``openai`` SDK.

    ``endpoint_identity`` replaces ``base_url`` in the identity for endpoints whose address says
    nothing about the model (a local server on a fresh port each run): it names the weights
    instead, so the response cache survives a restart and still never mixes two models."""

    def __init__(self, *, base_url: str, model: str, api_key: str | None,
                 timeout_seconds: float = 600.0, retries: int = 4, concurrency: int = 4,
                 dialect: str = "openai",
                 endpoint_identity: Mapping[str, Any] | None = None) -> None:
        if dialect not in DIALECTS:
            raise ValueError(f"unknown dialect {dialect!r}; use one of {', '.join(DIALECTS)}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.dialect = dialect
        self._endpoint = dict(endpoint_identity) if endpoint_identity else None
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self._count_lock = threading.Lock()
        self.attempts = 0  # HTTP requests sent, retries included (for run metrics)
        http = openai.DefaultHttpxClient(event_hooks={"request": [self._count_attempt]})
        self._client = openai.OpenAI(base_url=self.base_url, api_key=api_key or NO_KEY,
                                     timeout=timeout_seconds, max_retries=retries,
                                     http_client=http)
        self.retries = retries

    def _count_attempt(self, request: Any) -> None:
        with self._count_lock:
            self.attempts += 1

    @property
    def identity(self) -> Mapping[str, Any]:
        # The key is deliberately absent: it changes who pays, not what the model answers.
        where = {"endpoint": self._endpoint} if self._endpoint else {"base_url": self.base_url}
        return {"provider": "openai", "model": self.model, **where, "dialect": self.dialect}

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float,
                 top_p: float, seed: int, effort: Effort) -> Reply:
        kw = effort_fields(self.dialect, effort, max_tokens)
        msgs = [{"role": m["role"], "content": m["content"]} for m in messages]
        with self._slots:
            start = time.monotonic()
            try:
                resp = self._client.chat.completions.create(
                    model=self.model, messages=msgs, temperature=temperature, top_p=top_p,
                    seed=seed, **kw)  # type: ignore[call-overload]
            except openai.APIError as e:
                raise self._map_error(e) from None
            seconds = time.monotonic() - start
        return _reply(resp, seconds, self.base_url, sum(len(m["content"]) for m in messages))

    def _map_error(self, e: openai.APIError) -> ModelError:
        """The SDK's typed error as the framework's: overflow is a limit; an endpoint that cannot
        be used (connection, DNS, TLS, key, 5xx after retries) is infrastructure that stops the
        job; the rest is a failure recorded for the task."""
        attempts = f"after {self.retries + 1} attempts"
        if isinstance(e, openai.APIStatusError):
            detail = f"HTTP {e.status_code}: {str(e.body if e.body is not None else e)[:500]}"
            if e.status_code == 400 and any(m in detail.lower() for m in _OVERFLOW_MARKERS):
                return ContextOverflow(f"{self.base_url}: {detail}")
            if isinstance(e, (openai.AuthenticationError, openai.PermissionDeniedError)):
                return EndpointUnreachable(
                    self.base_url, f"authentication failed ({detail[:200]})",
                    "set generator.api_key_env to the variable that holds a valid key")
            if isinstance(e, openai.InternalServerError):
                return EndpointUnreachable(
                    self.base_url, f"server error {attempts} ({detail[:200]})",
                    "check the server's health and logs, then re-run the same command")
            if isinstance(e, (openai.RateLimitError, openai.ConflictError)) or \
                    e.status_code == 408:
                return ModelError(f"{self.base_url}: gave up {attempts}; last: {detail}")
            return ModelError(f"{self.base_url}: {detail}")
        if isinstance(e, openai.APITimeoutError):  # slow, not absent: recorded for the task
            return ModelError(f"{self.base_url}: gave up {attempts}; last: {type(e).__name__}")
        if isinstance(e, openai.APIConnectionError):
            cause, fix = _connection_cause(e)
            return EndpointUnreachable(self.base_url, f"{cause} {attempts}", fix)
        return ModelError(f"{self.base_url}: {type(e).__name__}: {e}")


def _connection_cause(e: BaseException) -> tuple[str, str]:
    """Why a connection failed, from the exception chain (the SDK only says "Connection error"),
    and what fixes it: refused, DNS, TLS, or the lowest error's own words."""
    chain: list[BaseException] = []
    cur: BaseException | None = e
    while cur is not None and len(chain) < 10:
        chain.append(cur)
        cur = cur.__cause__ or cur.__context__
    text = " ".join(str(x) for x in chain).lower()
    if any(isinstance(x, ConnectionRefusedError) for x in chain) or "refused" in text:
        return ("connection refused", "start the model server, or point generator.base_url "
                "at a running one")
    if any(isinstance(x, socket.gaierror) for x in chain) or "name or service" in text \
            or "name resolution" in text:
        return "DNS lookup failed", "check the host name in generator.base_url"
    if any(isinstance(x, ssl.SSLError) for x in chain) or "certificate" in text \
            or "ssl" in text:
        return ("TLS failure", "check the endpoint's certificate, or use http:// for a server "
                "without TLS")
    low = chain[-1]
    return (f"connection failed ({type(low).__name__}: {str(low)[:200]})",
            "check that generator.base_url is reachable from this machine")


def _reply(resp: Any, seconds: float, where: str, prompt_chars: int) -> Reply:
    """A :class:`Reply` from a chat completion; tokens estimated when the server reports none."""
    if not getattr(resp, "choices", None):
        raise ModelError(f"{where}: reply has no choices: {str(resp)[:300]}")
    text = resp.choices[0].message.content or ""
    usage = resp.usage
    if usage is not None and usage.prompt_tokens is not None and \
            usage.completion_tokens is not None:
        return Reply(text, int(usage.prompt_tokens), int(usage.completion_tokens), seconds)
    return Reply(text, estimate_tokens("x" * prompt_chars), estimate_tokens(text), seconds,
                 tokens_estimated=True)
