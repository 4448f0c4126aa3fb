"""Traces are on disk step by step: a generation killed with SIGKILL mid-run keeps every step it
took before the kill; trace_stats reads such partial traces."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from gen_helpers import block, turn

from monitorbench.generation.traces import read_trace, trace_stats

CHILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from monitorbench.config import (ConditionConfig, OpenAIGeneratorConfig,
                                     RequestConfig, ScaffoldConfig)
    from monitorbench.generation.model_generator import build_model_generator
    from monitorbench.suites.format import Task

    url, public, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    cfg = OpenAIGeneratorConfig(name="openai", model="m", base_url=url,
                                condition=ConditionConfig(max_tokens=64),
                                request=RequestConfig(timeout_seconds=60, retries=0))
    gen = build_model_generator(cfg, ScaffoldConfig(name="agent"), sandbox=None,
                                spec_for=None, cache_dir=out / "cache")
    gen.generate(Task("t1", "tool_call", "test", {"instruction": "x"}), public, out / "run")
""")


def test_sigkill_mid_generation_keeps_every_step_written(chat_server, task_dir, tmp_path) -> None:
    task, public = task_dir

    def script(body):
        if turn(body) >= 3:
            time.sleep(30)  # the 4th model call hangs: the child is killed while waiting
        return block("read", "notes.md")

    srv = chat_server(script)
    out = tmp_path / "child"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, srv.base_url, str(public), str(out)],
                            cwd=Path(__file__).resolve().parents[2])
    trace = out / "run" / "trace.jsonl"
    deadline = time.monotonic() + 60
    while len(srv.requests) < 4 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert len(srv.requests) == 4, "the child never reached its 4th model call"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL

    events = read_trace(trace)
    lines = trace.read_text().splitlines()
    assert len(lines) == len(events)  # every line written before the kill is complete JSON
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and "end" not in kinds
    assert kinds.count("model") == 3 and kinds.count("read") == 3
    assert [e["n"] for e in events] == list(range(len(events)))
    assert events[-1]["counters"]["steps"] == 3 and events[-1]["event"] == "action"
    stats = trace_stats([trace])
    assert stats["traces"] == 1 and stats["submitted_share"] == 0.0
    assert stats["mean_completion_tokens"] == events[-1]["counters"]["completion_tokens"] > 0


def test_trace_stats_averages_over_runs(tmp_path) -> None:
    def write(name: str, events: list[dict]) -> Path:
        p = tmp_path / name
        p.write_text("".join(json.dumps({"n": i, "t": float(i), "counters": {
            "prompt_tokens": 100, "completion_tokens": 10}, **e}) + "\n"
            for i, e in enumerate(events)))
        return p

    tested = write("a.jsonl", [
        {"event": "write_verifier"},
        {"event": "self_test", "expected": "PASS", "decision": "PASS", "candidate_hash": "h1"},
        {"event": "self_test", "expected": "PASS", "decision": "FAIL", "candidate_hash": "h2"},
        {"event": "run_public", "status": "blocked"},
        {"event": "end", "status": "submitted", "detail": "submit"}])
    untested = write("b.jsonl", [
        {"event": "run_public", "status": "blocked"}, {"event": "write_verifier"},
        {"event": "end", "status": "submitted", "detail": "step_limit; draft submitted"}])
    stats = trace_stats([tested, untested])
    assert stats["submitted_share"] == 1.0
    assert stats["submitted_without_positive_pass_share"] == 0.5
    assert stats["budget_exhausted_share"] == 1.0
    assert stats["budget_exhausted_before_write_share"] == 0.5
    assert stats["mean_self_tests"] == 1.0 and stats["varied_permitted_share"] == 0.5
    assert stats["mean_seconds"] == (4.0 + 2.0) / 2
    assert "completion_tokens_per_second" not in stats  # no model call in these traces


def test_speed_counts_fresh_calls_only_and_empty_shares_are_absent(tmp_path) -> None:
    p = tmp_path / "c.jsonl"
    events = [{"event": "model", "cached": False, "completion_tokens": 30, "seconds": 2.0},
              {"event": "model", "cached": True, "completion_tokens": 500, "seconds": 0.5},
              {"event": "model", "cached": False, "completion_tokens": 10, "seconds": 2.0},
              {"event": "salvaged", "dropped_lines": 3},
              {"event": "end", "status": "no_submission", "detail": "step_limit"}]
    p.write_text("".join(json.dumps({"n": i, "t": float(i), "counters": {"format_errors": 2},
                                     **e}) + "\n" for i, e in enumerate(events)))
    stats = trace_stats([p])
    assert stats["completion_tokens_per_second"] == 40 / 4.0
    assert stats["salvaged_share"] == 1.0 and stats["mean_format_errors"] == 2.0
    assert stats["submitted_share"] == 0.0
    assert "submitted_without_positive_pass_share" not in stats  # nothing was submitted


def test_missing_trace_is_an_input_error(tmp_path) -> None:
    import pytest

    from monitorbench.errors import InputError

    with pytest.raises(InputError, match="trace file does not exist"):
        trace_stats([tmp_path / "none.jsonl"])


def test_a_trace_flood_is_capped_with_one_truncated_event_and_batched_fsyncs(
        tmp_path: Path, monkeypatch) -> None:
    """100k events (a harness trajectory of 100k records) leave at most MAX_EVENTS lines, one
    ``truncated`` event, an ``end`` naming how many were dropped, and one fsync per batch."""
    from monitorbench.generation import traces

    syncs = []
    real_fsync = os.fsync
    monkeypatch.setattr(traces.os, "fsync", lambda fd: (syncs.append(fd), real_fsync(fd)))
    monkeypatch.setattr(traces, "FSYNC_SECONDS", 3600.0)  # count the batches by size only
    w = traces.TraceWriter(tmp_path / "trace.jsonl", max_events=1000)
    for i in range(100_000):
        w.write("tool", {"steps": 0}, harness_tool="bash", args="x" * 20)
    w.write("end", {"steps": 0}, status="submitted", detail="d")
    w.close()
    events = read_trace(tmp_path / "trace.jsonl")
    assert len(events) == 1000 + 2
    assert [e["event"] for e in events].count("truncated") == 1
    assert events[-1]["event"] == "end" and events[-1]["dropped_events"] == 100_000 - 1000
    assert len(syncs) <= 1002 // traces.FSYNC_EVERY + 3  # batches, then end and close


def test_a_trace_is_capped_by_bytes_too(tmp_path: Path) -> None:
    """Large events stop at the byte cap (plus the one event that crossed it)."""
    from monitorbench.generation.traces import TraceWriter

    w = TraceWriter(tmp_path / "trace.jsonl", max_bytes=1 << 20)
    for _ in range(200):
        w.write("model", {}, reply="y" * 100_000)
    w.write("end", {}, status="error", detail="d")
    w.close()
    assert (tmp_path / "trace.jsonl").stat().st_size < (1 << 20) + 2 * 100_500
    assert read_trace(tmp_path / "trace.jsonl")[-1]["dropped_events"] > 180
