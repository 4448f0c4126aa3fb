"""The OpenAI-compatible provider against a real HTTP server on 127.0.0.1 (stands in for a paid
API): request shape, token accounting, retries on 429/5xx, no retry on 4xx, the concurrency cap."""

from __future__ import annotations

import threading

import pytest

from monitorbench.config import Effort
from monitorbench.errors import InputError
from monitorbench.generation.models import ModelError, make_chat_model
from monitorbench.generation.models.openai_http import OpenAIChatModel

from gen_helpers import openai_cfg

MSGS = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


def _model(url: str, **kw) -> OpenAIChatModel:
    opts = dict(base_url=url, model="m1", api_key="sk-test", timeout_seconds=5, retries=3,
                backoff_seconds=0.01, concurrency=4)
    opts.update(kw)
    return OpenAIChatModel(**opts)


def test_request_carries_sampling_and_effort_and_usage_is_counted(chat_server) -> None:
    srv = chat_server(lambda body: "hello there")
    m = _model(srv.base_url)
    r = m.complete(MSGS, max_tokens=64, temperature=0.5, top_p=0.9, seed=7, effort=Effort.HIGH)
    assert r.text == "hello there"
    assert (r.prompt_tokens, r.completion_tokens, r.tokens_estimated) == (20, 2, False)
    body = srv.requests[0]["body"]
    assert body["messages"] == MSGS and body["model"] == "m1"
    assert (body["max_tokens"], body["temperature"], body["top_p"], body["seed"]) == (64, 0.5, 0.9, 7)
    assert body["reasoning_effort"] == "high"
    assert srv.requests[0]["auth"] == "Bearer sk-test"
    m.complete(MSGS, max_tokens=64, temperature=0, top_p=1, seed=0, effort=Effort.LOW)
    assert srv.requests[1]["body"]["reasoning_effort"] == "low"
    m.complete(MSGS, max_tokens=64, temperature=0, top_p=1, seed=0, effort=Effort.NONE)
    assert "reasoning_effort" not in srv.requests[2]["body"]


def test_retries_429_and_500_then_succeeds(chat_server) -> None:
    answers = iter([(429, "slow down"), (500, "boom"), "ok"])
    srv = chat_server(lambda body: next(answers))
    m = _model(srv.base_url)
    r = m.complete(MSGS, max_tokens=8, temperature=0, top_p=1, seed=0, effort=Effort.NONE)
    assert r.text == "ok"
    assert len(srv.requests) == 3 and m.attempts == 3


def test_gives_up_after_retries_and_names_the_last_error(chat_server) -> None:
    srv = chat_server(lambda body: (503, "overloaded"))
    m = _model(srv.base_url, retries=2)
    with pytest.raises(ModelError, match="3 attempts.*HTTP 503"):
        m.complete(MSGS, max_tokens=8, temperature=0, top_p=1, seed=0, effort=Effort.NONE)
    assert len(srv.requests) == 3


def test_client_errors_are_not_retried(chat_server) -> None:
    srv = chat_server(lambda body: (400, "bad request: unknown model"))
    with pytest.raises(ModelError, match="HTTP 400.*unknown model"):
        _model(srv.base_url).complete(MSGS, max_tokens=8, temperature=0, top_p=1, seed=0,
                                      effort=Effort.NONE)
    assert len(srv.requests) == 1


def test_connection_refused_is_retried_then_reported() -> None:
    m = _model("http://127.0.0.1:9/v1", retries=1)
    with pytest.raises(ModelError, match="2 attempts"):
        m.complete(MSGS, max_tokens=8, temperature=0, top_p=1, seed=0, effort=Effort.NONE)
    assert m.attempts == 2


def test_concurrency_limit_caps_requests_in_flight(chat_server) -> None:
    srv = chat_server(lambda body: "x", delay=0.15)
    m = _model(srv.base_url, concurrency=2)
    threads = [threading.Thread(target=m.complete, args=(MSGS,),
                                kwargs=dict(max_tokens=8, temperature=0, top_p=1, seed=i,
                                            effort=Effort.NONE)) for i in range(6)]
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


def test_unknown_provider_is_an_input_error() -> None:
    cfg = openai_cfg("http://127.0.0.1:1/v1")
    cfg.provider = "anthropic"
    with pytest.raises(InputError, match="openai, transformers, recorded"):
        make_chat_model(cfg)
