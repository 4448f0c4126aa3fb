"""The real local model server: llama.cpp (xllamacpp) serving the embedded SmolLM2-135M GGUF in a
child process, and the openai-SDK client talking to it. No stand-in anywhere in this file: the
replies, token counts, context-overflow errors and process lifecycle are the real server's."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator

import openai
import pytest

from monitorbench.config import (ConditionConfig, Effort, OpenAIGeneratorConfig,
                                 ScriptedGeneratorConfig)
from monitorbench.errors import InputError
from monitorbench.providers import CachedChatModel, ResponseCache, make_chat_model
from monitorbench.providers.base import ContextOverflow, ModelError
from monitorbench.providers.local_server import (LocalServer, served_file, serving,
                                                  smollm2_gguf)
from monitorbench.providers.openai_sdk import DIALECTS, OpenAIChatModel

pytest.importorskip("xllamacpp")
pytestmark = pytest.mark.slow  # each server start loads the model (~1.5-3 s); the module ~40 s

N_CTX = 1024
MSGS = [{"role": "user", "content": "Name one colour."}]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer(n_ctx=N_CTX, alias="smollm2") as s:
        yield s


def _client(s: LocalServer, **kw) -> OpenAIChatModel:
    return OpenAIChatModel(base_url=s.base_url, model=s.model_name, api_key=None,
                           timeout_seconds=60, retries=1, endpoint_identity=s.identity, **kw)


def test_server_answers_chat_completions_responses_and_messages(server: LocalServer) -> None:
    assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
    sdk = openai.OpenAI(base_url=server.base_url, api_key="EMPTY", max_retries=0, timeout=60)
    assert [m.id for m in sdk.models.list().data] == ["smollm2"] == [server.model_name]
    # llama.cpp reads the embedded model's Q8_0 copy (tests/providers/test_gguf_requant.py)
    argv = Path(f"/proc/{server.pid}/cmdline").read_bytes().split(b"\0")
    assert argv[argv.index(b"--gguf") + 1].decode() == str(served_file(smollm2_gguf()))
    assert served_file(smollm2_gguf()) != smollm2_gguf()
    chat = sdk.chat.completions.create(model=server.model_name, messages=MSGS, max_tokens=8,
                                       temperature=0)
    assert chat.choices[0].message.content and chat.usage.completion_tokens <= 8
    resp = sdk.responses.create(model=server.model_name, input="Name one colour.",
                                max_output_tokens=8)
    assert resp.output_text and resp.usage.output_tokens <= 8
    req = urllib.request.Request(  # Anthropic Messages API (what Claude Code speaks)
        server.base_url + "/messages", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"model": server.model_name, "messages": MSGS, "max_tokens": 8}).encode())
    with urllib.request.urlopen(req, timeout=60) as r:
        msg = json.loads(r.read())
    assert msg["type"] == "message" and msg["content"][0]["text"]


def test_client_counts_real_tokens_and_greedy_replies_repeat(server: LocalServer) -> None:
    m = _client(server)
    a = m.complete(MSGS, max_tokens=12, temperature=0, top_p=1, seed=0, effort=Effort.NONE)
    b = m.complete(MSGS, max_tokens=12, temperature=0, top_p=1, seed=5, effort=Effort.NONE)
    assert a.text and a.text == b.text
    assert not a.tokens_estimated and a.prompt_tokens > 5 and 0 < a.completion_tokens <= 12
    assert m.attempts == 2


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_dialect_is_accepted_by_llama_cpp(server: LocalServer, dialect: str) -> None:
    m = _client(server, dialect=dialect)
    for effort in (Effort.LOW, Effort.HIGH):
        r = m.complete(MSGS, max_tokens=4, temperature=0, top_p=1, seed=0, effort=effort)
        assert 0 < r.completion_tokens <= 4


def test_a_prompt_beyond_the_window_is_a_context_overflow(server: LocalServer) -> None:
    m = _client(server)
    long = [{"role": "user", "content": "word " * (2 * N_CTX)}]
    with pytest.raises(ContextOverflow, match="context size"):
        m.complete(long, max_tokens=4, temperature=0, top_p=1, seed=0, effort=Effort.NONE)
    assert m.attempts == 1  # deterministic for the prompt: never retried


def test_cache_is_keyed_by_weights_not_port_so_a_restarted_server_hits(
        server: LocalServer, tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    first = CachedChatModel(_client(server), cache)
    r1 = first.complete(MSGS, max_tokens=6, temperature=0, top_p=1, seed=0, effort=Effort.NONE)
    with LocalServer(n_ctx=N_CTX, alias="smollm2") as other:  # a fresh process, another port
        assert other.base_url != server.base_url
        inner = _client(other)
        again = CachedChatModel(inner, cache)
        r2 = again.complete(MSGS, max_tokens=6, temperature=0, top_p=1, seed=0,
                            effort=Effort.NONE)
        assert r2.cached and r2.text == r1.text and inner.attempts == 0
        bigger = CachedChatModel(OpenAIChatModel(
            base_url=other.base_url, model=other.model_name, api_key=None,
            endpoint_identity={**other.identity, "n_ctx": 2 * N_CTX}), cache)
        assert not bigger.complete(MSGS, max_tokens=6, temperature=0, top_p=1, seed=0,
                                   effort=Effort.NONE).cached  # another window, another key


def _local_cfg(**kw) -> OpenAIGeneratorConfig:
    return OpenAIGeneratorConfig(name="local", serve="xllamacpp", model="smollm2",
                                 gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf",
                                 condition=ConditionConfig(max_tokens=8), **kw)


def test_serving_fills_the_endpoint_for_the_body_and_stops_the_server_after() -> None:
    cfg = _local_cfg()
    with pytest.raises(InputError, match="not running"):
        make_chat_model(cfg)  # outside serving() there is no endpoint
    with serving(cfg) as served:
        assert served.base_url and served.model == "smollm2"
        model = make_chat_model(served)
        assert "base_url" not in model.identity and model.identity["endpoint"]["weights_sha256"]
        assert model.complete(MSGS, max_tokens=4, temperature=0, top_p=1, seed=0,
                              effort=Effort.NONE).text
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(served.base_url + "/models", timeout=5)
    plain = ScriptedGeneratorConfig()
    with serving(plain) as same:
        assert same is plain
    with pytest.raises(InputError, match="generator.serve"):
        with serving(dataclasses.replace(cfg, serve="vllm")):
            pass


def test_a_killed_parent_leaves_no_server_behind(tmp_path: Path) -> None:
    """The framework process dies without stopping its server (SIGKILL): the child notices and
    exits on its own."""
    script = ("from monitorbench.providers.local_server import LocalServer\n"
              "import time\ns = LocalServer(n_ctx=256).start()\n"
              "print(s.pid, flush=True)\ntime.sleep(600)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        assert _alive(child)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(child)


def test_a_file_that_is_not_a_model_fails_with_the_server_log(tmp_path: Path) -> None:
    bogus = tmp_path / "broken.gguf"
    bogus.write_bytes(b"not a gguf file" * 100)
    with pytest.raises(ModelError, match="exited with code"):
        LocalServer(bogus, ready_timeout=60).start()


def test_embedded_gguf_is_found_and_a_missing_model_is_an_input_error() -> None:
    assert smollm2_gguf().name == "SmolLM2-135M-Instruct.Q4_1.gguf" and smollm2_gguf().is_file()
    with pytest.raises(InputError) as e:
        with serving(dataclasses.replace(_local_cfg(), model="/nonexistent/model.gguf")):
            pass
    assert e.value.field == "generator.model"


def _server_children() -> list[int]:
    """Live local-server processes started by this test process."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmd = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and \
                b"monitorbench.providers.local_server" in cmd:
            out.append(int(stat.parent.name))
    return out


def test_smollm2_experiment_runs_on_the_local_server_and_a_rerun_regenerates_nothing(
        tmp_path: Path, suites_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The default model experiment end to end: the run starts the server, SmolLM2 writes a
    verifier for one BFCL task through the agent scaffold, it is judged, the server is stopped;
    the re-run is served from the caches although its server listens on another port.

    What the run says at the default level (issue 48): the server's start within 30 s, its
    ready line with the load's seconds, one step line per model turn, and the generation's end
    with its reason in words whenever the model did not submit by itself."""
    from monitorbench.launch.run import run_job
    from pipeline_helpers import compose_cfg

    overrides = ["+experiment=smollm2", "task=bfcl", "task.max_tasks_per_type=1",
                 "scaffold.max_steps=2", "generator.condition.max_tokens=96",
                 "tracking.enabled=false"]
    before = _server_children()  # the module's own server may be up
    caplog.set_level("INFO", logger="monitorbench")
    t0 = time.time()
    first = run_job(compose_cfg(tmp_path, suites_dir, overrides))
    _reads_what_the_run_said(caplog.records, t0, int(first["gen/model_calls"]))
    _views_the_run(tmp_path, int(first["gen/model_calls"]))
    assert first["n_tasks"] == 1 and first["cache/generation_misses"] == 1
    assert first["gen/model_calls"] >= 1 and first["gen/completion_tokens"] > 0
    assert first["cache/response/cache_misses"] == first["gen/model_calls"]
    assert first["cache/judgments_new"] > 0 and _server_children() == before
    again = run_job(compose_cfg(tmp_path, suites_dir, overrides))
    assert (again["cache/generation_hits"], again["cache/generation_misses"]) == (1, 0)
    assert (again["cache/judgments_new"] == 0
            and again["cache/judgments_reused"] == first["cache/judgments_new"])
    assert _server_children() == before


def _reads_what_the_run_said(records: list, t0: float, model_calls: int) -> None:
    """The lines of one SmolLM2 run (1 task, max_steps=2), as a user reads them."""
    lines = [(r.created - t0, r.getMessage()) for r in records]
    said = [m for _, m in lines]
    start = [t for t, m in lines if m.startswith("starting llama.cpp's server for ")]
    assert start and start[0] < 30, said
    assert any(re.fullmatch(r"llama\.cpp's server ready in \d+\.\d s: model smollm2 loaded, "
                            r"serving http://127\.0\.0\.1:\d+/v1", m) for m in said), said
    steps = [m for m in said if re.fullmatch(
        r"generation 1/1 \S+: step \d/2, \w+, reply \d+/96 tokens, \d+/\d+ tokens in all", m)]
    assert len(steps) == model_calls >= 1, said
    ends = [m for m in said if re.match(r"generation 1/1 \S+: (submitted|no_submission) in ", m)]
    assert len(ends) == 1, said
    if not ends[0].endswith(": submit"):   # a limit, a missing block, a cut reply: in words
        assert " \u2014 " in ends[0] and re.search(
            r"limit reached|budget spent|context window|no action block|max_tokens=96|"
            r"python block|salvaged", ends[0]), ends[0]


def _views_the_run(outputs: Path, model_calls: int) -> None:
    """``monitorbench view`` on the SmolLM2 run, in Chromium: its task's wrong verdicts (a
    135M model's verifier, or none, gets some wrong), a candidate, the submitted code as the
    generation cache holds it (or the page saying there is none) and the generation trace with
    an event per model turn and the generation's end in words."""
    import shutil

    from monitorbench.generation.base import GenerationResult
    from monitorbench.view.site import build_site, start_server
    from view_browser import read_a_wrong_case

    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian chromium is not installed (bash scripts/install.sh test does it)")
    from playwright.sync_api import sync_playwright

    (run_dir,) = [p for p in (outputs / "runs").iterdir() if p.is_dir()]
    (result_file,) = (outputs / "cache" / "generations").glob("*/result.json")
    result = GenerationResult.from_json(json.loads(result_file.read_text()))
    index = build_site(run_dir, outputs / "view")
    server, url = start_server(index.parent)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium,
                                         args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            case = read_a_wrong_case(page, url)
            body = page.inner_text("body")
            browser.close()
    finally:
        server.shutdown()
    assert case.outcome != {"PASS": "P", "FAIL": "F"}[case.label] and case.candidate.strip()
    if result.verifier_dir is None:
        assert case.code is None and "no verifier code" in body
    else:
        main = result_file.parent / result.verifier_dir / "main.py"
        assert case.code is not None and case.code.strip() == main.read_text().strip()
    assert case.trace[0] == "start" and case.trace[-1] == "end", case.trace
    assert case.trace.count("model") == model_calls, case.trace
    assert result.detail and result.detail[:60] in body
