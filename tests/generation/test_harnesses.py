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
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from gen_helpers import TASK_PUBLIC, openai_cfg, spec_for
from monitorbench.config import ConditionConfig, HarnessConfig, ScaffoldConfig
from monitorbench.errors import InputError
from monitorbench.generation.base import NO_SUBMISSION, SUBMITTED
from monitorbench.generation.harnesses.generator import (HarnessGenerator,
                                                         build_harness_generator)
from monitorbench.generation.harnesses.install import Package
from monitorbench.generation.harnesses.spec import Harness, HarnessRun
from monitorbench.generation.traces import read_trace, trace_stats
from monitorbench.sandbox.bwrap import BwrapSandbox, bwrap_usable
from monitorbench.suites.format import Task

needs_bwrap = pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap cannot run here")

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
                   command=command, native_events=lambda home: iter(()))


def _generator(harness: Harness, base_url: str, tmp: Path, *, wall: float = 60.0,
               output_bytes: int = 100_000, sandbox=None, runtime: str = "none"
               ) -> HarnessGenerator:
    gen = openai_cfg(base_url)
    gen.condition = ConditionConfig(max_tokens=64, wall_seconds=wall)
    scaffold = ScaffoldConfig(name="probe", max_steps=3, run_public_budget=2,
                              harness=HarnessConfig(name="probe", output_bytes=output_bytes))
    from monitorbench.generation.models.factory import make_chat_model
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
    assert seen["other_port"] is False and seen["dns"] is False
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
def test_step_budget_is_enforced_at_the_proxy(chat_server, task_dir, tmp_path: Path) -> None:
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
    cfg = openai_cfg(server.base_url)
    cfg.provider = "transformers"
    with pytest.raises(InputError, match="needs an HTTP endpoint"):
        build_harness_generator(cfg, ScaffoldConfig(name="pi", harness=HarnessConfig(name="pi")),
                                sandbox=None, spec_for=None)
