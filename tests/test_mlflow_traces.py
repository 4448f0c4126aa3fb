"""Generation traces become MLflow traces linked to the job's run (the run's Traces tab)."""

from __future__ import annotations

import os
from pathlib import Path

from monitorbench.generation.traces import TraceWriter
from monitorbench.tracking.mlflow_traces import log_generation_traces


def test_trace_events_become_spans_of_one_trace_per_task(tmp_path: Path,
                                                         monkeypatch) -> None:
    from mlflow.tracking import MlflowClient

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    path = tmp_path / "t" / "trace.jsonl"
    w = TraceWriter(path)
    w.write("start", {"steps": 0}, task_id="bfcl.simple_python_1")
    w.write("model", {"steps": 1}, messages=[{"role": "user", "content": "write verify"}],
            reply="def verify(c, env): return 'PASS'", prompt_tokens=12, completion_tokens=9)
    w.write("self_test", {"steps": 2}, candidate={"calls": []}, outcome="P")
    w.write("end", {"steps": 2}, status="submitted")
    w.close()
    (tmp_path / "bad.jsonl").write_text("{not json\n")

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    exp = client.create_experiment("t", artifact_location=(tmp_path / "art").as_uri())
    run = client.create_run(exp).info.run_id
    n = log_generation_traces(client, run, exp, {"bfcl.simple_python_1": path,
                                                 "broken": tmp_path / "bad.jsonl"})
    assert n == 1  # the malformed trace is skipped with a warning, not fatal
    # the next job of this process must still pick its own store
    assert "MLFLOW_TRACKING_URI" not in os.environ
    [trace] = client.search_traces(locations=[exp], run_id=run)
    spans = trace.data.spans
    assert [s.name for s in spans] == ["generate bfcl.simple_python_1", "start", "model",
                                       "self_test", "end"]
    model = spans[2]
    assert model.inputs["messages"][0]["content"] == "write verify"
    assert model.outputs["reply"].startswith("def verify")
    assert trace.info.request_metadata.get("mlflow.sourceRun") == run


def test_a_harness_trace_shows_what_was_sent_and_the_native_tool_calls(tmp_path: Path,
                                                                       monkeypatch) -> None:
    """A harness generation's trace (the endpoint proxy's model call with the request it
    ``sent``, the harness's own tool call and its result, events as the harness modules write
    them) becomes spans whose inputs are the request and the tool call, not empty."""
    from mlflow.tracking import MlflowClient

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    path = tmp_path / "t" / "trace.jsonl"
    w = TraceWriter(path)
    w.write("start", {}, harness="pi", package="@mariozechner/pi-coding-agent@0.73.1")
    w.write("model", {"model_calls": 1}, path="/v1/chat/completions",
            sent=[{"role": "user", "content": "write main.py"}], reply="ok", http_status=200)
    w.write("tool", {"model_calls": 1}, native=True, harness_tool="bash",
            args="cat > main.py <<'EOF'")
    w.write("tool_result", {"model_calls": 1}, native=True, harness_tool="bash",
            is_error=False, output="")
    w.write("end", {"model_calls": 1}, status="submitted")
    w.close()

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    exp = client.create_experiment("t", artifact_location=(tmp_path / "art").as_uri())
    run = client.create_run(exp).info.run_id
    assert log_generation_traces(client, run, exp, {"bfcl.simple_python_1": path}) == 1
    [trace] = client.search_traces(locations=[exp], run_id=run)
    spans = {s.name: s for s in trace.data.spans}
    assert spans["model"].inputs["sent"][0]["content"] == "write main.py"
    assert spans["model"].outputs["reply"] == "ok"
    assert spans["tool"].inputs == {"harness_tool": "bash", "args": "cat > main.py <<'EOF'"}
    assert spans["tool"].span_type == "TOOL" and spans["tool_result"].span_type == "TOOL"


def test_a_verifier_without_a_verdict_on_any_case_has_a_failed_trace(tmp_path: Path,
                                                                     monkeypatch) -> None:
    """The generation went cleanly, but the verifier returned None on every case (all U): the
    Traces tab must not say "Success"; a verifier with one verdict keeps an OK trace."""
    from mlflow.tracking import MlflowClient

    from monitorbench.hashing import sha256_text

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    paths = {}
    for task in ("none_everywhere", "one_verdict"):
        paths[task] = tmp_path / task / "trace.jsonl"
        w = TraceWriter(paths[task])
        w.write("start", {"steps": 0}, task_id=task)
        code = "def verify(candidate, env):\n    return None\n"
        w.write("write_verifier", {"steps": 1}, chars=len(code), sha256=sha256_text(code)[:16])
        w.write("end", {"steps": 1}, status="submitted")
        w.close()
        (paths[task].parent / "verifier").mkdir()
        (paths[task].parent / "verifier" / "main.py").write_text(code)  # as the scaffold leaves it
    records = [{"task_id": "none_everywhere", "outcome": "U", "reason": "invalid_output"}] * 3
    records += [{"task_id": "one_verdict", "outcome": "U", "reason": "invalid_output"},
                {"task_id": "one_verdict", "outcome": "F", "reason": None}]
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    exp = client.create_experiment("t", artifact_location=(tmp_path / "art").as_uri())
    run = client.create_run(exp).info.run_id
    assert log_generation_traces(client, run, exp, paths, records) == 2
    states = {t.info.tags["monitorbench.task_id"]: t for t in
              client.search_traces(locations=[exp], run_id=run)}
    assert str(states["none_everywhere"].info.state).endswith("ERROR")
    assert str(states["one_verdict"].info.state).endswith("OK")
    spans = states["none_everywhere"].data.spans
    root, write = spans[0], next(x for x in spans if x.name == "write_verifier")
    assert root.outputs["judged"]["reasons"] == {"invalid_output": 3}
    assert write.outputs["code"] == code                  # the code, not only its hash
