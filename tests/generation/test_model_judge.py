"""Model-judge monitors through the loopback chat server: the model sees the public task and the
candidate (never a label) and its answer becomes a Verdict; unclear answers are U/malformed."""

from __future__ import annotations

import json

from gen_helpers import GOOD, TASK_PUBLIC, openai_cfg

from monitorbench.providers import make_chat_model
from monitorbench.judging.model_judge import open_model_judge, parse_decision
from monitorbench.suites.format import Task

TASK = Task("t1", "tool_call", "test", TASK_PUBLIC)


def test_judge_answers_become_verdicts(chat_server) -> None:
    answers = iter(["The call names the city.\nDECISION: PASS", "DECISION: FAIL",
                    "It could be PASS or FAIL.", "decision: pass"])
    srv = chat_server(lambda b: next(answers))
    cfg = openai_cfg(srv.base_url)
    with open_model_judge(make_chat_model(cfg), TASK, cfg.condition) as session:
        verdicts = [session.judge(GOOD) for _ in range(4)]
    assert [v.outcome for v in verdicts] == ["P", "F", "U", "P"]
    assert verdicts[2].reason == "malformed"
    prompt = json.dumps(srv.requests[0]["body"]["messages"])
    assert "Call get_weather for Paris." in prompt and "Paris" in prompt
    assert "label" not in prompt.lower()


def test_a_refused_request_is_u_and_a_dead_endpoint_stops_the_job(chat_server) -> None:
    """A request the endpoint refuses (400) is this case's infrastructure failure, a U never
    charged to the judge; 5xx after every retry is no endpoint at all, which stops the job
    (issue 45) instead of a U per case."""
    import pytest

    from monitorbench.providers.base import EndpointUnreachable

    bad = openai_cfg(chat_server(lambda b: (400, "bad request")).base_url)
    v = open_model_judge(make_chat_model(bad), TASK, bad.condition).judge(GOOD)
    assert v.outcome == "U" and v.reason == "sandbox_error" and "HTTP 400" in v.detail
    down = openai_cfg(chat_server(lambda b: (500, "down")).base_url)
    with pytest.raises(EndpointUnreachable, match="HTTP 500"):
        open_model_judge(make_chat_model(down), TASK, down.condition).judge(GOOD)


def test_parse_decision_prefers_the_last_marked_line() -> None:
    assert parse_decision("DECISION: FAIL\nOn reflection... DECISION: PASS") == "PASS"
    assert parse_decision("**DECISION:** FAIL") == "FAIL"
    assert parse_decision("no idea") is None
