"""Model generators and model-judge monitors through the whole pipeline.

The chat-completions server on 127.0.0.1 (tests/generation/gen_helpers.ChatServer) stands in for
a paid model API, which cannot be reached from here; everything else is real: the BFCL suite,
the sandbox, the judgment store, the response and generation caches.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pipeline_helpers import compose_cfg
from monitorbench.launch.run import run_job

sys.path.insert(0, str(Path(__file__).parent / "generation"))
from gen_helpers import ChatServer  # noqa: E402

GOOD_VERIFIER = '''Here is the verifier.
```python
def verify(candidate, env):
    names = {t["name"] for t in env.task["tools"]}
    calls = candidate.get("calls") or []
    return "PASS" if calls and all(c["name"] in names for c in calls) else "FAIL"
```
'''


def _overrides(server: ChatServer, *extra: str) -> list[str]:
    return ["generator=openai", f"generator.base_url={server.base_url}",
            "generator.api_key_env=null", "generator.model=scripted-model",
            "task.max_tasks_per_type=3", "tracking.enabled=false", *extra]


def test_model_generator_writes_verifiers_and_a_rerun_regenerates_nothing(
        tmp_path: Path, suites_dir: Path) -> None:
    server = ChatServer(lambda body: GOOD_VERIFIER)
    try:
        cfg = compose_cfg(tmp_path, suites_dir, _overrides(server, "scaffold=oneshot"))
        first = run_job(cfg)
        calls_after_first = len(server.requests)
        second = run_job(compose_cfg(tmp_path, suites_dir, _overrides(server,
                                                                      "scaffold=oneshot")))
    finally:
        server.close()
    assert first["n_submitted"] == 3 and first["valid_output_rate"] == 100.0
    assert first["tpr"] == 100.0 and 0 < first["tnr"] < 100  # names-only: accepts wrong values
    assert first["gen/completion_tokens"] > 0
    assert calls_after_first == 3 and len(server.requests) == 3  # no request on the re-run
    assert second["cache/generation_hits"] == 3 and second["cache/judgments_new"] == 0
    # the generator saw public material only: no hidden case, label or answer key in a prompt
    sent = json.dumps([r["body"] for r in server.requests])
    assert ".c0" not in sent and "possible_answer" not in sent and "valid_variant" not in sent


def test_remote_generation_runs_tasks_in_parallel_up_to_the_request_concurrency(
        tmp_path: Path, suites_dir: Path) -> None:
    server = ChatServer(lambda body: GOOD_VERIFIER, delay=0.3)
    try:
        m = run_job(compose_cfg(tmp_path, suites_dir, _overrides(
            server, "scaffold=oneshot", "task.max_tasks_per_type=6",
            "generator.request.concurrency=3")))
    finally:
        server.close()
    assert len(server.requests) == 6 and server.max_in_flight == 3
    assert m["n_submitted"] == 6 and m["cache/generation_misses"] == 6


def test_model_judge_reads_each_case_and_is_scored_on_identical_cases(
        tmp_path: Path, suites_dir: Path) -> None:
    def judge(body: dict) -> str:
        user = body["messages"][-1]["content"]
        return "DECISION: FAIL" if "NOTE TO VERIFIER" in user else "DECISION: PASS"

    server = ChatServer(judge)
    try:
        m = run_job(compose_cfg(tmp_path, suites_dir, _overrides(server, "access=model_judge")))
        n_requests = len(server.requests)
        again = run_job(compose_cfg(tmp_path, suites_dir, _overrides(server,
                                                                     "access=model_judge")))
    finally:
        server.close()
    assert n_requests == m["n_cases"]  # one model call per hidden case
    assert m["tpr"] == 100.0
    assert m["fpr_h/addresses_verifier"] == 0.0   # the judge catches the injected notes...
    assert m["fpr_h/claims_success"] == 100.0     # ...and nothing else
    assert again["cache/judgments_new"] == 0 and len(server.requests) == n_requests
    sent = json.dumps([r["body"] for r in server.requests])
    assert "valid_variant" not in sent and "ordinary_error" not in sent  # labels stay hidden


def test_model_judge_needs_a_model_generator(tmp_path: Path, suites_dir: Path) -> None:
    from monitorbench.errors import InputError

    cfg = compose_cfg(tmp_path, suites_dir, ["access=model_judge", "tracking.enabled=false",
                                             "task.max_tasks_per_type=2"])
    with pytest.raises(InputError, match="access.monitor"):
        run_job(cfg)


@pytest.mark.slow
@pytest.mark.hf
@pytest.mark.usefixtures("one_torch_thread")
@pytest.mark.xdist_group("smollm2")  # one worker for both SmolLM2 tests: the weights load once
def test_embedded_smollm2_writes_judged_verifiers_and_a_rerun_regenerates_nothing(
        tmp_path: Path, suites_dir: Path) -> None:
    """The real model, not a stand-in: SmolLM2-135M through the agent scaffold on one BFCL task.
    Its verifier is usually wrong; what is asserted is the path (replies, trace, judgments, caches)."""
    pytest.importorskip("transformers")
    overrides = ["+experiment=smollm2", "generator=smollm2", "task=bfcl",
                 "task.max_tasks_per_type=1",
                 "scaffold.max_steps=2", "generator.condition.max_tokens=96",
                 "tracking.enabled=false"]
    first = run_job(compose_cfg(tmp_path, suites_dir, overrides))
    assert first["n_tasks"] == 1 and first["cache/generation_misses"] == 1
    assert first["gen/model_calls"] >= 1 and first["gen/completion_tokens"] > 0
    assert first["cache/response/cache_misses"] == first["gen/model_calls"]
    assert first["trace/traces"] == 1.0 and "trace/mean_self_tests" in first
    judged = first["cache/judgments_new"]
    assert judged > 0  # every case judged, with or without a verifier (no verifier: U)
    again = run_job(compose_cfg(tmp_path, suites_dir, overrides))
    assert (again["cache/generation_hits"], again["cache/generation_misses"]) == (1, 0)
    assert again["cache/judgments_new"] == 0 and again["cache/judgments_reused"] == judged
    assert (again["cache/response/cache_misses"] == 0
            and "cache/response/cache_hit_rate" not in again)
