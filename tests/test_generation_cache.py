"""Baseline and replay generators through the content-addressed generation cache."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from monitorbench.errors import InputError
from monitorbench.generation.base import NO_SUBMISSION, SUBMITTED, cache_key, verifier_hash
from monitorbench.generation.baselines import ScriptedGenerator
from monitorbench.generation.factory import GenerationCache
from monitorbench.generation.replay import ReplayGenerator
from monitorbench.suites.format import Task

TASK = Task("demo.t1", "tool_call", "demo", {"instruction": "call f", "tools": []})
TASK2 = Task("demo.t2", "tool_call", "demo", {"instruction": "call g", "tools": []})


def test_cache_hit_on_rerun_and_paths_point_into_the_cache(tmp_path: Path) -> None:
    cache = GenerationCache(tmp_path / "gen")
    gen = ScriptedGenerator("always_reject")
    r1 = cache.get_or_generate(gen, TASK, tmp_path)
    r2 = cache.get_or_generate(gen, TASK, tmp_path)
    assert (cache.hits, cache.misses) == (1, 1)
    assert r1.status == r2.status == SUBMITTED
    assert r1.verifier_dir == r2.verifier_dir
    assert r2.verifier_dir.is_relative_to(tmp_path / "gen")
    assert '"FAIL"' in (r2.verifier_dir / "main.py").read_text()
    stored = json.loads((r2.verifier_dir.parent / "result.json").read_text())
    assert stored["verifier_dir"] == "verifier"  # relative: outputs/ may move


def test_different_generators_never_share_an_entry(tmp_path: Path) -> None:
    a, b = ScriptedGenerator("always_accept"), ScriptedGenerator("always_reject")
    assert cache_key(a.identity, TASK) != cache_key(b.identity, TASK)
    assert cache_key(a.identity, TASK) != cache_key(a.identity, TASK2)


def test_unknown_baseline_names_the_field() -> None:
    with pytest.raises(InputError, match="generator.baseline"):
        ScriptedGenerator("always_maybe")


def test_replay_copies_verifiers_and_marks_missing_ones(tmp_path: Path) -> None:
    src = tmp_path / "external"
    (src / "demo.t1").mkdir(parents=True)
    (src / "demo.t1" / "main.py").write_text("def verify(c, env):\n    return 'PASS'\n")
    (src / "demo.t1" / "helper.py").write_text("X = 1\n")
    gen = ReplayGenerator(src)
    cache = GenerationCache(tmp_path / "gen")
    r1 = cache.get_or_generate(gen, TASK, tmp_path)
    r2 = cache.get_or_generate(gen, TASK2, tmp_path)
    assert r1.status == SUBMITTED and (r1.verifier_dir / "helper.py").is_file()
    assert r2.status == NO_SUBMISSION and r2.verifier_dir is None
    # editing an external verifier changes the identity: no stale reuse
    before = dict(gen.identity)
    (src / "demo.t1" / "main.py").write_text("def verify(c, env):\n    return 'FAIL'\n")
    assert ReplayGenerator(src).identity != before


def test_replay_without_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="generator.dir"):
        ReplayGenerator(None)
    with pytest.raises(InputError, match="does not exist"):
        ReplayGenerator(tmp_path / "nope")


def test_a_crashing_generator_is_recorded_not_fatal(tmp_path: Path) -> None:
    class Broken:
        identity = {"kind": "broken"}

        def generate(self, task, public_dir, out_dir):
            raise RuntimeError("model server down")

    r = GenerationCache(tmp_path / "gen").get_or_generate(Broken(), TASK, tmp_path)
    assert r.status == "error" and "model server down" in r.detail and r.verifier_dir is None


def test_an_error_is_not_cached_so_the_next_run_tries_again(tmp_path: Path) -> None:
    class FlakyOnce:
        identity = {"kind": "flaky"}
        calls = 0

        def generate(self, task, public_dir, out_dir):
            FlakyOnce.calls += 1
            if FlakyOnce.calls == 1:
                (Path(out_dir) / "trace.jsonl").write_text('{"event": "error"}\n')
                raise RuntimeError("provider unreachable")
            return ScriptedGenerator("always_accept").generate(task, public_dir, out_dir)

    cache = GenerationCache(tmp_path / "gen")
    first = cache.get_or_generate(FlakyOnce(), TASK, tmp_path)
    assert first.status == "error"
    failed = tmp_path / "gen" / ".failed" / cache_key(FlakyOnce.identity, TASK)
    assert (failed / "trace.jsonl").is_file()  # kept for inspection
    second = cache.get_or_generate(FlakyOnce(), TASK, tmp_path)
    assert second.status == SUBMITTED and FlakyOnce.calls == 2
    assert (cache.hits, cache.misses) == (0, 2)
    assert cache.get_or_generate(FlakyOnce(), TASK, tmp_path).status == SUBMITTED
    assert (cache.hits, FlakyOnce.calls) == (1, 2)



def test_a_twin_job_renaming_the_same_entry_first_is_reused_not_fatal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two identical jobs generate the same entry at once (tests/test_run_lock.py starts two),
    and the twin's rename can land between this job's last look and its own rename. Where it
    falls is up to the scheduler, so the test places it there: a real second cache completes
    the entry just before this job's rename, which then finds the entry complete and keeps it."""
    root = tmp_path / "gen"
    gen = ScriptedGenerator("always_reject")
    real_replace, twin_done = os.replace, []

    def twin_first(src, dst):
        if not twin_done and Path(dst).parent == root:
            twin_done.append(None)   # the twin's own rename goes straight through
            twin_done[0] = GenerationCache(root).get_or_generate(gen, TASK, tmp_path)
        real_replace(src, dst)

    monkeypatch.setattr("monitorbench.generation.factory.os.replace", twin_first)
    r = GenerationCache(root).get_or_generate(gen, TASK, tmp_path)
    assert twin_done[0] is not None and r.status == SUBMITTED
    assert r.verifier_dir == twin_done[0].verifier_dir
    assert '"FAIL"' in (r.verifier_dir / "main.py").read_text()
    assert sorted(p.name for p in root.iterdir()) == [cache_key(gen.identity, TASK)]
