"""The openai-SDK provider: the failures a real server cannot be made to produce on demand.

The normal path (replies, token accounting, context overflow, dialects accepted, cache identity)
runs against the real llama.cpp server in test_local_server.py. Every test here that uses the
scripted loopback server (gen_helpers.ChatServer) says why: it needs an HTTP 429/5xx/4xx on
demand, a reply slower than the timeout, a count of requests in flight, or the exact request
body on the wire — none of which the real server reports or can be told to do.
"""

from __future__ import annotations

import threading

import pytest

from monitorbench.config import Effort, ScriptedGeneratorConfig
from monitorbench.errors import InputError
from monitorbench.providers import ModelError, make_chat_model
from monitorbench.providers.base import EndpointUnreachable
from monitorbench.providers.base import ContextOverflow
from monitorbench.providers.openai_sdk import OpenAIChatModel, effort_fields

from gen_helpers import openai_cfg

MSGS = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


def _model(url: str, **kw) -> OpenAIChatModel:
    opts = dict(base_url=url, model="m1", api_key="sk-test", timeout_seconds=5, retries=3,
                concurrency=4)
    opts.update(kw)
    return OpenAIChatModel(**opts)


def _ask(m: OpenAIChatModel, effort: Effort = Effort.NONE, **kw) -> object:
    opts = dict(max_tokens=8, temperature=0, top_p=1, seed=0, effort=effort)
    opts.update(kw)
    return m.complete(MSGS, **opts)


def test_request_body_carries_sampling_effort_and_key(chat_server) -> None:
    """Double: the real server does not echo the request body it received."""
    srv = chat_server(lambda body: "hello there")
    m = _model(srv.base_url)
    r = _ask(m, Effort.HIGH, max_tokens=64, temperature=0.5, top_p=0.9, seed=7)
    assert r.text == "hello there"
    assert (r.prompt_tokens, r.completion_tokens, r.tokens_estimated) == (20, 2, False)
    body = srv.requests[0]["body"]
    assert body["messages"] == MSGS and body["model"] == "m1"
    assert (body["max_completion_tokens"], body["temperature"], body["top_p"], body["seed"]) == \
        (64, 0.5, 0.9, 7)
    assert body["reasoning_effort"] == "high" and "max_tokens" not in body
    assert srv.requests[0]["auth"] == "Bearer sk-test"
    _ask(m, Effort.NONE)
    assert "reasoning_effort" not in srv.requests[1]["body"]


@pytest.mark.parametrize("dialect,effort,expected", [
    ("openrouter", Effort.LOW, {"max_tokens": 8, "reasoning": {"effort": "low"}}),
    ("enable_thinking", Effort.HIGH, {"max_tokens": 8,
                                      "chat_template_kwargs": {"enable_thinking": True}}),
    ("enable_thinking", Effort.LOW, {"max_tokens": 8,
                                     "chat_template_kwargs": {"enable_thinking": False}}),
    ("plain", Effort.HIGH, {"max_tokens": 8}),
])
def test_each_dialect_spells_effort_on_the_wire(chat_server, dialect, effort, expected) -> None:
    """Double: the real server does not echo the request body it received."""
    srv = chat_server(lambda body: "ok")
    _ask(_model(srv.base_url, dialect=dialect), effort)
    body = srv.requests[0]["body"]
    sent = {k: body[k] for k in ("max_tokens", "max_completion_tokens", "reasoning_effort",
                                 "reasoning", "chat_template_kwargs") if k in body}
    assert sent == expected


def test_effort_none_sends_no_effort_field_in_any_dialect() -> None:
    for dialect in ("openai", "openrouter", "enable_thinking", "plain"):
        fields = effort_fields(dialect, Effort.NONE, 9)
        assert set(fields) <= {"max_tokens", "max_completion_tokens"}


def test_no_key_sends_a_placeholder_not_the_environment_key(chat_server, monkeypatch) -> None:
    """Double: the real server does not report the Authorization header it received."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-from-env")
    srv = chat_server(lambda body: "ok")
    _ask(_model(srv.base_url, api_key=None))
    assert srv.requests[0]["auth"] == "Bearer EMPTY"


def test_retries_429_and_500_then_succeeds(chat_server) -> None:
    """Double: the real server cannot be made to answer 429 or 500."""
    answers = iter([(429, "slow down"), (500, "boom"), "ok"])
    srv = chat_server(lambda body: next(answers))
    m = _model(srv.base_url)
    assert _ask(m).text == "ok"
    assert len(srv.requests) == 3 and m.attempts == 3


def test_gives_up_after_retries_and_names_the_last_error(chat_server) -> None:
    """Double: the real server cannot be made to answer 503."""
    srv = chat_server(lambda body: (503, "overloaded"))
    m = _model(srv.base_url, retries=2)
    with pytest.raises(ModelError, match="3 attempts.*HTTP 503.*overloaded"):
        _ask(m)
    assert len(srv.requests) == 3


def test_client_errors_are_not_retried(chat_server) -> None:
    """Double: the real llama.cpp server accepts any model name, so no 400 for one."""
    srv = chat_server(lambda body: (400, "bad request: unknown model"))
    with pytest.raises(ModelError, match="HTTP 400.*unknown model") as e:
        _ask(_model(srv.base_url))
    assert not isinstance(e.value, ContextOverflow) and len(srv.requests) == 1


def test_vllm_overflow_wording_is_a_context_overflow(chat_server) -> None:
    """Double: vLLM's and OpenAI's overflow messages (llama.cpp's is tested for real)."""
    srv = chat_server(lambda body: (400, "This model's maximum context length is 4096 tokens"))
    with pytest.raises(ContextOverflow):
        _ask(_model(srv.base_url))
    assert len(srv.requests) == 1


def test_a_reply_slower_than_the_timeout_is_retried_then_reported(chat_server) -> None:
    """Double: the real server cannot be made to stall on demand."""
    srv = chat_server(lambda body: "late", delay=1.5)
    m = _model(srv.base_url, timeout_seconds=0.3, retries=1)
    with pytest.raises(ModelError, match="2 attempts.*APITimeoutError"):
        _ask(m)
    assert m.attempts == 2


def test_connection_refused_is_retried_then_reported() -> None:
    m = _model("http://127.0.0.1:9/v1", retries=1)
    with pytest.raises(EndpointUnreachable, match="connection refused after 2 attempts"):
        _ask(m)
    assert m.attempts == 2


def test_concurrency_limit_caps_requests_in_flight(chat_server) -> None:
    """Double: the real server does not report how many requests it held at once."""
    srv = chat_server(lambda body: "x", delay=0.15)
    m = _model(srv.base_url, concurrency=2)
    threads = [threading.Thread(target=_ask, args=(m,), kwargs=dict(seed=i)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(srv.requests) == 6
    assert srv.max_in_flight == 2


def test_missing_api_key_variable_is_an_input_error(monkeypatch) -> None:
    cfg = openai_cfg("http://127.0.0.1:1/v1")
    cfg.api_key_env = "MB_TEST_NO_SUCH_KEY"
    monkeypatch.delenv("MB_TEST_NO_SUCH_KEY", raising=False)
    with pytest.raises(InputError) as e:
        make_chat_model(cfg)
    assert e.value.field == "generator.api_key_env" and "openai.yaml" in str(e.value.file)
    assert "MB_TEST_NO_SUCH_KEY" in e.value.fix


def test_unknown_dialect_and_a_generator_without_provider_are_input_errors() -> None:
    cfg = openai_cfg("http://127.0.0.1:1/v1")
    cfg.request.dialect = "anthropic"
    with pytest.raises(InputError) as e:
        make_chat_model(cfg)
    assert e.value.field == "generator.request.dialect"
    # The provider is the config's schema (a wrong `generator.provider` fails at compose time,
    # tests/test_config.py); a scripted baseline has none to build.
    with pytest.raises(InputError, match="openai, transformers, recorded") as e:
        make_chat_model(ScriptedGeneratorConfig(name="schema_check", baseline="schema_check"))
    assert e.value.field == "generator" and "schema_check" in str(e.value)
