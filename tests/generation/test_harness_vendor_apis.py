"""Codex and Claude Code deliver ``main.py`` through their own tools, over their vendors' APIs.

Codex speaks only the OpenAI Responses API and Claude Code only the Anthropic Messages API. The
real llama.cpp server here answers both, but its one model (SmolLM2-135M) never emits a tool
call, so against it neither harness ever writes a file. These tests therefore put a scripted
streaming endpoint (``vendor_sse.py``) where the model would be: it plays a model that calls
the harness's file-writing tool once and then answers in text. That double is the only stand-in.
The harness programs are the real pinned npm packages, run by monitorbench's HarnessGenerator in
its bubblewrap sandbox, reaching the endpoint only through monitorbench's budgeted proxy; the
verifier they deliver is judged in monitorbench's sandbox.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gen_helpers import VERIFIER_SRC, PeakRss, judged, needs_bwrap, real_harness
from monitorbench.generation.base import SUBMITTED, GenerationResult
from monitorbench.generation.traces import read_trace
from vendor_sse import MessagesServer, ResponsesServer, ScriptedServer

PROMPT_LINE = "Call get_weather for Paris."  # the task's instruction, in the harness prompt
WRITE_CMD = f"cat > /workspace/main.py <<'EOF'\n{VERIFIER_SRC}EOF\n"
RUN_PUBLIC_CMD = "python3 run_public.py '{\"calls\": [1, 2]}'"


def _generate(name: str, server: ScriptedServer, task_dir: Any, out: Path, install_root: Path,
              **kw: Any) -> GenerationResult:
    task, public = task_dir
    try:
        return real_harness(name, server.base_url, install_root, **kw).generate(task, public,
                                                                              out)
    finally:
        server.close()


def _assert_delivered(result: GenerationResult, server: ScriptedServer, public: Path,
                      runtimes_dir: Path) -> list[dict[str, Any]]:
    """What every harness must show: main.py as scripted, judged, each model call traced.
    Returns the trace events for the harness-specific checks."""
    assert result.status == SUBMITTED, result.detail
    assert (result.verifier_dir / "main.py").read_text() == VERIFIER_SRC
    assert judged(result, public, runtimes_dir) == ["PASS", "FAIL"]
    events = read_trace(result.trace_path)
    model = [e for e in events if e["event"] == "model"]
    assert len(model) == len(server.requests) >= 2  # every call went through the proxy
    assert {e["path"].split("?")[0] for e in model} == {server.path} and server.other == []
    assert all(e["http_status"] == 200 for e in model)
    assert "main.py is written." in model[-1]["reply"]
    assert [e for e in events if e["event"] == "error"] == []
    return events


@pytest.mark.slow
@needs_bwrap
def test_codex_writes_main_py_and_it_is_judged(task_dir, tmp_path: Path, install_root: Path,
                                                runtimes_dir: Path) -> None:
    """Codex 0.171 over ``POST /v1/responses``: the scripted model calls its ``exec_command``
    tool (the shell tool it offers a model it has no metadata for) with a heredoc that writes
    main.py, then answers in text."""
    server = ResponsesServer([{"call": "exec_command",
                               "arguments": {"cmd": WRITE_CMD, "workdir": "/workspace"}},
                              {"text": "main.py is written."}])
    result = _generate("codex", server, task_dir, tmp_path / "out", install_root)
    events = _assert_delivered(result, server, task_dir[1], runtimes_dir)
    first, second = server.requests[0], server.requests[1]
    assert "exec_command" in {t.get("name") for t in first["tools"]}  # the tool we scripted
    assert PROMPT_LINE in json.dumps(first["input"])
    # Codex ran the command and sent its result back to the model under the scripted call id
    outputs = [i for i in second["input"] if i.get("type") == "function_call_output"]
    assert [o["call_id"] for o in outputs] == ["call_0"]
    tools = [e for e in events if e["event"] == "tool"]
    assert [t["harness_tool"] for t in tools] == ["exec_command"]
    assert "/workspace/main.py" in tools[0]["args"]
    assert any(e["event"] == "tool_result" and "exited with code 0" in e["output"]
               for e in events)
    rollouts = list((tmp_path / "out" / "home" / "codex" / "sessions").glob("**/*.jsonl"))
    assert len(rollouts) == 1  # the native trajectory is kept
    # issue 44: Codex puts a server-side web_search tool in every request and no reply cap; the
    # endpoint gets neither the tool nor a foreign max_tokens, and the cap in max_output_tokens
    for body in server.requests:
        assert "web_search" not in {t.get("type") for t in body["tools"]}
        assert body["max_output_tokens"] == 256 and "max_tokens" not in body
        assert body["store"] is False
    model = [e for e in events if e["event"] == "model"]
    assert all("tools:web_search" in e["capped"]["stripped"][0] for e in model)


@pytest.mark.slow
@needs_bwrap
def test_claude_code_writes_main_py_and_it_is_judged(task_dir, tmp_path: Path,
                                                      install_root: Path,
                                                      runtimes_dir: Path) -> None:
    """Claude Code over ``POST /v1/messages``: the scripted model calls its ``Write`` tool with
    ``file_path`` and ``content``, then answers in text."""
    server = MessagesServer([{"tool": "Write", "input": {"file_path": "/workspace/main.py",
                                                         "content": VERIFIER_SRC}},
                             {"text": "main.py is written."}])
    result = _generate("claude_code", server, task_dir, tmp_path / "out", install_root)
    events = _assert_delivered(result, server, task_dir[1], runtimes_dir)
    first, last = server.requests[0], server.requests[-1]
    assert "Write" in {t.get("name") for t in first["tools"]}
    assert PROMPT_LINE in json.dumps(first["messages"])
    results = [b for m in last["messages"] if m["role"] == "user"
               for b in (m["content"] if isinstance(m["content"], list) else [])
               if b.get("type") == "tool_result"]
    assert [(b["tool_use_id"], b.get("is_error", False)) for b in results] == [("toolu_0",
                                                                               False)]
    tools = [e for e in events if e["event"] == "tool"]
    assert [t["harness_tool"] for t in tools] == ["Write"]
    assert json.loads(tools[0]["args"]) == {"file_path": "/workspace/main.py",
                                            "content": VERIFIER_SRC}
    assert [e["is_error"] for e in events if e["event"] == "tool_result"] == [False]
    transcripts = list((tmp_path / "out" / "home" / "claude" / "projects").glob("**/*.jsonl"))
    assert len(transcripts) == 1  # the native trajectory is kept
    # issue 44: only Claude Code's own (typeless, client-side) tools, the Messages fields, the
    # reply cap in max_tokens, and no thinking budget reach the endpoint
    for body in server.requests:
        assert {t.get("type") for t in body["tools"]} == {None}
        assert body["max_tokens"] == 256 and "budget_tokens" not in body.get("thinking", {})
        assert not {"mcp_servers", "service_tier", "container", "store"} & set(body)


@pytest.mark.slow
@needs_bwrap
@pytest.mark.parametrize("name,why", [
    ("codex", 'codex: turn failed: {"error": {"message": "monitorbench budget exhausted: step '
              'limit (1 model calls)", "type": "budget_exhausted"}}'),
    ("claude_code", "claude code: error_max_turns: Reached maximum number of turns (1)")],
    ids=["codex", "claude_code"])
def test_harness_stopped_by_the_step_budget_says_why_in_the_trace(
        name: str, why: str, task_dir, tmp_path: Path, install_root: Path) -> None:
    """max_steps=1: the scripted model's first answer (the write) is its only one. Codex asks
    again and the proxy refuses; Claude Code stops at its own ``--max-turns``. Either way the
    harness ends at once (exit 1, not at the wall clock), what it wrote is still delivered, and
    the trace holds the harness's own account of why it stopped."""
    server = (ResponsesServer([{"call": "exec_command", "arguments": {"cmd": WRITE_CMD}}])
              if name == "codex" else
              MessagesServer([{"tool": "Write", "input": {"file_path": "/workspace/main.py",
                                                          "content": VERIFIER_SRC}}]))
    result = _generate(name, server, task_dir, tmp_path / "out", install_root, max_steps=1,
                       wall=300.0)
    assert len(server.requests) == 1
    assert result.status == SUBMITTED, result.detail
    events = read_trace(result.trace_path)
    exit_ = [e for e in events if e["event"] == "harness_exit"]
    assert exit_[0]["returncode"] == 1 and exit_[0]["seconds"] < 120
    assert [e["detail"] for e in events if e["event"] == "error"] == [why]


@pytest.mark.slow
@needs_bwrap
@pytest.mark.parametrize("name", ["codex", "claude_code"])
def test_harness_runs_run_public_through_its_shell_tool(
        name: str, task_dir, tmp_path: Path, install_root: Path, runtimes_dir: Path) -> None:
    """The generation-time ``run_public`` command works from each harness's own shell tool
    (Codex's ``exec_command``, Claude Code's ``Bash``, which its print mode denies unless
    permissions are bypassed): the call runs in monitorbench's sandbox on the ``echo`` runtime,
    is budgeted and traced, and its output comes back to the model as the tool's result."""
    if name == "codex":
        server: ScriptedServer = ResponsesServer([
            {"call": "exec_command", "arguments": {"cmd": RUN_PUBLIC_CMD}},
            {"call": "exec_command", "arguments": {"cmd": WRITE_CMD}},
            {"text": "main.py is written."}])
    else:
        server = MessagesServer([
            {"tool": "Bash", "input": {"command": RUN_PUBLIC_CMD, "description": "try it"}},
            {"tool": "Bash", "input": {"command": WRITE_CMD, "description": "write main.py"}},
            {"text": "main.py is written."}])
    result = _generate(name, server, task_dir, tmp_path / "out", install_root,
                       runtimes_dir=runtimes_dir)
    events = _assert_delivered(result, server, task_dir[1], runtimes_dir)
    runs = [e for e in events if e["event"] == "run_public"]
    assert [e["status"] for e in runs] == ["ok"] and runs[0]["args"] == {"calls": [1, 2]}
    assert result.stats["executions_used"] == 1.0
    assert '"echo": [1, 2]' in runs[0]["output"]  # the echo runtime answered
    # ... and that answer reached the model as the tool's result, in the next request
    assert any(runs[0]["output"] in text for text in _tool_results(server.requests[1]))


def _tool_results(body: dict[str, Any]) -> list[str]:
    """The tool outputs a harness sent back to the model in one request (Responses
    ``function_call_output`` items, Messages ``tool_result`` blocks)."""
    out = [str(i.get("output")) for i in body.get("input") or []
           if isinstance(i, dict) and i.get("type") == "function_call_output"]
    for m in body.get("messages") or []:
        for b in m["content"] if isinstance(m["content"], list) else []:
            if b.get("type") == "tool_result":
                c = b.get("content")
                out.append(c if isinstance(c, str) else "".join(
                    x.get("text", "") for x in c or [] if isinstance(x, dict)))
    return out


# What a hostile model makes the harness run (issue 44): write into the socket directory, build
# 1,100-deep trees in every writable place, plant a 100k-record native trajectory where the
# framework reads it. PLANT_AT / RECORD are the harness's own trajectory path and record shape.
HOSTILE_PY = r'''
import os
try:
    os.mkdir("/mb/sock/x"); print("SOCK_WRITTEN")
except OSError as e:
    print("SOCK_REFUSED", e.strerror)
for root in ("/tmp", "/workspace", "/home/harness"):
    os.chdir(root); os.mkdir("deep"); os.chdir("deep")
    for _ in range(1100):
        os.mkdir("d"); os.chdir("d")
os.makedirs(PLANT_AT, exist_ok=True)
for f in range(5):
    with open(f"{PLANT_AT}/planted{f}.jsonl", "w") as out:
        out.write((RECORD + "\n") * 20_000)
print("PLANTED")
'''
PLANTS = {
    "codex": ("/home/harness/codex/sessions/planted",
              '{"payload": {"type": "function_call", "name": "x", "arguments": "{}"}}'),
    "claude_code": ("/home/harness/claude/projects/planted",
                    '{"message": {"content": [{"type": "tool_use", "name": "x", "input": {}}]}}'),
}


def _hostile_command(name: str) -> str:
    at, record = PLANTS[name]
    code = HOSTILE_PY.replace("PLANT_AT", repr(at)).replace("RECORD", repr(record))
    return f"python3 - <<'PYEOF'\n{code}PYEOF\n"


@pytest.mark.slow
@needs_bwrap
@pytest.mark.parametrize("name", ["codex", "claude_code"])
def test_a_hostile_model_leaves_nothing_on_the_host_and_a_bounded_trace(
        name: str, task_dir, tmp_path: Path, install_root: Path, runtimes_dir: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 44 through the real Codex (Responses) and Claude Code (Messages): the scripted
    endpoint plays a hostile model whose shell tool call writes into ``/mb/sock``, builds
    1,100-deep trees in /tmp, workspace and HOME and plants 100k trajectory records, then has
    main.py written. The socket directory refuses the write (the harness still reaches the
    model through it), the generation keeps its own outcome (main.py delivered and judged, not
    ``error``), no host directory of the sandbox is left, the trace stops at its cap with one
    ``truncated`` event, and the framework's peak RSS rises by under 200 MiB."""
    from monitorbench.generation.harnesses import generator as gen_mod
    from monitorbench.generation.traces import MAX_EVENTS

    made: list[str] = []
    real_mkdtemp = gen_mod.tempfile.mkdtemp
    monkeypatch.setattr(gen_mod.tempfile, "mkdtemp",
                        lambda *a, **k: made.append(real_mkdtemp(*a, **k)) or made[-1])
    attack = _hostile_command(name)
    if name == "codex":
        server: ScriptedServer = ResponsesServer([
            {"call": "exec_command", "arguments": {"cmd": attack, "workdir": "/workspace"}},
            {"call": "exec_command", "arguments": {"cmd": WRITE_CMD, "workdir": "/workspace"}},
            {"text": "main.py is written."}])
    else:
        server = MessagesServer([
            {"tool": "Bash", "input": {"command": attack, "description": "attack"}},
            {"tool": "Write", "input": {"file_path": "/workspace/main.py",
                                        "content": VERIFIER_SRC}},
            {"text": "main.py is written."}])
    rss = PeakRss()
    result = _generate(name, server, task_dir, tmp_path / "out", install_root)
    assert result.status == SUBMITTED, result.detail
    assert judged(result, task_dir[1], runtimes_dir) == ["PASS", "FAIL"]
    told = " ".join(_tool_results(server.requests[1]))
    assert "SOCK_REFUSED Read-only file system" in told and "PLANTED" in told, told[:2000]
    # the harness sandbox's one host directory (beside it, the verifier sandbox's readable
    # copy of the 0700 workspace, when run_public judges): every one of them gone
    harness_dirs = [m for m in made if Path(m).name.startswith("mbh.")]
    assert len(harness_dirs) == 1 and not any(os.path.lexists(m) for m in made), made
    assert not [p for p in os.listdir("/tmp")
                if p.startswith(f".discard-{Path(harness_dirs[0]).name}")]
    events = read_trace(result.trace_path)
    assert len(events) <= MAX_EVENTS + 3
    assert [e["event"] for e in events].count("truncated") == 1
    assert rss.rise_mib() < 200, f"peak RSS rose {rss.rise_mib():.0f} MiB"
