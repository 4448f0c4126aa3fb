"""Generation traces as MLflow traces, so a run's Traces tab shows each verifier's generation
step by step (model calls, reads, run_public, self-tests, submission) with inputs and outputs.

The on-disk ``trace.jsonl`` (:mod:`monitorbench.generation.traces`) stays the record of truth;
this converts it after the fact. Events carry times relative to the trace's start and are written
when their step ends; the absolute start is recovered from the file's modification time (written
at the last event).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from monitorbench.generation.traces import read_trace

log = logging.getLogger(__name__)

# Event fields shown as a span's inputs; everything else (besides bookkeeping) is its output.
# A harness's events (generation/harnesses) name theirs differently: the endpoint proxy's model
# call ``sent`` (the request's messages), a native tool call ``harness_tool`` and ``args``.
_INPUT_FIELDS = ("messages", "path", "arguments", "candidate", "command", "request", "prompt",
                 "sent", "harness_tool", "args")
_BOOKKEEPING = ("event", "n", "t", "counters")
_SPAN_TYPES = {"model": "LLM", "run_public": "TOOL", "self_test": "TOOL", "read": "RETRIEVER",
               "write_verifier": "TOOL", "submit_refused": "TOOL", "tool": "TOOL",
               "tool_result": "TOOL"}


def _split(event: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    inputs = {k: v for k, v in event.items() if k in _INPUT_FIELDS}
    outputs = {k: v for k, v in event.items() if k not in _INPUT_FIELDS and k not in _BOOKKEEPING}
    return inputs, outputs


def judged_outcome(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """How the generated verifier fared on its task's cases, for the trace's root: None when it
    gave a verdict (P or F) on some case; else the count and reasons of its U outcomes. A
    verifier that returned None (or crashed) on every case wrote nothing a judge can use, and
    its trace must not read "Success" however cleanly its generation went."""
    if not records or any(r.get("outcome") in ("P", "F") for r in records):
        return None
    reasons: dict[str, int] = {}
    for r in records:
        reasons[str(r.get("reason") or "unknown")] = reasons.get(str(r.get("reason")
                                                                     or "unknown"), 0) + 1
    return {"verdict": f"no verdict on any of its {len(records)} cases (every outcome U)",
            "reasons": reasons}


def _final_draft(trace: Path) -> tuple[str, str] | None:
    """(hash as the trace writes it, code) of the verifier the generation left beside its trace
    (``verifier/main.py``): a ``write_verifier`` event holds only its draft's hash, so the span
    of the draft that was submitted gets the code itself (earlier drafts are in the model
    replies before them)."""
    from monitorbench.hashing import sha256_text

    main = trace.parent / "verifier" / "main.py"
    if not main.is_file():
        return None
    code = main.read_text(encoding="utf-8", errors="replace")
    return sha256_text(code)[:16], code


def log_trace_file(client: Any, run_id: str, experiment_id: str, task_id: str,
                   path: Path, failed: Mapping[str, Any] | None = None) -> str | None:
    """One MLflow trace (root span = the task's generation, a child span per event); returns
    its id, or None for an empty trace. ``failed`` (:func:`judged_outcome`) marks the trace
    ERROR with what went wrong in its outputs."""
    events = read_trace(path)
    if not events:
        return None
    end_ns = int(path.stat().st_mtime * 1e9)
    start_ns = end_ns - int(float(events[-1]["t"]) * 1e9)
    root = client.start_trace(f"generate {task_id}", span_type="AGENT",
                              inputs={"task_id": task_id}, experiment_id=experiment_id,
                              run_id=run_id, start_time_ns=start_ns,
                              tags={"monitorbench.task_id": task_id})
    final = _final_draft(path)
    for i, event in enumerate(events):
        if event["event"] == "write_verifier" and final and event.get("sha256") == final[0]:
            event = {**event, "code": final[1]}   # the trace keeps only the draft's hash
        # An event is written when its step has finished (a model call, once the reply is in),
        # so its span runs from the previous event to its own time.
        t0 = start_ns + int(float(events[max(i - 1, 0)]["t"]) * 1e9)
        t1 = start_ns + int(float(event["t"]) * 1e9)
        inputs, outputs = _split(event)
        span = client.start_span(str(event["event"]), trace_id=root.trace_id,
                                 parent_id=root.span_id,
                                 span_type=_SPAN_TYPES.get(event["event"], "UNKNOWN"),
                                 inputs=inputs, attributes={"counters": event.get("counters")},
                                 start_time_ns=t0)
        status = "ERROR" if event["event"] in ("error", "format_error") else "OK"
        client.end_span(root.trace_id, span.span_id, outputs=outputs, status=status,
                        end_time_ns=max(t1, t0))
    outputs = _split(events[-1])[1]
    if failed is not None:
        outputs = {**outputs, "judged": failed}
    client.end_trace(root.trace_id, outputs=outputs, end_time_ns=end_ns,
                     status="ERROR" if failed is not None else "OK")
    return root.trace_id


def log_generation_traces(client: Any, run_id: str, experiment_id: str,
                          traces: Mapping[str, Path],
                          records: Sequence[Mapping[str, Any]] = ()) -> int:
    """Log every task's trace, marked ERROR where the task's ``records`` show its verifier gave
    no verdict at all; a trace that cannot be converted is logged as a warning and skipped
    (the JSONL artifact still holds it). Returns how many were logged."""
    import mlflow

    logged = 0
    # MLflow exports finished traces through its process-wide tracer, which writes to the
    # global tracking URI rather than the client's: point it at this run's store meanwhile.
    # set_tracking_uri also exports $MLFLOW_TRACKING_URI, which every later job of this process
    # would read as its store: both are put back exactly as they were (None = never set).
    from mlflow.tracking._tracking_service import utils as tracking_utils

    previous, previous_env = tracking_utils._tracking_uri, os.environ.get("MLFLOW_TRACKING_URI")
    mlflow.set_tracking_uri(client.tracking_uri)
    try:
        for task_id, path in sorted(traces.items()):
            try:
                logged += log_trace_file(
                    client, run_id, experiment_id, task_id, Path(path),
                    judged_outcome([r for r in records if r.get("task_id") == task_id])
                ) is not None
            except Exception as e:  # a malformed trace must not lose the run's other results
                log.warning("trace of %s not logged as an MLflow trace: %s: %s", task_id,
                            type(e).__name__, e)
        mlflow.flush_trace_async_logging()
    finally:
        mlflow.set_tracking_uri(previous)
        if previous_env is None:
            os.environ.pop("MLFLOW_TRACKING_URI", None)
        else:
            os.environ["MLFLOW_TRACKING_URI"] = previous_env
    return logged
