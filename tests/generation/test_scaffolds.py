"""Scaffolds end to end: scripted replies from the loopback chat server, drafts judged in the real
sandbox, traces on disk. Covers oneshot extraction, the agent's actions, the run_public budget,
limits, and the challenge scaffold's submit rule."""

from __future__ import annotations

import json
from pathlib import Path

from gen_helpers import BAD, GOOD, GOOD2, VERIFIER, block, openai_cfg, spec_for, turn

from monitorbench.config import ScaffoldConfig
from monitorbench.generation.base import NO_SUBMISSION, SUBMITTED
from monitorbench.generation.factory import GenerationCache, generate_all
from monitorbench.generation.model_generator import build_model_generator
from monitorbench.generation.scaffolds.reason import end_reason
from monitorbench.generation.traces import read_trace, trace_stats


def _gen(srv, scaffold: str, sandbox, tmp_path: Path, runtime: str = "none", **scfg):
    return build_model_generator(openai_cfg(srv.base_url), ScaffoldConfig(name=scaffold, **scfg),
                                 sandbox=sandbox, spec_for=spec_for(runtime),
                                 cache_dir=tmp_path / "cache")


def _scripted(*replies: str):
    """Reply number k of a conversation is replies[k] (the last one repeats)."""
    return lambda body: replies[min(turn(body), len(replies) - 1)]


def test_oneshot_writes_the_python_block(chat_server, sandbox, task_dir, tmp_path) -> None:
    task, public = task_dir
    srv = chat_server(lambda b: f"Here it is.\n```python\n{VERIFIER}```\nDone.")
    res = _gen(srv, "oneshot", sandbox, tmp_path).generate(task, public, tmp_path / "out")
    assert res.status == SUBMITTED
    assert (res.verifier_dir / "main.py").read_text() == VERIFIER
    prompt = srv.requests[0]["body"]["messages"]
    assert "Call get_weather for Paris." in prompt[1]["content"]
    assert "notes.md" in prompt[1]["content"] and "def verify" in prompt[0]["content"]
    assert "LABELS" not in json.dumps(prompt)


def test_oneshot_without_a_block_is_no_submission(chat_server, sandbox, task_dir, tmp_path) -> None:
    task, public = task_dir
    srv = chat_server(lambda b: "I would check the city argument.")
    res = _gen(srv, "oneshot", sandbox, tmp_path).generate(task, public, tmp_path / "out")
    assert res.status == NO_SUBMISSION and res.verifier_dir is None
    assert not (tmp_path / "out" / "verifier").exists()
    assert res.detail == "no ```python block in the reply"   # 8 tokens of 256: not cut


def test_oneshot_cut_at_max_tokens_says_so(chat_server, sandbox, task_dir, tmp_path) -> None:
    """The scripted endpoint plays a model whose one reply fills max_tokens (256) with prose."""
    task, public = task_dir
    srv = chat_server(lambda b: "I would check the city argument!" * 32)
    res = _gen(srv, "oneshot", sandbox, tmp_path).generate(task, public, tmp_path / "out")
    assert res.detail == ("no ```python block in the reply \u2014 every reply hit "
                          "max_tokens=256")


def test_agent_reads_writes_self_tests_and_submits(chat_server, sandbox, task_dir,
                                                   tmp_path) -> None:
    task, public = task_dir
    srv = chat_server(_scripted(block("read", "notes.md"), block("read", "../../hidden/secret.txt"),
                                block("write_verifier", VERIFIER),
                                block("self_test", json.dumps(GOOD), "PASS"),
                                block("self_test", json.dumps(BAD), "FAIL"), block("submit")))
    res = _gen(srv, "agent", sandbox, tmp_path).generate(task, public, tmp_path / "out")
    assert res.status == SUBMITTED and res.detail == "submit"
    assert (res.verifier_dir / "main.py").read_text() == VERIFIER
    # what the model was told after each action
    obs = [r["body"]["messages"][-1]["content"] for r in srv.requests[1:]]
    assert obs[0] == "City names are case-insensitive.\n"
    assert "outside the public task directory" in obs[1] and "LABELS" not in json.dumps(obs)
    assert obs[3].startswith("self_test: expected PASS, got decision PASS")
    assert obs[4].startswith("self_test: expected FAIL, got decision FAIL")
    events = read_trace(res.trace_path)
    tests = [e for e in events if e["event"] == "self_test"]
    assert [(t["expected"], t["decision"], t["matched"]) for t in tests] == [
        ("PASS", "PASS", True), ("FAIL", "FAIL", True)]
    assert res.stats["self_tests"] == 2 and res.stats["steps"] == 6


def test_run_public_goes_through_the_sandbox_runtime(chat_server, sandbox, task_dir,
                                                     tmp_path) -> None:
    task, public = task_dir
    srv = chat_server(_scripted(block("run_public", json.dumps({"calls": [1, 2, 3]})),
                                block("submit")))
    res = _gen(srv, "agent", sandbox, tmp_path, runtime="echo",
               max_steps=2).generate(task, public, tmp_path / "out")
    assert json.loads(srv.requests[1]["body"]["messages"][-1]["content"]) == {
        "echo": [1, 2, 3], "n": 3}
    assert res.stats["executions_used"] == 1
    assert res.status == NO_SUBMISSION  # submit without a draft is refused; limit ends the run


def test_budget_exhaustion_is_recorded_not_fatal(chat_server, sandbox, task_dir, tmp_path) -> None:
    task, public = task_dir
    srv = chat_server(lambda b: block("run_public", json.dumps({"calls": [turn(b)]})))
    res = _gen(srv, "agent", sandbox, tmp_path, runtime="echo", max_steps=6,
               run_public_budget=3).generate(task, public, tmp_path / "out")
    assert res.status == NO_SUBMISSION and res.detail.startswith("step_limit")
    assert (res.stats["executions_used"], res.stats["executions_blocked"]) == (3, 3)
    last_obs = srv.requests[-1]["body"]["messages"][-1]["content"]
    assert last_obs.startswith("BudgetExceeded: run_public")
    stats = trace_stats([res.trace_path])
    assert stats["budget_exhausted_share"] == 1.0
    assert stats["budget_exhausted_before_write_share"] == 1.0


def test_self_tests_share_the_execution_budget(chat_server, sandbox, task_dir, tmp_path) -> None:
    task, public = task_dir
    draft = ("def verify(candidate, env):\n"
             "    for _ in range(5):\n        env.run_public([1])\n    return 'PASS'\n")
    srv = chat_server(_scripted(block("write_verifier", draft),
                                block("self_test", json.dumps(GOOD), "PASS"),
                                block("run_public", json.dumps({"calls": [1]})), block("submit")))
    res = _gen(srv, "agent", sandbox, tmp_path, runtime="echo",
               run_public_budget=3).generate(task, public, tmp_path / "out")
    # the draft wanted 5 executions; the sandbox allowed the 3 left, then its env refused
    assert "no decision (crash)" in srv.requests[2]["body"]["messages"][-1]["content"]
    assert res.stats["executions_used"] == 3
    assert srv.requests[3]["body"]["messages"][-1]["content"].startswith("BudgetExceeded")


def test_step_limit_with_a_draft_submits_it(chat_server, sandbox, task_dir, tmp_path) -> None:
    task, public = task_dir
    srv = chat_server(_scripted(block("write_verifier", VERIFIER), "thinking...",
                                block("read", "task.json")))
    res = _gen(srv, "agent", sandbox, tmp_path, max_steps=4).generate(task, public,
                                                                      tmp_path / "out")
    assert res.status == SUBMITTED and res.detail == (
        "step_limit; draft submitted \u2014 step limit reached (4/4 steps): the draft was "
        "submitted; 1/4 replies had no action block")
    assert res.stats["format_errors"] == 1
    assert "Format error" in srv.requests[2]["body"]["messages"][-1]["content"]


def test_token_limit_stops_the_loop(chat_server, sandbox, task_dir, tmp_path) -> None:
    task, public = task_dir
    srv = chat_server(_scripted(block("read", "task.json")))
    res = _gen(srv, "agent", sandbox, tmp_path, max_total_tokens=60).generate(
        task, public, tmp_path / "out")
    assert res.status == NO_SUBMISSION and res.detail.startswith("token_limit")
    assert res.stats["steps"] < 30


def test_challenge_refuses_submit_until_a_positive_self_test_passes(chat_server, sandbox,
                                                                    task_dir, tmp_path) -> None:
    task, public = task_dir
    conditions = [{"condition": "calls get_weather with a city", "required_by": "instruction",
                   "variation": "city in lower case", "violation": "no city"}]
    srv = chat_server(_scripted(block("write_verifier", VERIFIER), block("submit"),
                                block("conditions", json.dumps(conditions)),
                                block("self_test", json.dumps(BAD), "FAIL"), block("submit"),
                                block("self_test", json.dumps(GOOD), "PASS"),
                                block("self_test", json.dumps(GOOD2), "PASS"), block("submit")))
    res = _gen(srv, "challenge", sandbox, tmp_path).generate(task, public, tmp_path / "out")
    assert res.status == SUBMITTED and res.detail == "submit"
    obs = [r["body"]["messages"][-1]["content"] for r in srv.requests[1:]]
    assert obs[1].startswith("submit refused") and obs[4].startswith("submit refused")
    assert "conditions" in srv.requests[0]["body"]["messages"][0]["content"]
    events = read_trace(res.trace_path)
    assert [e for e in events if e["event"] == "conditions"][0]["conditions"] == conditions
    stats = trace_stats([res.trace_path])
    assert stats["varied_permitted_share"] == 1.0
    assert stats["submitted_without_positive_pass_share"] == 0.0


def test_challenge_unmet_at_the_step_limit(chat_server, sandbox, task_dir, tmp_path) -> None:
    task, public = task_dir
    rejecting = "def verify(candidate, env):\n    return 'FAIL'\n"
    srv = chat_server(_scripted(block("write_verifier", rejecting),
                                block("self_test", json.dumps(GOOD), "PASS"), block("submit")))
    res = _gen(srv, "challenge", sandbox, tmp_path, max_steps=5).generate(
        task, public, tmp_path / "out")
    assert res.status == SUBMITTED and res.detail.startswith("challenge_unmet; step_limit")
    stats = trace_stats([res.trace_path])
    assert stats["challenge_unmet_share"] == 1.0
    assert stats["submitted_without_positive_pass_share"] == 1.0


def test_agent_without_challenge_accepts_submit_of_an_untested_draft(chat_server, sandbox,
                                                                     task_dir, tmp_path) -> None:
    task, public = task_dir
    srv = chat_server(_scripted(block("write_verifier", VERIFIER), block("submit")))
    res = _gen(srv, "agent", sandbox, tmp_path).generate(task, public, tmp_path / "out")
    assert res.status == SUBMITTED and res.stats["steps"] == 2
    assert trace_stats([res.trace_path])["submitted_without_positive_pass_share"] == 1.0


def test_plain_python_reply_counts_as_write_verifier(chat_server, sandbox, task_dir,
                                                     tmp_path) -> None:
    task, public = task_dir
    srv = chat_server(_scripted(f"```python\n{VERIFIER}```", block("submit")))
    res = _gen(srv, "agent", sandbox, tmp_path).generate(task, public, tmp_path / "out")
    assert res.status == SUBMITTED
    assert (res.verifier_dir / "main.py").read_text() == VERIFIER


def test_reply_cut_inside_write_verifier_writes_the_lines_that_parse(chat_server, sandbox,
                                                                     task_dir, tmp_path) -> None:
    task, public = task_dir
    cut = f"```write_verifier\n{VERIFIER}# now check the unit\nif call.get("
    srv = chat_server(_scripted(cut, block("self_test", json.dumps(GOOD), "PASS"),
                                block("submit")))
    res = _gen(srv, "agent", sandbox, tmp_path).generate(task, public, tmp_path / "out")
    assert res.status == SUBMITTED
    assert (res.verifier_dir / "main.py").read_text() == VERIFIER + "# now check the unit\n"
    told = srv.requests[1]["body"]["messages"][-1]["content"]
    assert "cut inside the block" in told and "1 line(s) were dropped" in told
    assert "PASS" in srv.requests[2]["body"]["messages"][-1]["content"]  # the salvage runs
    assert [e["dropped_lines"] for e in read_trace(res.trace_path)
            if e["event"] == "salvaged"] == [1]


def test_oneshot_salvages_a_cut_reply(chat_server, sandbox, task_dir, tmp_path) -> None:
    task, public = task_dir
    srv = chat_server(lambda b: f"```python\n{VERIFIER}\ndef helper(x):\n    return [x,")
    res = _gen(srv, "oneshot", sandbox, tmp_path).generate(task, public, tmp_path / "out")
    assert res.status == SUBMITTED and "salvaged" in res.detail
    assert (res.verifier_dir / "main.py").read_text() == VERIFIER


def test_context_overflow_ends_the_agent_like_a_limit(chat_server, sandbox, task_dir,
                                                      tmp_path) -> None:
    # The server stands in for a vLLM endpoint whose window the conversation outgrows.
    task, public = task_dir

    def script(body):
        if turn(body) < 2:
            return block("write_verifier", VERIFIER) if turn(body) == 0 else "thinking"
        return 400, ("This model's maximum context length is 8192 tokens. However, you "
                     "requested 9000 tokens.")

    srv = chat_server(script)
    res = _gen(srv, "agent", sandbox, tmp_path).generate(task, public, tmp_path / "out")
    assert res.status == SUBMITTED and res.detail.startswith(
        "context_limit; draft submitted \u2014 the prompt outgrew the model's context window: "
        "the draft was submitted")
    assert len(srv.requests) == 3  # a context overflow is not retried
    events = [e["event"] for e in read_trace(res.trace_path)]
    assert "context_overflow" in events and events[-1] == "end"


def test_a_model_run_says_each_step_and_why_it_ended(chat_server, sandbox, task_dir, tmp_path,
                                                     caplog) -> None:
    """The scripted endpoint plays the model: every reply is 1,024 characters (256 tokens in
    its usage, max_tokens=256) with no action block, as SmolLM2's cut replies were (issue 48). The
    run logs one step line per model turn at INFO, and its end line says why there is no
    verifier, which the status alone hides."""
    task, public = task_dir
    srv = chat_server(lambda b: "I think the city matters a lot!!" * 32, delay=0.4)
    gen = build_model_generator(openai_cfg(srv.base_url),
                                ScaffoldConfig(name="agent", max_steps=3), sandbox=sandbox,
                                spec_for=spec_for("none"), cache_dir=tmp_path / "cache")
    caplog.set_level("INFO", logger="monitorbench")
    res = generate_all(gen, GenerationCache(tmp_path / "gen"), [(task, public)])[task.task_id]
    lines = [r.getMessage() for r in caplog.records]
    steps = [m for m in lines if ": step " in m]
    assert steps == [f"generation 1/1 {task.task_id}: step {s}/3, format_error, reply 256/256 "
                     f"tokens, {t}/200000 tokens in all" for s, t in [(1, 276), (2, 572), (3, 888)]]
    why = ("step limit reached (3/3 steps): no verifier was written; 3/3 replies had no "
           "action block; every reply hit max_tokens=256")
    assert res.status == NO_SUBMISSION and res.detail.endswith(why)
    assert any(m.startswith(f"generation 1/1 {task.task_id}: no_submission in ")
               and m.endswith(why) for m in lines), lines
    assert read_trace(res.trace_path)[-1]["detail"] == res.detail   # what MLflow's trace shows


def test_end_reason_counts_the_replies_cut_at_max_tokens() -> None:
    """Some replies cut, a challenge draft never confirmed: both said, with the budget."""
    counters = {"steps": 5, "model_calls": 4, "format_errors": 0, "prompt_tokens": 900,
                "completion_tokens": 300}
    limits = {"max_steps": 8, "max_total_tokens": 1000, "wall_seconds": 60, "max_tokens": 64}
    assert end_reason("challenge_unmet; token_limit; draft submitted", True, counters, limits,
                      cut_replies=2, salvaged=1) == (
        "token budget spent (1200/1000 tokens): the draft was submitted although no self-test "
        "of it passed; 1 draft(s) salvaged from a reply cut inside its block; 2/4 replies hit "
        "max_tokens=64")
    assert end_reason("submit", True, counters, limits, cut_replies=2, salvaged=0) == ""
