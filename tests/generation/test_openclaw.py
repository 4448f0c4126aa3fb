"""OpenClaw (npm ``openclaw``, run by the Node 24 installed beside it) as a harness scaffold.

The slow tests install the real pinned OpenClaw and run ``openclaw agent exec`` in monitorbench's
bubblewrap sandbox, reaching the endpoint only through the budgeted proxy. One drives it against
the real llama.cpp server (SmolLM2-135M). The other needs a model that calls OpenClaw's ``write``
tool, which SmolLM2 never does (its chat template has no tool calling), so there a scripted
streaming endpoint (``SSEServer``) plays that model; it is the only stand-in, and the verifier
OpenClaw writes through its own tool is judged in monitorbench's sandbox.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from gen_helpers import VERIFIER_SRC, SSEServer, judged, needs_bwrap, openai_cfg
from monitorbench.config import ConditionConfig, ScaffoldConfig
from monitorbench.generation.base import NO_SUBMISSION, SUBMITTED
from monitorbench.generation.harnesses.generator import HarnessGenerator
from monitorbench.generation.harnesses.openclaw import OPENCLAW, STATE, TRANSCRIPT
from monitorbench.generation.traces import read_trace, trace_stats
from monitorbench.providers.factory import make_chat_model

CONF = Path(__file__).resolve().parents[2] / "conf"
# OpenClaw estimates its own prompt at ~9.7k tokens (SmolLM2 counts ~6k): told an 8192 window,
# it cuts the reply to 1 token. The shipped scaffold tells it 16384; the server must hold that.
N_CTX = 16384


def _openclaw(base_url: str, install_root: Path, *, model: str = "scripted-model",
              max_steps: int = 4, max_tokens: int = 256, wall: float = 600.0
              ) -> HarnessGenerator:
    """OpenClaw as ``scaffold=openclaw`` (the shipped conf/scaffold/openclaw.yaml) runs it:
    installed under ``install_root`` on first use, bubblewrap sandbox, endpoint proxy."""
    from omegaconf import OmegaConf

    scaffold = OmegaConf.to_object(OmegaConf.merge(
        OmegaConf.structured(ScaffoldConfig),
        OmegaConf.load(CONF / "scaffold" / "openclaw.yaml"),
        {"max_steps": max_steps, "run_public_budget": 2}))
    assert scaffold.harness.context_window == N_CTX
    gen = openai_cfg(base_url, model=model)
    gen.condition = ConditionConfig(max_tokens=max_tokens, wall_seconds=wall)
    return HarnessGenerator(OPENCLAW, make_chat_model(gen), gen, scaffold, api_key=None,
                            sandbox=None, spec_for=None, install_root=install_root)


def _transcript(out: Path) -> list[dict]:
    """The messages of OpenClaw's native transcript as monitorbench kept it."""
    lines = (out / "home" / TRANSCRIPT).read_text().splitlines()
    return [e["message"] for e in map(json.loads, lines) if e.get("type") == "message"]


def test_scaffold_openclaw_composes_to_the_openclaw_harness(chat_server, tmp_path: Path) -> None:
    """``scaffold=openclaw`` from conf/ selects the pinned OpenClaw harness generator."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from monitorbench.config import register_configs
    from monitorbench.generation.factory import make_generator

    register_configs()
    server = chat_server(lambda body: "ok")
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose("config", overrides=["scaffold=openclaw", "generator=openai",
                                           f"generator.base_url={server.base_url}",
                                           "generator.api_key_env=null"])
    g = make_generator(OmegaConf.to_object(cfg.generator), OmegaConf.to_object(cfg.scaffold),
                       sandbox=None, spec_for=lambda t: None, cache_dir=tmp_path)
    assert isinstance(g, HarnessGenerator)
    assert g.identity["harness"] == "openclaw"
    assert g.identity["package"] == "openclaw@2026.9.6"


@pytest.mark.slow
@pytest.mark.installs("openclaw")
@pytest.mark.timeout(1500)  # install (~85-120 s) plus a ~6k-token prompt on a loaded 2-core box
@needs_bwrap
def test_openclaw_drives_the_real_local_model_server(task_dir, tmp_path: Path,
                                                     install_root: Path) -> None:
    """OpenClaw's request (its ~6k-token system prompt and tools plus the task) reaches the
    real llama.cpp server through the proxy and the reply comes back into its transcript."""
    pytest.importorskip("xllamacpp")
    from monitorbench.providers.local_server import LocalServer

    task, public = task_dir
    with LocalServer(n_ctx=N_CTX) as server:
        g = _openclaw(server.base_url, install_root, model=server.model_name, max_steps=1,
                      max_tokens=128, wall=1200.0)
        result = g.generate(task, public, tmp_path / "out")
    events = read_trace(result.trace_path)
    model = [e for e in events if e["event"] == "model"]
    assert len(model) == 1, [e["event"] for e in events]  # max_steps=1
    assert model[0]["http_status"] == 200 and 0 < model[0]["completion_tokens"] <= 128
    assert model[0]["prompt_tokens"] > 4000  # OpenClaw's own prompt, not just the task
    assert result.status in (SUBMITTED, NO_SUBMISSION)
    assert events[-1]["event"] == "end"
    replies = [m for m in _transcript(tmp_path / "out") if m["role"] == "assistant"]
    assert replies and replies[0]["usage"]["input"] == model[0]["prompt_tokens"]
    assert trace_stats([result.trace_path])["mean_prompt_tokens"] > 4000


@pytest.mark.slow
@pytest.mark.installs("openclaw")
@pytest.mark.timeout(1500)
@needs_bwrap
def test_openclaw_writes_main_py_with_its_write_tool_and_it_is_judged(
        task_dir, tmp_path: Path, install_root: Path, runtimes_dir: Path) -> None:
    """Scripted tool-calling endpoint (see the module docstring). The verifier carries a long
    comment so OpenClaw stores the write call zstd-compressed: the trace still shows it, so the
    in-sandbox transcript export decoded it."""
    task, public = task_dir
    source = "".join(f"# check {i}: the call names get_weather and gives a city\n"
                     for i in range(60)) + VERIFIER_SRC
    write = {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {
        "name": "write", "arguments": json.dumps({"path": "/workspace/main.py",
                                                  "content": source})}}]}
    server = SSEServer([write, {"content": "main.py is written."}])
    try:
        result = _openclaw(server.base_url, install_root).generate(task, public,
                                                                   tmp_path / "out")
    finally:
        server.close()
    assert result.status == SUBMITTED, result.detail
    assert (result.verifier_dir / "main.py").read_text() == source
    assert judged(result, public, runtimes_dir) == ["PASS", "FAIL"]
    events = read_trace(result.trace_path)
    assert [e["event"] for e in events].count("model") == len(server.requests) == 2
    writes = [e for e in events if e["event"] == "tool" and e["harness_tool"] == "write"]
    assert len(writes) == 1 and "check 0: the call names get_weather" in writes[0]["args"]
    assert [e.get("is_error") for e in events if e["event"] == "tool_result"] == [False]
    assert not [e for e in events if e["event"] == "error"]
    db = tmp_path / "out" / "home" / STATE / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        compressed = con.execute("SELECT count(*) FROM transcript_events "
                                 "WHERE event_zstd IS NOT NULL").fetchone()[0]
    assert compressed >= 1
    assert any("Call get_weather for Paris." in json.dumps(r["messages"])
               for r in server.requests)


def test_openclaw_is_told_the_endpoint_window_and_reply_cap(tmp_path: Path) -> None:
    """The provider OpenClaw gets points at the endpoint with the scaffold's context window and
    the condition's reply cap (it would otherwise assume a vendor model's window)."""
    from monitorbench.config import HarnessConfig
    from monitorbench.generation.harnesses.openclaw import CONFIG, command
    from monitorbench.generation.harnesses.spec import HarnessRun

    run = HarnessRun(install_dir=tmp_path / "inst", home=tmp_path, model="m",
                     base_url="http://127.0.0.1:9/v1", prompt="do it",
                     scaffold=ScaffoldConfig(harness=HarnessConfig(name="openclaw",
                                                                   context_window=12000)),
                     condition=ConditionConfig(max_tokens=300, wall_seconds=100.0))
    argv, env = command(run)
    cfg = json.loads((tmp_path / CONFIG).read_text())
    provider = cfg["models"]["providers"]["monitorbench"]
    assert provider["baseUrl"] == "http://127.0.0.1:9/v1" and cfg["models"]["mode"] == "replace"
    assert provider["models"][0]["contextWindow"] == 12000
    assert provider["models"][0]["maxTokens"] == 300
    assert cfg["agents"]["defaults"]["model"]["primary"] == "monitorbench/m"
    assert (tmp_path / "prompt.md").read_text() == "do it"
    assert str(tmp_path / "inst" / "node_modules" / ".bin" / "node") in argv
    assert env["OPENCLAW_NO_AUTO_UPDATE"] == "1"
