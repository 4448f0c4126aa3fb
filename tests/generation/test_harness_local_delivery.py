"""Constrained decoding for harnesses: ``scaffold.harness.grammar`` makes the endpoint proxy add a
llama.cpp GBNF grammar to every chat-completions request, so a model too small to keep a
harness's action format (SmolLM2-135M in mini-swe-agent's text mode) still sends parseable
actions, and the ``main.py`` it writes is delivered and judged.

The proxy tests run a probe program (python3) in the real harness sandbox, because only a
program written for it sends both a chat-completions and a Responses request on demand; the
endpoint is a real loopback HTTP server that records what reached it. The slow test is real
end to end: llama.cpp serving SmolLM2, mini-swe-agent 2.4.6, bubblewrap, monitorbench's judge.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from gen_helpers import BAD, GOOD, needs_bwrap, openai_cfg, spec_for
from monitorbench.config import ConditionConfig, HarnessConfig, ScaffoldConfig
from monitorbench.errors import InputError
from monitorbench.generation.base import SUBMITTED
from monitorbench.generation.harnesses.generator import (GRAMMARS_DIR, HarnessGenerator,
                                                         build_harness_generator)
from monitorbench.generation.harnesses.install import Package
from monitorbench.generation.harnesses.spec import Harness, HarnessRun
from monitorbench.generation.traces import read_trace
from monitorbench.sandbox.base import U_REASONS
from monitorbench.sandbox.bwrap import BwrapSandbox

# mini-swe-agent 2.4.6's text-mode action regex (LitellmTextbasedModelConfig.action_regex).
MSWEA_ACTION = re.compile(r"```mswea_bash_command\s*\n(.*?)\n```", re.S)

PROBE = r'''
import json, sys, urllib.request
port = sys.argv[1]
for path, body in (("/v1/chat/completions", {"model": "m", "max_tokens": 999,
                    "messages": [{"role": "user", "content": "hi"}]}),
                   ("/v1/responses", {"model": "m", "input": "hi"})):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=30).read()
'''


class RecordingEndpoint:
    """A loopback HTTP endpoint that records each request's path and JSON body and answers
    with a fixed chat completion."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append((self.path, body))
                payload = json.dumps({"choices": [{"index": 0, "finish_reason": "stop", "message":
                                                   {"role": "assistant", "content": "ok"}}],
                                      "usage": {"prompt_tokens": 3, "completion_tokens": 1}})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload.encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"


@pytest.fixture
def endpoint() -> Iterator[RecordingEndpoint]:
    server = RecordingEndpoint()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


def _probe_generator(base_url: str, port: int, grammar: str | None, tmp: Path
                     ) -> HarnessGenerator:
    """A harness whose program is the probe above, with ``scaffold.harness.grammar``."""
    def command(run: HarnessRun) -> tuple[list[str], dict[str, str]]:
        (run.home / "probe.py").write_text(PROBE)
        return ["python3", "/home/harness/probe.py", str(port)], {}

    harness = Harness(name="probe", package=Package("npm", "probe", "0"), reach="test program",
                      command=command, native_events=lambda home, log: iter(()))
    gen = openai_cfg(base_url)
    gen.condition = ConditionConfig(max_tokens=64, wall_seconds=60.0)
    scaffold = ScaffoldConfig(name="probe", max_steps=3,
                              harness=HarnessConfig(name="probe", grammar=grammar))
    from monitorbench.providers.factory import make_chat_model
    (tmp / "harnesses" / "probe-0").mkdir(parents=True)
    (tmp / "harnesses" / "probe-0" / "install.json").write_text(json.dumps(
        {"harness": "probe", "package": "probe@0", "install_seconds": 0.0}))
    return HarnessGenerator(harness, make_chat_model(gen), gen, scaffold, api_key=None,
                            sandbox=None, spec_for=None, install_root=tmp / "harnesses")


@needs_bwrap
@pytest.mark.parametrize("grammar", ["mini_swe_text", None])
def test_proxy_adds_the_grammar_to_chat_completions_only(
        grammar: str | None, endpoint: RecordingEndpoint, task_dir, tmp_path: Path) -> None:
    task, public = task_dir
    g = _probe_generator(endpoint.base_url, endpoint.port, grammar, tmp_path)
    g.generate(task, public, tmp_path / "out")
    (chat_path, chat), (resp_path, resp) = endpoint.requests
    assert (chat_path, resp_path) == ("/v1/chat/completions", "/v1/responses")
    assert chat["max_tokens"] == 64 and chat["messages"][0]["content"] == "hi"
    assert "grammar" not in resp  # Responses requests pass through without it
    if grammar is None:
        assert "grammar" not in chat
    else:
        assert chat["grammar"] == (GRAMMARS_DIR / "mini_swe_text.gbnf").read_text()


def test_grammar_is_part_of_the_cache_identity(endpoint: RecordingEndpoint,
                                               tmp_path: Path) -> None:
    """A grammar given by path is read, and its content (not only its name) keys the cache."""
    path = tmp_path / "g.gbnf"
    ids = []
    for text in ('root ::= "a"\n', 'root ::= "b"\n'):
        path.write_text(text)
        ids.append(build_harness_generator(openai_cfg(endpoint.base_url), ScaffoldConfig(
            name="mini_swe", harness=HarnessConfig(name="mini_swe", grammar=str(path))),
            sandbox=None, spec_for=None).identity["grammar_sha256"])
    plain = build_harness_generator(openai_cfg(endpoint.base_url), ScaffoldConfig(
        name="mini_swe", harness=HarnessConfig(name="mini_swe")), sandbox=None, spec_for=None)
    assert ids[0] != ids[1] and plain.identity["grammar_sha256"] is None


@pytest.mark.parametrize("overrides,grammar", [
    (["+experiment=harness", "scaffold=mini_swe"], "mini_swe_text"),
    (["generator=local", "scaffold=mini_swe"], "mini_swe_text"),
    (["+experiment=harness", "scaffold=mini_swe", "scaffold.harness.grammar=null"], None),
    (["+experiment=harness", "scaffold=mini_swe", "generator=openai"], None),
    (["+experiment=harness", "scaffold=pi"], None),
])
def test_mini_swe_on_the_local_server_gets_the_grammar_by_config(
        overrides: list[str], grammar: str | None) -> None:
    """Only mini_swe on the llama.cpp server gets a grammar (conf/harness_grammar/); another
    endpoint (which may reject the field) or another harness keeps null."""
    from hydra import compose, initialize_config_dir

    from monitorbench.config import register_configs

    register_configs()
    conf = Path(__file__).resolve().parents[2] / "conf"
    with initialize_config_dir(config_dir=str(conf), version_base="1.3"):
        assert compose("config", overrides=overrides).scaffold.harness.grammar == grammar


@pytest.mark.parametrize("value,problem", [
    ("mini_swe_txt", "unknown grammar 'mini_swe_txt'"),
    ("/nonexistent/g.gbnf", "does not exist"),
    ("EMPTY", "not a GBNF grammar"),
])
def test_bad_grammar_is_an_input_error(value: str, problem: str, endpoint: RecordingEndpoint,
                                       tmp_path: Path) -> None:
    if value == "EMPTY":
        value = str(tmp_path / "empty.gbnf")
        Path(value).write_text("# nothing here\n")
    with pytest.raises(InputError, match=re.escape(problem)) as err:
        build_harness_generator(openai_cfg(endpoint.base_url), ScaffoldConfig(
            name="mini_swe", harness=HarnessConfig(name="mini_swe", grammar=value)),
            sandbox=None, spec_for=None)
    text = str(err.value)
    assert "conf/scaffold/mini_swe.yaml" in text and "scaffold.harness.grammar" in text
    if problem.startswith("unknown"):
        assert "mini_swe_text" in text  # the fix lists the shipped grammars


@pytest.mark.slow
@pytest.mark.installs("mini_swe")
@pytest.mark.timeout(1800)  # mini-swe-agent install (1-3 min) plus SmolLM2 calls on 2 cores
@needs_bwrap
def test_mini_swe_agent_with_grammar_delivers_smollm2s_main_py_and_it_is_judged(
        task_dir, tmp_path: Path, install_root: Path, runtimes_dir: Path) -> None:
    """SmolLM2-135M on the real llama.cpp server, mini-swe-agent in text mode, the shipped
    grammar: its replies parse as actions, the main.py it wrote is delivered and judged (its
    verdicts are whatever the tiny model's verifier makes of the cases)."""
    pytest.importorskip("xllamacpp")
    from monitorbench.providers.factory import make_chat_model
    from monitorbench.generation.harnesses.registry import HARNESSES
    from monitorbench.providers.local_server import LocalServer

    task, public = task_dir
    with LocalServer(n_ctx=8192) as server:
        gen = openai_cfg(server.base_url, model=server.model_name)
        gen.condition = ConditionConfig(max_tokens=384, wall_seconds=1200.0)
        scaffold = ScaffoldConfig(name="mini_swe", max_steps=2, run_public_budget=2, harness=
                                  HarnessConfig(name="mini_swe", grammar="mini_swe_text"))
        g = HarnessGenerator(HARNESSES["mini_swe"], make_chat_model(gen), gen, scaffold,
                             api_key=None, sandbox=None, spec_for=None, install_root=install_root)
        result = g.generate(task, public, tmp_path / "out")
    events = read_trace(result.trace_path)
    model = [e for e in events if e["event"] == "model"]
    assert model and all(e["http_status"] == 200 for e in model)
    assert all(len(MSWEA_ACTION.findall(e["reply"])) == 1 for e in model), model
    assert not [e for e in events if e["event"] == "format_error"]
    writes = [e for e in events if e["event"] == "tool" and "> main.py" in e["args"]]
    assert writes, "no action wrote main.py"
    assert result.status == SUBMITTED, result.detail
    main = (result.verifier_dir / "main.py").read_text()
    assert any(main.strip().splitlines()[0] in e["reply"] for e in model)  # the model's lines
    end = events[-1]
    assert end["event"] == "end" and end["status"] == SUBMITTED and "main.py delivered" in \
        end["detail"]
    with BwrapSandbox(runtimes_dir).session(result.verifier_dir, public, spec_for()(None)) as s:
        verdicts = [s.judge(GOOD), s.judge(BAD)]
    assert all(v.outcome in "PF" or v.reason in U_REASONS for v in verdicts), verdicts
