"""Harness scaffolds: real agent programs (Pi, mini-swe-agent) writing verifiers through a real
llama.cpp server, isolated by bubblewrap.

The isolation tests run a probe program (python3) in the same harness sandbox a real harness
gets, because only a program written to try can show what is *not* reachable (a real harness
never tries to read the hidden directory or dial another port). The hang and flood tests use
such a program too: no real harness hangs or floods on demand. Everything else is real: bwrap,
the endpoint proxy, the run_public bridge into monitorbench's sandbox, the installs, the
harnesses and the model server.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from gen_helpers import (VERIFIER_SRC, SSEServer, judged, needs_bwrap, openai_cfg, real_harness,
                         spec_for)
from monitorbench.config import ConditionConfig, HarnessConfig, ScaffoldConfig
from monitorbench.errors import InputError
from monitorbench.generation.base import NO_SUBMISSION, SUBMITTED
from monitorbench.generation.harnesses.generator import (HarnessGenerator,
                                                         build_harness_generator)
from monitorbench.generation.harnesses.install import Package
from monitorbench.generation.harnesses.spec import Harness, HarnessRun
from monitorbench.generation.traces import read_trace, trace_stats
from monitorbench.sandbox.bwrap import BwrapSandbox

PROBE = r'''
import json, os, socket, sys, urllib.request
hidden, other_port, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = {"hidden_exists": os.path.exists(hidden), "repo_exists": os.path.exists(sys.argv[4]),
       "home": os.environ.get("HOME"), "workspace": sorted(os.listdir("."))}
def dial(host, p):
    s = socket.socket(); s.settimeout(3)
    try:
        s.connect((host, p)); return True
    except OSError:
        return False
    finally:
        s.close()
out["other_port"] = dial("127.0.0.1", other_port)
out["external"] = dial("1.1.1.1", 443)
out["dns"] = True
try:
    socket.getaddrinfo("pypi.org", 443)
except OSError:
    out["dns"] = False
req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions",
    data=json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode(),
    headers={"Content-Type": "application/json"})
out["endpoint"] = json.loads(urllib.request.urlopen(req, timeout=30).read())["choices"][0][
    "message"]["content"]
rp = os.popen("python3 run_public.py '{\"calls\": [1, 2]}'").read()
out["run_public"] = rp
open("main.py", "w").write("def verify(candidate, env):\n    return 'PASS'\n")
open("helper.py", "w").write("X = 1\n")
print(json.dumps(out))
'''


def _probe_harness(code: str, *args: str) -> Harness:
    """A harness whose program is python3 running ``code`` (see the module docstring)."""
    def command(run: HarnessRun) -> tuple[list[str], dict[str, str]]:
        (run.home / "probe.py").write_text(code)
        return ["python3", "/home/harness/probe.py", *args], {}

    return Harness(name="probe", package=Package("npm", "probe", "0"), reach="test program",
                   command=command, native_events=lambda home, log: iter(()))


def _generator(harness: Harness, base_url: str, tmp: Path, *, wall: float = 60.0,
               output_bytes: int = 100_000, sandbox=None, runtime: str = "none"
               ) -> HarnessGenerator:
    gen = openai_cfg(base_url)
    gen.condition = ConditionConfig(max_tokens=64, wall_seconds=wall)
    scaffold = ScaffoldConfig(name="probe", max_steps=3, run_public_budget=2,
                              harness=HarnessConfig(name="probe", output_bytes=output_bytes))
    from monitorbench.providers.factory import make_chat_model
    g = HarnessGenerator(harness, make_chat_model(gen), gen, scaffold, api_key=None,
                         sandbox=sandbox, spec_for=spec_for(runtime) if sandbox else None,
                         install_root=tmp / "harnesses")
    (tmp / "harnesses" / "probe-0").mkdir(parents=True)
    (tmp / "harnesses" / "probe-0" / "install.json").write_text(json.dumps(
        {"harness": "probe", "package": "probe@0", "install_seconds": 0.0}))
    return g


@pytest.fixture
def other_server() -> Iterator[int]:
    """A second loopback service the harness must not reach."""
    class H(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1]
    httpd.shutdown()


@needs_bwrap
def test_harness_sees_only_workspace_and_reaches_only_the_endpoint(
        chat_server, task_dir, tmp_path: Path, other_server: int, runtimes_dir: Path) -> None:
    task, public = task_dir
    server = chat_server(lambda body: "hello from the endpoint")
    port = int(server.base_url.split(":")[2].split("/")[0])
    hidden = public.parent.parent / "hidden"
    harness = _probe_harness(PROBE, str(hidden), str(other_server), str(port),
                             str(Path(__file__).resolve().parents[2]))
    g = _generator(harness, server.base_url, tmp_path, sandbox=BwrapSandbox(runtimes_dir),
                   runtime="echo")
    result = g.generate(task, public, tmp_path / "out")
    seen = json.loads((tmp_path / "out" / "harness_output.log").read_text().splitlines()[-1])
    assert hidden.is_dir() and seen["hidden_exists"] is False
    assert seen["repo_exists"] is False
    assert seen["other_port"] is False and seen["dns"] is False and seen["external"] is False
    assert seen["endpoint"] == "hello from the endpoint"
    assert seen["home"] == "/home/harness"
    assert seen["workspace"] == ["CONTRACT.md", "run_public.py", "task"]
    assert '"echo"' in seen["run_public"]  # ran in monitorbench's sandbox, echo runtime
    assert result.status == SUBMITTED
    assert sorted(p.name for p in result.verifier_dir.iterdir()) == ["helper.py", "main.py"]
    events = read_trace(result.trace_path)
    model = [e for e in events if e["event"] == "model"]
    assert len(model) == 1 and model[0]["reply"] == "hello from the endpoint"
    assert [e["status"] for e in events if e["event"] == "run_public"] == ["ok"]
    assert result.stats["executions_used"] == 1.0


@needs_bwrap
def test_step_budget_is_enforced_at_the_proxy(chat_server, task_dir, tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    """Three calls reach the endpoint, the rest are refused at the proxy; each that reached it
    says so in a step line (issue 48), as a scaffold's model turn does."""
    caplog.set_level("INFO", logger="monitorbench")
    task, public = task_dir
    server = chat_server(lambda body: "ok")
    port = server.base_url.split(":")[2].split("/")[0]
    code = ("import json, sys, urllib.request, urllib.error\n"
            "codes = []\n"
            "for i in range(5):\n"
            "    req = urllib.request.Request(f'http://127.0.0.1:{sys.argv[1]}/v1/chat/"
            "completions', data=json.dumps({'model': 'm', 'messages': [{'role': 'user', "
            "'content': 'hi'}], 'max_tokens': 9999}).encode(), headers={'Content-Type': "
            "'application/json'})\n"
            "    try:\n"
            "        codes.append(urllib.request.urlopen(req).status)\n"
            "    except urllib.error.HTTPError as e:\n"
            "        codes.append(e.code)\n"
            "print(codes)\n")
    result = _generator(_probe_harness(code, port), server.base_url, tmp_path).generate(
        task, public, tmp_path / "out")
    assert (tmp_path / "out" / "harness_output.log").read_text().strip() == \
        "[200, 200, 200, 400, 400]"
    assert len(server.requests) == 3  # max_steps=3: the endpoint never saw the rest
    assert all(r["body"]["max_tokens"] == 64 for r in server.requests)  # condition.max_tokens
    assert result.status == NO_SUBMISSION and "step limit" in result.detail
    assert [e["event"] for e in read_trace(result.trace_path)].count("limit") == 2
    steps = [r.getMessage() for r in caplog.records if ": step " in r.getMessage()]
    assert [re.sub(r"reply \d+/64 tokens, \d+/\d+", "N", m) for m in steps] == [
        f"generation {task.task_id}: step {i}/3, /v1/chat/completions HTTP 200, N tokens in all"
        for i in (1, 2, 3)], steps


@needs_bwrap
def test_an_endpoint_that_dies_mid_reply_is_a_traced_502(task_dir, tmp_path: Path) -> None:
    """A server that promises 1000 bytes and closes after a few (as a model server killed
    mid-stream does): the proxy answers the harness 502 and traces the failed call, instead of
    an exception escaping its handler thread and the harness waiting for ever."""
    task, public = task_dir

    class Dying(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            return None

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"choices": [')
            self.wfile.flush()
            self.close_connection = True

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Dying)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    port = httpd.server_address[1]
    code = ("import json, sys, urllib.request, urllib.error\n"
            "req = urllib.request.Request(f'http://127.0.0.1:{sys.argv[1]}/v1/chat/completions',"
            " data=json.dumps({'model': 'm', 'messages': []}).encode(),"
            " headers={'Content-Type': 'application/json'})\n"
            "try:\n"
            "    print(urllib.request.urlopen(req, timeout=30).status)\n"
            "except urllib.error.HTTPError as e:\n"
            "    print(e.code, e.read().decode())\n")
    try:
        result = _generator(_probe_harness(code, str(port)), f"http://127.0.0.1:{port}/v1",
                            tmp_path).generate(task, public, tmp_path / "out")
    finally:
        httpd.shutdown()
    printed = (tmp_path / "out" / "harness_output.log").read_text().strip()
    assert printed.startswith("502") and "IncompleteRead" in printed
    model = [e for e in read_trace(result.trace_path) if e["event"] == "model"]
    assert [e["http_status"] for e in model] == [502]
    assert result.status == NO_SUBMISSION


@needs_bwrap
@pytest.mark.parametrize("code,reason", [
    ("import time\ntime.sleep(600)\n", "timeout"),
    ("import sys\nopen('main.py', 'w').write('def verify(c, e): return \"PASS\"')\n"
     "while True:\n    sys.stdout.write('x' * 65536)\n", "output_limit"),
])
def test_hanging_or_flooding_harness_ends_without_submission(
        chat_server, task_dir, tmp_path: Path, code: str, reason: str) -> None:
    task, public = task_dir
    server = chat_server(lambda body: "ok")
    g = _generator(_probe_harness(code), server.base_url, tmp_path, wall=5.0)
    result = g.generate(task, public, tmp_path / "out")
    assert result.status == NO_SUBMISSION and result.detail.startswith(reason)
    assert result.verifier_dir is None
    limits = [e for e in read_trace(result.trace_path) if e["event"] == "limit"]
    assert limits and limits[-1]["limit"] == reason
    assert (tmp_path / "out" / "harness_output.log").stat().st_size <= 100_000


def test_cache_identity_names_harness_version_and_model(chat_server) -> None:
    server = chat_server(lambda body: "ok")
    ids = []
    for harness, version, model in [("pi", None, "a"), ("pi", "0.70.0", "a"),
                                    ("pi", None, "b"), ("mini_swe", None, "a")]:
        scaffold = ScaffoldConfig(name=harness, harness=HarnessConfig(name=harness,
                                                                      version=version))
        g = build_harness_generator(openai_cfg(server.base_url, model=model), scaffold,
                                    sandbox=None, spec_for=None)
        ids.append(json.dumps(g.identity, sort_keys=True))
        assert g.identity["harness"] == harness and g.identity["model"]["model"] == model
    assert len(set(ids)) == 4
    assert json.loads(ids[0])["package"] == "@mariozechner/pi-coding-agent@0.73.1"
    assert json.loads(ids[1])["version"] == "0.70.0"


def test_bad_harness_configs_are_input_errors(chat_server) -> None:
    server = chat_server(lambda body: "ok")
    with pytest.raises(InputError, match="unknown harness"):
        build_harness_generator(openai_cfg(server.base_url),
                                ScaffoldConfig(name="x", harness=HarnessConfig(name="nope")),
                                sandbox=None, spec_for=None)
    with pytest.raises(InputError, match="only the Gemini API"):
        build_harness_generator(openai_cfg(server.base_url), ScaffoldConfig(
            name="gemini_cli", harness=HarnessConfig(name="gemini_cli")), sandbox=None,
            spec_for=None)
    cfg = openai_cfg(server.base_url)
    cfg.provider = "transformers"
    with pytest.raises(InputError, match="needs an HTTP endpoint"):
        build_harness_generator(cfg, ScaffoldConfig(name="pi", harness=HarnessConfig(name="pi")),
                                sandbox=None, spec_for=None)


def test_the_scaffold_config_names_the_vendor_fields_the_proxy_lets_through(chat_server
                                                                             ) -> None:
    """``scaffold.harness.allow_vendor_fields`` reaches the generator's proxy allowlist and its
    identity (a run that lets web_search through is not the run that strips it); a name that
    could never match a field is refused, not silently ignored."""
    server = chat_server(lambda body: "ok")

    def build(fields: list[str]):
        return build_harness_generator(openai_cfg(server.base_url), ScaffoldConfig(
            name="pi", harness=HarnessConfig(name="pi", allow_vendor_fields=fields)),
            sandbox=None, spec_for=None)

    strict, open_ = build([]), build(["web_search", "service_tier"])
    assert strict.allowed_fields == frozenset()
    assert open_.allowed_fields == frozenset({"web_search", "service_tier"})
    assert strict.identity != open_.identity
    with pytest.raises(InputError, match="allow_vendor_fields"):
        build(["web search!"])


def test_every_harness_scaffold_config_names_a_registered_harness() -> None:
    import yaml
    from monitorbench.generation.harnesses.registry import HARNESSES

    conf = Path(__file__).resolve().parents[2] / "conf" / "scaffold"
    named = {yaml.safe_load(p.read_text()).get("harness", {}).get("name")
             for p in conf.glob("*.yaml")} - {None}
    assert named == set(HARNESSES)


# --- real harness programs --------------------------------------------------------------------
# Each installs on first use (Pi ~30 s, mini-swe-agent 1-3 min) under a per-session directory;
# conftest starts every install in the background when collection ends. The mini-swe-agent
# tests come last: its pip install (~250 s wall, mostly network) overlaps with the model calls
# of the others instead of stalling the module.

@pytest.mark.slow
@needs_bwrap
@pytest.mark.parametrize("name,path_arg,native", [("pi", "path", "home/sessions"),
                                                  ("opencode", "filePath", "harness_output.log")])
def test_tool_calling_harness_writes_main_py_and_it_is_judged(
        name: str, path_arg: str, native: str, task_dir, tmp_path: Path, install_root: Path,
        runtimes_dir: Path) -> None:
    task, public = task_dir
    write = {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {
        "name": "write", "arguments": json.dumps({path_arg: "/workspace/main.py",
                                                  "content": VERIFIER_SRC})}}]}
    server = SSEServer([write, {"content": "main.py is written."}])
    try:
        result = real_harness(name, server.base_url, install_root).generate(
            task, public, tmp_path / "out")
    finally:
        server.close()
    assert result.status == SUBMITTED, result.detail
    assert (result.verifier_dir / "main.py").read_text() == VERIFIER_SRC
    assert judged(result, public, runtimes_dir) == ["PASS", "FAIL"]
    events = read_trace(result.trace_path)
    assert [e["event"] for e in events].count("model") == len(server.requests) >= 2
    assert any(e["event"] == "tool" and e["harness_tool"] == "write" for e in events)
    assert (tmp_path / "out" / native).exists()  # the native trajectory is kept
    assert any("Call get_weather for Paris." in json.dumps(r["messages"])
               for r in server.requests)


@pytest.mark.slow
@pytest.mark.timeout(1500)  # one harness install plus one model call on a 2-core machine
@needs_bwrap
@pytest.mark.parametrize("name", ["pi", "codex", "claude_code", "mini_swe"])
def test_harness_drives_the_real_local_model_server(
        name: str, task_dir, tmp_path: Path, install_root: Path) -> None:
    """SmolLM2-135M on llama.cpp: the harness's requests reach the real server and come back
    through the proxy (Codex over llama.cpp's Responses API, Claude Code over its Messages
    API, the others over chat completions); whatever the tiny model makes of it is traced,
    never faked."""
    pytest.importorskip("xllamacpp")
    from monitorbench.providers.local_server import LocalServer

    task, public = task_dir
    with LocalServer(n_ctx=8192) as server:
        g = real_harness(name, server.base_url, install_root, model=server.model_name,
                         max_steps=1, max_tokens=128, wall=1200.0)
        result = g.generate(task, public, tmp_path / "out")
    events = read_trace(result.trace_path)
    model = [e for e in events if e["event"] == "model"]
    assert len(model) == 1  # max_steps=1: one call reaches the server, later ones are refused
    assert all(e["http_status"] == 200 and e["completion_tokens"] > 0 for e in model)
    assert all(e["completion_tokens"] <= 128 for e in model)  # the proxy's reply cap held
    assert result.status in (SUBMITTED, NO_SUBMISSION)
    assert events[-1]["event"] == "end"
    stats = trace_stats([result.trace_path])
    assert stats["traces"] == 1.0 and stats["mean_prompt_tokens"] > 0


@pytest.mark.slow
@pytest.mark.installs("mini_swe")
@needs_bwrap
def test_mini_swe_agent_text_mode_writes_main_py_and_it_is_judged(
        chat_server, task_dir, tmp_path: Path, install_root: Path, runtimes_dir: Path) -> None:
    task, public = task_dir
    write = ("THOUGHT: write it.\n```mswea_bash_command\n"
             f"cat <<'EOF' > main.py\n{VERIFIER_SRC}EOF\n```")
    done = "THOUGHT: done.\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"
    server = chat_server(lambda body: write if sum(
        m["role"] == "assistant" for m in body["messages"]) == 0 else done)
    result = real_harness("mini_swe", server.base_url, install_root).generate(
        task, public, tmp_path / "out")
    assert result.status == SUBMITTED, result.detail
    assert (result.verifier_dir / "main.py").read_text() == VERIFIER_SRC
    assert judged(result, public, runtimes_dir) == ["PASS", "FAIL"]
    events = read_trace(result.trace_path)
    assert [e["event"] for e in events].count("model") == 2
    assert [e.get("exit_status") for e in events if e["event"] == "native_exit"] == ["Submitted"]
    assert (tmp_path / "out" / "home" / "trajectory.json").is_file()


def test_scaffold_config_selects_the_harness_generator(chat_server, tmp_path: Path) -> None:
    """``scaffold=pi`` composed from conf/ reaches the harness generator through the factory;
    scripted generators still ignore the scaffold."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from monitorbench.config import register_configs
    from monitorbench.generation.factory import make_generator

    register_configs()
    server = chat_server(lambda body: "ok")
    conf = Path(__file__).resolve().parents[2] / "conf"
    with initialize_config_dir(config_dir=str(conf), version_base="1.3"):
        cfg = compose("config", overrides=["scaffold=pi", "generator=openai",
                                           f"generator.base_url={server.base_url}",
                                           "generator.api_key_env=null"])
        scripted = compose("config", overrides=["scaffold=pi"])
    gen_cfg, scaffold = OmegaConf.to_object(cfg.generator), OmegaConf.to_object(cfg.scaffold)
    g = make_generator(gen_cfg, scaffold, sandbox=None, spec_for=lambda t: None,
                       cache_dir=tmp_path)
    assert isinstance(g, HarnessGenerator) and g.identity["harness"] == "pi"
    assert scaffold.harness.name == "pi" and scaffold.max_steps == 30
    other = make_generator(OmegaConf.to_object(scripted.generator),
                           OmegaConf.to_object(scripted.scaffold), sandbox=None,
                           spec_for=lambda t: None, cache_dir=tmp_path)
    assert not isinstance(other, HarnessGenerator)
