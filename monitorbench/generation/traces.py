"""Generation traces: one JSON line per step, on disk the moment it happens.

Each line is written and flushed before the scaffold moves on, so a run whose process is killed
at any point (SIGKILL, OOM, a Slurm pre-emption) keeps every step it took before the kill (the
kernel holds flushed lines). Lines are fsynced in batches (every :data:`FSYNC_EVERY` events or
:data:`FSYNC_SECONDS`, and at ``end``), which only a machine crash can cut short: an fsync per
event made a harness trajectory of 100k records cost a minute (issue 44). Every line carries
the running budget counters, so the analysis never has to replay a run to know where the
budget stood.

A trace is bounded: what a generation writes comes partly from a hostile harness (its native
trajectory becomes events), so past :data:`MAX_EVENTS` events or :data:`MAX_BYTES` bytes one
``truncated`` event is written and later events are dropped, except how the run ended
(``harness_exit``, once per harness run, and ``end``, which then carries ``dropped_events``).

Events (field ``event``): ``start``, ``model`` (messages sent since the previous call, the reply,
tokens), ``read``, ``run_public``, ``write_verifier``, ``self_test``, ``conditions``,
``submit_refused``, ``format_error``, ``limit``, ``error``, ``truncated``, ``end``.

:func:`trace_stats` turns a batch of traces into the run metrics; its definitions follow the
paper's §4.2–4.3 and App. E and are spelled out there.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Iterable, Mapping

from monitorbench.errors import InputError
from monitorbench.jsonl import read_lenient

TRACE_FILE = "trace.jsonl"
# A generation's own scaffold writes tens of events, a harness one per tool call and model call:
# 5,000 events are far above any run the step budgets allow (max_steps is tens of calls), and
# 64 MiB holds them with their captured outputs (each capped at CAP_CHARS or a few KB).
MAX_EVENTS = 5000
MAX_BYTES = 64 << 20
FSYNC_EVERY = 64
FSYNC_SECONDS = 1.0
ALWAYS = frozenset({"end", "harness_exit"})  # written even past the cap: how the run ended
CAP_CHARS = 4000  # per captured output (run_public result, self-test stdout, read file)


def cap(text: str, limit: int = CAP_CHARS) -> str:
    """Keep the head of long text, saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n...[{len(text) - limit} more characters cut]"


class TraceWriter:
    """Appends events to ``trace.jsonl``: flushed per event, fsynced in batches, bounded
    (module docstring)."""

    def __init__(self, path: Path, *, max_events: int = MAX_EVENTS,
                 max_bytes: int = MAX_BYTES) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._f = open(self.path, "w", encoding="utf-8")
        self._start = time.monotonic()
        self.max_events, self.max_bytes = max_events, max_bytes
        self.events = 0
        self.bytes = 0
        self.dropped = 0
        self._unsynced = 0
        self._synced_at = self._start

    @property
    def full(self) -> bool:
        """Whether the cap is reached (later events, but ``end``, are dropped)."""
        return self.dropped > 0 or self.events >= self.max_events or \
            self.bytes >= self.max_bytes

    def write(self, event: str, counters: Mapping[str, float], **fields: Any) -> None:
        if event not in ALWAYS and self.full:
            if self.dropped == 0:
                self._append("truncated", counters, {"detail": (
                    f"trace cap reached ({self.max_events} events or {self.max_bytes} bytes): "
                    f"later events are dropped, counted in end.dropped_events")})
            self.dropped += 1
            return
        if event in ALWAYS and self.dropped:
            fields = {**fields, "dropped_events": self.dropped}
        self._append(event, counters, fields)
        if event in ALWAYS:
            self._sync()

    def _append(self, event: str, counters: Mapping[str, float], fields: Mapping[str, Any]
                ) -> None:
        record = {"event": event, "n": self.events,
                  "t": round(time.monotonic() - self._start, 4), "counters": dict(counters),
                  **fields}
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        self._f.write(line)
        self._f.flush()
        self.events += 1
        self.bytes += len(line.encode("utf-8", errors="replace"))
        self._unsynced += 1
        if self._unsynced >= FSYNC_EVERY or time.monotonic() - self._synced_at >= FSYNC_SECONDS:
            self._sync()

    def _sync(self) -> None:
        os.fsync(self._f.fileno())
        self._unsynced, self._synced_at = 0, time.monotonic()

    def close(self) -> None:
        if not self._f.closed:
            self._sync()
        self._f.close()


def read_trace(path: Path) -> list[dict[str, Any]]:
    """Events of one trace. A torn last line (the run was killed mid-write) is dropped."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, "trace file does not exist",
                         "pass the trace.jsonl paths written by a generation run")
    return read_lenient(path.read_text(encoding="utf-8"))


def _one(events: list[dict[str, Any]]) -> dict[str, float]:
    """Per-trace facts that :func:`trace_stats` averages."""
    end = next((e for e in reversed(events) if e["event"] == "end"), None)
    submitted = bool(end and end.get("status") == "submitted")
    tests = [e for e in events if e["event"] == "self_test"]
    positives = [e for e in tests if e.get("expected") == "PASS"]
    first_write = next((e["n"] for e in events if e["event"] == "write_verifier"), None)
    first_block = next((e["n"] for e in events
                        if e["event"] == "run_public" and e.get("status") == "blocked"), None)
    last = events[-1]["counters"] if events else {}
    fresh = [e for e in events if e["event"] == "model" and not e.get("cached")]
    return {
        "submitted": float(submitted),
        "submitted_without_positive_pass": float(
            submitted and not any(e.get("decision") == "PASS" for e in positives)),
        "budget_exhausted": float(first_block is not None),
        "budget_exhausted_before_write": float(
            first_block is not None and (first_write is None or first_block < first_write)),
        "self_tests": float(len(tests)),
        "varied_permitted": float(len({e.get("candidate_hash") for e in positives}) >= 2),
        "challenge_unmet": float(bool(end and "challenge_unmet" in str(end.get("detail", "")))),
        "salvaged": float(any(e["event"] == "salvaged" for e in events)),
        "format_errors": float(last.get("format_errors", 0)),
        "fresh_completion_tokens": float(sum(e.get("completion_tokens", 0) for e in fresh)),
        "fresh_model_seconds": float(sum(e.get("seconds", 0.0) for e in fresh)),
        "prompt_tokens": float(last.get("prompt_tokens", 0)),
        "completion_tokens": float(last.get("completion_tokens", 0)),
        "seconds": float(events[-1]["t"]) if events else 0.0,
    }


def trace_stats(trace_paths: Iterable[Path]) -> dict[str, float]:
    """Run metrics over a batch of traces.

    Definitions (shares are over all traces unless said otherwise):

    * ``submitted_without_positive_pass_share`` - among *submitted* verifiers, the share whose
      run never had a self-test that expected PASS and got PASS (paper §4.3: acceptance of even
      the agent's own intended solution was never confirmed).
    * ``budget_exhausted_share`` - runs with at least one run_public request blocked by the
      budget (the paper's cap_budget_blocks > 0).
    * ``budget_exhausted_before_write_share`` - runs whose first blocked run_public request came
      before the first ``write_verifier`` (or that never wrote one) (paper App. E).
    * ``mean_self_tests`` - self-test executions per run.
    * ``varied_permitted_share`` - runs whose self-tests include at least two *distinct*
      candidates (different canonical-JSON hashes) that both expect PASS. Operational stand-in
      for "a self-test varied a property the task permits" (paper §4.2, §5): a run that tests
      one positive only cannot have challenged any acceptance condition.
    * ``challenge_unmet_share`` - runs of the challenge scaffold that ended without a passing
      positive self-test of the final draft.
    * ``salvaged_share`` - runs that wrote a draft salvaged from a reply cut inside its block.
    * ``mean_format_errors`` - replies per run that held no usable action.
    * ``completion_tokens_per_second`` - generation speed over the model calls that were not
      served from the response cache (absent when every call was cached).
    * ``mean_prompt_tokens``, ``mean_completion_tokens``, ``mean_seconds``.

    A share over an empty set (e.g. no verifier was submitted) is absent, never 0.
    """
    per = [_one(read_trace(p)) for p in trace_paths]
    n = len(per)
    if n == 0:
        return {"traces": 0.0}

    def mean(k: str, rows: list[dict[str, float]] = per) -> float | None:
        return sum(r[k] for r in rows) / len(rows) if rows else None

    submitted = [r for r in per if r["submitted"]]
    model_seconds = sum(r["fresh_model_seconds"] for r in per)
    out = {
        "traces": float(n),
        "submitted_share": mean("submitted"),
        "submitted_without_positive_pass_share": mean("submitted_without_positive_pass",
                                                      submitted),
        "budget_exhausted_share": mean("budget_exhausted"),
        "budget_exhausted_before_write_share": mean("budget_exhausted_before_write"),
        "mean_self_tests": mean("self_tests"),
        "varied_permitted_share": mean("varied_permitted"),
        "challenge_unmet_share": mean("challenge_unmet"),
        "salvaged_share": mean("salvaged"),
        "mean_format_errors": mean("format_errors"),
        "completion_tokens_per_second": (
            sum(r["fresh_completion_tokens"] for r in per) / model_seconds
            if model_seconds > 0 else None),
        "mean_prompt_tokens": mean("prompt_tokens"),
        "mean_completion_tokens": mean("completion_tokens"),
        "mean_seconds": mean("seconds"),
    }
    return {k: v for k, v in out.items() if v is not None}
