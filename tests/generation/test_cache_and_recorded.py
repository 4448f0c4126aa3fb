"""The response cache (hit on re-run, miss across models, per seed when sampling, durable across
processes and torn lines) and the recorded provider (exact replay, clear error on a miss)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gen_helpers import VERIFIER, block, openai_cfg, spec_for, turn

from monitorbench.config import Effort, RecordedGeneratorConfig, ScaffoldConfig
from monitorbench.errors import InputError
from monitorbench.generation.base import ERROR, SUBMITTED
from monitorbench.generation.model_generator import build_model_generator
from monitorbench.providers import CachedChatModel, ResponseCache, make_chat_model
from monitorbench.providers.recorded import RecordedChatModel, RecordingMiss

MSGS = [{"role": "user", "content": "write a verifier"}]


def _ask(model, temperature: float = 0.0, seed: int = 0):
    return model.complete(MSGS, max_tokens=32, temperature=temperature, top_p=1.0, seed=seed,
                          effort=Effort.NONE)


def _cached(url: str, cache_dir: Path, model: str = "m1") -> CachedChatModel:
    return CachedChatModel(make_chat_model(openai_cfg(url, model=model)), ResponseCache(cache_dir))


def test_rerun_hits_and_a_second_model_misses(chat_server, tmp_path) -> None:
    srv = chat_server(lambda b: f"answer from {b['model']}")
    a = _cached(srv.base_url, tmp_path)
    assert _ask(a).text == "answer from m1" and _ask(a).cached
    assert len(srv.requests) == 1 and (a.cache.hits, a.cache.misses) == (1, 1)
    b = _cached(srv.base_url, tmp_path, model="m2")  # same cache directory, same messages
    assert _ask(b).text == "answer from m2"
    assert len(srv.requests) == 2


def test_sampled_replies_are_cached_per_seed_greedy_ones_are_not(chat_server, tmp_path) -> None:
    srv = chat_server(lambda b: f"seed {b['seed']} t {b['temperature']}")
    m = _cached(srv.base_url, tmp_path)
    assert _ask(m, 0.7, seed=1).text == "seed 1 t 0.7"
    assert _ask(m, 0.7, seed=2).text == "seed 2 t 0.7"
    assert _ask(m, 0.7, seed=1).cached
    assert len(srv.requests) == 2
    _ask(m, 0.0, seed=1)
    assert _ask(m, 0.0, seed=2).cached  # greedy decoding does not depend on the seed
    assert len(srv.requests) == 3


def test_cache_is_durable_and_survives_a_torn_line(chat_server, tmp_path) -> None:
    srv = chat_server(lambda b: "x")
    _ask(_cached(srv.base_url, tmp_path))
    with open(tmp_path / "responses.jsonl", "a") as f:
        f.write('{"key": "torn')  # a run killed mid-write
    fresh = _cached(srv.base_url, tmp_path)
    assert _ask(fresh).cached and len(srv.requests) == 1


def test_cache_sees_entries_another_process_appended(chat_server, tmp_path) -> None:
    srv = chat_server(lambda b: "x")
    reader = _cached(srv.base_url, tmp_path)  # opened before the other writer ran
    _ask(_cached(srv.base_url, tmp_path))
    assert _ask(reader).cached and len(srv.requests) == 1


def test_generator_rerun_is_served_from_cache(chat_server, sandbox, task_dir, tmp_path) -> None:
    task, public = task_dir
    srv = chat_server(lambda b: [block("write_verifier", VERIFIER), block("submit")][turn(b)])
    gen = build_model_generator(openai_cfg(srv.base_url), ScaffoldConfig(name="agent"),
                                sandbox=sandbox, spec_for=spec_for(), cache_dir=tmp_path / "c")
    first = gen.generate(task, public, tmp_path / "o1")
    second = gen.generate(task, public, tmp_path / "o2")
    assert len(srv.requests) == 2
    assert (first.stats["cache_misses"], second.stats["cache_hits"]) == (2, 2)
    assert gen.cache_stats()["cache_hit_rate"] == 0.5
    assert (second.verifier_dir / "main.py").read_text() == VERIFIER


def _recorded_cfg(path: Path, model: str | None = None) -> RecordedGeneratorConfig:
    return RecordedGeneratorConfig(name="recorded", recording=str(path), model=model,
                                   condition=openai_cfg("http://x").condition)


def test_recorded_provider_replays_a_run_exactly(chat_server, sandbox, task_dir, tmp_path) -> None:
    task, public = task_dir
    srv = chat_server(lambda b: [block("write_verifier", VERIFIER),
                                 block("self_test", '{"call": {}}', "FAIL"), block("submit")][turn(b)])
    live = build_model_generator(openai_cfg(srv.base_url), ScaffoldConfig(name="agent"),
                                 sandbox=sandbox, spec_for=spec_for(), cache_dir=tmp_path / "c")
    rec = live.generate(task, public, tmp_path / "live")
    srv.close()  # the replay must not need the server
    replay = build_model_generator(_recorded_cfg(tmp_path / "c" / "responses.jsonl"),
                                   ScaffoldConfig(name="agent"), sandbox=sandbox,
                                   spec_for=spec_for(), cache_dir=tmp_path / "unused")
    res = replay.generate(task, public, tmp_path / "replay")
    assert res.status == rec.status == SUBMITTED
    assert (res.verifier_dir / "main.py").read_bytes() == (rec.verifier_dir / "main.py").read_bytes()
    assert replay.identity["model"]["recorded_model"] == live.identity["model"]
    assert replay.identity != live.identity


def test_recording_miss_names_file_and_key(chat_server, sandbox, task_dir, tmp_path) -> None:
    srv = chat_server(lambda b: "hello")
    _ask(_cached(srv.base_url, tmp_path / "c"))
    model = RecordedChatModel(tmp_path / "c" / "responses.jsonl")
    assert _ask(model).text == "hello"
    with pytest.raises(RecordingMiss) as e:
        _ask(model, 0.5, seed=3)
    assert e.value.file.endswith("responses.jsonl") and e.value.field.startswith("key ")
    # through a generator the miss ends the task as an error that says the same
    task, public = task_dir
    gen = build_model_generator(_recorded_cfg(tmp_path / "c" / "responses.jsonl"),
                                ScaffoldConfig(name="oneshot"), sandbox=sandbox,
                                spec_for=spec_for(), cache_dir=tmp_path / "unused")
    res = gen.generate(task, public, tmp_path / "out")
    assert res.status == ERROR and "no recorded reply" in res.detail and "key " in res.detail


def test_recording_with_two_models_needs_a_model_name(chat_server, tmp_path) -> None:
    srv = chat_server(lambda b: b["model"])
    _ask(_cached(srv.base_url, tmp_path, model="m1"))
    _ask(_cached(srv.base_url, tmp_path, model="m2"))
    with pytest.raises(InputError, match="generator.model"):
        RecordedChatModel(tmp_path / "responses.jsonl")
    assert _ask(RecordedChatModel(tmp_path / "responses.jsonl", model="m2")).text == "m2"


def test_missing_recording_is_an_input_error(tmp_path) -> None:
    with pytest.raises(InputError) as e:
        make_chat_model(_recorded_cfg(tmp_path / "nope.jsonl"))
    assert e.value.field == "generator.recording" and "recorded.yaml" in e.value.file
