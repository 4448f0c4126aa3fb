"""A hostile model inside the harness sandbox takes nothing: not the key, not the machine, and
nothing it plants crashes, hangs or leaks into the framework.

The first tests run a probe program (python3) in the real harness sandbox (bwrap, proxy, pids
cgroup, rlimits): a real harness runs exactly such commands when its model asks, and a probe
can do each hostile thing on demand and report what it saw. The planted-file tests read with
the real Pi reader. ``test_real_harness_under_attack`` then drives the real Pi and
mini-swe-agent with a scripted endpoint whose replies are those same commands
(``hostile_endpoint.py``); every check is made from outside the sandbox.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from gen_helpers import PeakRss, needs_bwrap, openai_cfg, spec_for
from hostile_endpoint import CANARY, canary_free
from monitorbench.config import ConditionConfig, HarnessConfig, HarnessLimits, ScaffoldConfig
from monitorbench.generation.base import ERROR, NO_SUBMISSION, SUBMITTED, GenerationResult
from monitorbench.generation.factory import GenerationCache
from monitorbench.generation.harnesses import pi
from monitorbench.generation.harnesses.safe_files import discard
from monitorbench.generation.harnesses.generator import HarnessGenerator
from monitorbench.generation.harnesses.install import Package
from monitorbench.generation.harnesses.spec import Harness, HarnessRun
from monitorbench.generation.traces import read_trace
from monitorbench.providers.factory import make_chat_model
from monitorbench.sandbox.bwrap import BwrapSandbox

KEY_ENV = "MB_HOSTILE_TEST_KEY"
SMALL = HarnessLimits(processes=64, memory_mb=512, file_size_mb=8, cpu_seconds=60,
                      disk_mb=64, disk_entries=5000)


@pytest.fixture(autouse=True)
def canary_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run here has the framework's API key set to the canary."""
    monkeypatch.setenv(KEY_ENV, CANARY)


def _probe(code: str, native=lambda home, log: iter(())) -> Harness:
    def command(run: HarnessRun) -> tuple[list[str], dict[str, str]]:
        (run.home / "probe.py").write_text(code)
        return ["python3", "/home/harness/probe.py"], {}

    return Harness(name="probe", package=Package("npm", "probe", "0"), reach="test program",
                   command=command, native_events=native)


def _generator(harness: Harness, base_url: str, tmp: Path, limits: HarnessLimits = SMALL,
               wall: float = 60.0, allowed_fields: frozenset[str] = frozenset()
               ) -> HarnessGenerator:
    gen = openai_cfg(base_url)
    gen.api_key_env = KEY_ENV
    gen.condition = ConditionConfig(max_tokens=64, wall_seconds=wall)
    scaffold = ScaffoldConfig(name="probe", max_steps=3, run_public_budget=2,
                              harness=HarnessConfig(name="probe", limits=limits))
    g = HarnessGenerator(harness, make_chat_model(gen), gen, scaffold,
                         api_key=os.environ.get(KEY_ENV), sandbox=None, spec_for=None,
                         install_root=tmp / "harnesses", allowed_fields=allowed_fields)
    (tmp / "harnesses" / "probe-0").mkdir(parents=True, exist_ok=True)
    (tmp / "harnesses" / "probe-0" / "install.json").write_text(json.dumps(
        {"harness": "probe", "package": "probe@0", "install_seconds": 0.0}))
    return g


def _seen(out: Path) -> dict:
    return json.loads((out / "harness_output.log").read_text().splitlines()[-1])


SNOOP = r'''
import json, os
found = []
for pid in os.listdir("/proc"):
    for what in ("environ", "cmdline"):
        try:
            data = open(f"/proc/{pid}/{what}", "rb").read()
        except OSError:
            continue
        if b"CANARY" in data:
            found.append(f"{pid}/{what}")
env1 = open("/proc/1/environ", "rb").read().split(b"\0")
names = sorted(e.split(b"=")[0].decode() for e in env1 if e)
print(json.dumps({"found": found, "pid1_env": names}))
'''


@needs_bwrap
def test_no_secret_in_the_harness_sandbox(chat_server, task_dir, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The framework's key (and any other variable of its environment) is in no process's
    environ or cmdline inside; bwrap, pid 1, holds only PATH and LANG (and PWD)."""
    monkeypatch.setenv("MB_OTHER_SECRET", CANARY)
    task, public = task_dir
    server = chat_server(lambda body: "ok")
    _generator(_probe(SNOOP), server.base_url, tmp_path).generate(task, public, tmp_path / "o")
    seen = _seen(tmp_path / "o")
    assert seen["found"] == []
    assert set(seen["pid1_env"]) <= {"LANG", "PATH", "PWD"}  # PWD: the cgroup step's shell
    assert canary_free(tmp_path / "o")


RESOLVE = r'''
import json, socket, time
t = time.monotonic()
try:
    socket.getaddrinfo("api.openai.com", 443)
    error = ""
except OSError as e:
    error = type(e).__name__
print(json.dumps({"resolv": open("/etc/resolv.conf").read(), "error": error,
                  "seconds": time.monotonic() - t}))
'''


@needs_bwrap
def test_a_name_lookup_inside_the_harness_sandbox_fails_at_once(chat_server, task_dir,
                                                                 tmp_path: Path) -> None:
    """The sandbox has no network, and its resolver config is its own, not the host's (whose
    unreachable nameserver kept Codex's static binary waiting 5 s at every exit on its
    background lookups): a lookup is refused on the sandbox's loopback, well inside the 1 s
    timeout the config allows."""
    task, public = task_dir
    server = chat_server(lambda body: "ok")
    _generator(_probe(RESOLVE), server.base_url, tmp_path).generate(task, public, tmp_path / "o")
    seen = _seen(tmp_path / "o")
    assert seen["resolv"] == "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"
    assert seen["error"] == "gaierror" and seen["seconds"] < 1.0


@needs_bwrap
def test_no_secret_in_the_verifier_sandbox(tmp_path: Path, task_dir, runtimes_dir: Path) -> None:
    """The same for the verifier (and run_public) sandbox: a verifier scanning /proc finds no
    variable of the framework's environment."""
    _, public = task_dir
    vdir = tmp_path / "v"
    vdir.mkdir()
    (vdir / "main.py").write_text(
        "import os\n"
        "def verify(candidate, env):\n"
        "    for pid in os.listdir('/proc'):\n"
        "        for what in ('environ', 'cmdline'):\n"
        "            try:\n"
        "                if b'CANARY' in open(f'/proc/{pid}/{what}', 'rb').read():\n"
        "                    return 'FAIL'\n"
        "            except OSError:\n"
        "                pass\n"
        "    return 'PASS'\n")
    with BwrapSandbox(runtimes_dir).session(vdir, public, spec_for("echo")(None)) as s:
        assert s.judge({"call": {}}).decision == "PASS"


FORK_ALLOC_BIG = r'''
import json, os, subprocess, time
out = {}
pids = []
try:
    for _ in range(400):
        pid = os.fork()
        if pid == 0:
            time.sleep(30); os._exit(0)
        pids.append(pid)
except OSError as e:
    out["fork_error"] = e.strerror
out["forked"] = len(pids)
for p in pids:
    os.kill(p, 9)
    os.waitpid(p, 0)
try:
    block = bytearray(1536 << 20)
    out["alloc"] = "succeeded"
except MemoryError:
    out["alloc"] = "refused"
done = subprocess.run("head -c 2G /dev/zero > /workspace/big.bin", shell=True)
out["big_rc"] = done.returncode
open("/workspace/main.py", "w").write("def verify(candidate, env):\n    return 'PASS'\n")
print(json.dumps(out))
'''


@needs_bwrap
def test_processes_memory_and_file_size_are_bounded(chat_server, task_dir,
                                                    tmp_path: Path) -> None:
    """A fork bomb stops at the process limit, a 1.5 GB allocation is refused, a 2 GB file
    stops at the file-size limit and is not kept; the run ends as no_submission with the limit
    in the trace."""
    task, public = task_dir
    server = chat_server(lambda body: "ok")
    g = _generator(_probe(FORK_ALLOC_BIG), server.base_url, tmp_path)
    result = g.generate(task, public, tmp_path / "o")
    seen = _seen(tmp_path / "o")
    assert seen["forked"] < SMALL.processes and seen["fork_error"]
    assert seen["alloc"] == "refused"
    assert seen["big_rc"] != 0
    assert not (tmp_path / "o" / "workspace" / "big.bin").exists()
    assert result.status == NO_SUBMISSION
    limits = [e["limit"] for e in read_trace(result.trace_path) if e["event"] == "limit"]
    assert limits and limits[0] in ("process_limit", "file_size_limit"), result.detail


# Four processes of 150 MB each: every one within its own RLIMIT_DATA (512 MB), together past
# the session's memory cgroup (256 MB). Each holds its 150 MB until every one has either said it
# holds them or been killed (EOF), so all of them are held at once however slowly they start;
# then the program ends (the run's outcome is read when it ends: a fixed sleep only waited).
SPREAD = r'''
import subprocess, sys
kids = [subprocess.Popen([sys.executable, "-c", "import sys; x = bytearray(150 << 20); "
                          "print('held', flush=True); sys.stdin.read()"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        for _ in range(4)]
for kid in kids:
    kid.stdout.readline()
for kid in kids:
    kid.stdin.close()
    kid.wait()
'''


@needs_bwrap
def test_memory_spread_over_processes_is_bounded_by_the_session(chat_server, task_dir,
                                                                tmp_path: Path) -> None:
    """rlimits bound each process alone; the session's memory cgroup bounds them together and
    the run ends as no_submission with memory_limit (skipped where the host gives no writable
    memory controller)."""
    from dataclasses import replace

    from monitorbench.sandbox.cgroup import MemoryCgroup

    probe = MemoryCgroup.create(1 << 30)
    if probe is None:
        pytest.skip("no writable memory cgroup on this host")
    probe.remove()
    task, public = task_dir
    server = chat_server(lambda body: "ok")
    limits = replace(SMALL, session_memory_mb=256)
    result = _generator(_probe(SPREAD), server.base_url, tmp_path, limits=limits).generate(
        task, public, tmp_path / "o")
    assert result.status == NO_SUBMISSION and result.detail.startswith("memory_limit"), \
        result.detail


FILL_DISK = r'''
import os
for i in range(20):
    with open(f"/workspace/f{i}.bin", "wb") as f:
        f.write(os.urandom(7 << 20))
import time; time.sleep(20)
'''


@needs_bwrap
def test_disk_limit_stops_the_run_and_keeps_nothing(chat_server, task_dir, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk check polls the run's directories every DISK_POLL_SECONDS (2 s, read at each
    poll); 0.25 s here stops the run as soon after the limit, by the same check."""
    from monitorbench.generation.harnesses import sandbox

    monkeypatch.setattr(sandbox, "DISK_POLL_SECONDS", 0.25)
    task, public = task_dir
    server = chat_server(lambda body: "ok")
    result = _generator(_probe(FILL_DISK), server.base_url, tmp_path).generate(
        task, public, tmp_path / "o")
    assert result.status == NO_SUBMISSION and result.detail.startswith("disk_limit"), result.detail
    assert list((tmp_path / "o" / "workspace").iterdir()) == []


PLANT = r'''
import os
d = "/home/harness/sessions"
os.makedirs(d)
os.symlink(os.environ["SECRET_FILE"], f"{d}/a-link.jsonl")
os.mkfifo(f"{d}/b-fifo.jsonl")
os.symlink("/nowhere/at/all", f"{d}/c-dangling.jsonl")
open(f"{d}/d-real.jsonl", "w").write('{"type": "message", "message": {"role": "assistant", '
    '"content": [{"type": "toolCall", "name": "bash", "arguments": {"command": "ls"}}]}}\n')
p = "/workspace/deep"
os.makedirs(p)
os.chdir(p)
for _ in range(1100):
    os.mkdir("d"); os.chdir("d")
open("/workspace/main.py", "w").write("X = 1\n" * 250_000)
'''


@needs_bwrap
def test_planted_files_are_never_followed(chat_server, task_dir, tmp_path: Path) -> None:
    """A symlink to a host file, a FIFO and a dangling link in Pi's session directory, 1,100-deep
    directories and a 1.5 MB main.py: the run ends as no_submission naming the size cap, the
    host file's content is nowhere, nothing hangs, and the kept directory holds no link, FIFO or
    deep tree."""
    secret = tmp_path / "host_secret.txt"
    secret.write_text('{"type": "message", "message": {"role": "assistant", "content": '
                      '[{"type": "toolCall", "name": "HOSTSECRET", "arguments": {}}]}}\n')
    task, public = task_dir
    server = chat_server(lambda body: "ok")
    harness = _probe(PLANT.replace('os.environ["SECRET_FILE"]', repr(str(secret))),
                     native=pi.native_events)
    result = _generator(harness, server.base_url, tmp_path).generate(task, public, tmp_path / "o")
    assert result.status == NO_SUBMISSION
    assert "main.py refused" in result.detail and "over the cap" in result.detail
    text = result.trace_path.read_text()
    assert "HOSTSECRET" not in text
    assert '"harness_tool": "bash"' in text  # the real session file was read
    kept = [p for p, dirs, files in os.walk(tmp_path / "o") for _ in [0]]
    assert max(len(Path(p).relative_to(tmp_path / "o").parts) for p in kept) < 80
    for p, dirs, files in os.walk(tmp_path / "o"):
        for name in dirs + files:
            assert not os.path.islink(os.path.join(p, name)), name


class _Failing:
    identity = {"kind": "failing"}

    def generate(self, task, public_dir: Path, out_dir: Path) -> GenerationResult:
        d = out_dir / "deep"
        d.mkdir()
        os.chdir(d)
        try:
            for _ in range(1100):
                os.mkdir("d")
                os.chdir("d")
        finally:
            os.chdir(out_dir.parent.parent)
        raise RecursionError("generator bug")


def test_failed_cache_entry_never_blocks_the_next_run(task_dir, tmp_path: Path) -> None:
    """A failed generation that left a 1,100-deep tree is kept under .failed; the next run of the
    same configuration replaces it instead of dying in rmtree."""
    task, public = task_dir
    cwd = os.getcwd()
    try:
        cache = GenerationCache(tmp_path / "cache")
        for _ in range(2):
            result = cache.get_or_generate(_Failing(), task, public)
            assert result.status == ERROR and "RecursionError" in result.detail
    finally:
        os.chdir(cwd)
    assert len(list((tmp_path / "cache" / ".failed").iterdir())) == 1
    discard(tmp_path / "cache")  # pytest's own cleanup of old tmp dirs would recurse
    assert not (tmp_path / "cache").exists()


# --- the real harnesses, driven by a hostile scripted model -------------------------------------

REAL = HarnessLimits(processes=128, memory_mb=1024, file_size_mb=64, cpu_seconds=600,
                     disk_mb=256, disk_entries=5000)


@pytest.fixture(scope="module")
def harness_root(install_root: Path) -> Path:
    """Where the real harnesses are installed: the session's install root, or an existing one
    named by MB_TEST_HARNESS_ROOT (mini-swe-agent takes minutes to install on 2 cores)."""
    return Path(os.environ.get("MB_TEST_HARNESS_ROOT") or install_root)


@pytest.mark.slow
@pytest.mark.timeout(1500)  # a first install of mini-swe-agent on a busy 2-core machine
@needs_bwrap
@pytest.mark.parametrize("name", ["pi", "mini_swe"])
def test_real_harness_under_attack(name: str, chat_server, task_dir, tmp_path: Path,
                                   harness_root: Path) -> None:
    """One generation per harness runs every attack (hostile_endpoint.attack) through the real
    program; each is checked from outside: the requests the endpoint received (they carry the
    commands' output), the trace, and the generation's directory."""
    from gen_helpers import SSEServer
    from hostile_endpoint import MARKERS, attack, mini_swe_script, pi_turns
    from monitorbench.generation.harnesses.registry import HARNESSES

    task, public = task_dir
    host_file = tmp_path / "host_secret.jsonl"
    host_file.write_text('{"type": "message", "message": {"role": "assistant", "content": '
                         '[{"type": "toolCall", "name": "HOSTSECRET", "arguments": {}}]}}\n')
    commands = attack("/home/harness/sessions", host_file)
    server = SSEServer(pi_turns(commands)) if name == "pi" \
        else chat_server(mini_swe_script(commands))
    gen = openai_cfg(server.base_url)
    gen.api_key_env = KEY_ENV
    gen.condition = ConditionConfig(max_tokens=256, wall_seconds=600)
    scaffold = ScaffoldConfig(name=name, max_steps=len(commands) + 3, run_public_budget=2,
                              harness=HarnessConfig(name=name, limits=REAL))
    g = HarnessGenerator(HARNESSES[name], make_chat_model(gen), gen, scaffold,
                         api_key=os.environ[KEY_ENV], sandbox=None, spec_for=None,
                         install_root=harness_root)
    try:
        result = g.generate(task, public, tmp_path / "out")
    finally:
        if name == "pi":
            server.close()
    bodies = [r.get("body", r) for r in server.requests]  # ChatServer keeps {"body", "auth"}
    assert CANARY not in json.dumps(bodies)  # the key never went back to the "model"
    seen = _tool_outputs(bodies)
    assert all(m in seen for m in MARKERS), [m for m in MARKERS if m not in seen]
    _check_outside(result, seen, tmp_path / "out")


def _tool_outputs(bodies: list[dict]) -> str:
    """What the commands printed, as the harness sent it back to the model (tool and user
    messages after the task prompt; the commands themselves are in assistant messages)."""
    texts = []
    for body in bodies:
        for m in body["messages"][2:]:
            if m.get("role") in ("tool", "user"):
                c = m.get("content")
                texts.append(c if isinstance(c, str) else json.dumps(c))
    return "\n".join(texts)


def _check_outside(result: GenerationResult, seen: str, out: Path) -> None:
    import re
    assert canary_free(out)                                                # key
    assert re.search(r"(^|\n)0\s*\n\s*SNOOPED", seen), seen[:500]           # grep -c: 0
    forked = [int(n) for n in re.findall(r"FORKED (\d+)", seen)]
    assert "FORK_REFUSED" in seen and forked and max(forked) < REAL.processes  # fork bomb
    assert "MemoryError" in seen and "ALLOCATED" not in seen              # 1.5 GB refused
    assert not (out / "workspace" / "big.bin").exists()                   # 2 GB file not kept
    events = read_trace(result.trace_path)
    removed = " ".join(e["detail"] for e in events if e["event"] == "removed")
    assert "big.bin" in removed and "a-host.jsonl: symbolic link" in removed, removed
    assert "b-fifo.jsonl: FIFO" in removed and "deeper than" in removed, removed
    assert "HOSTSECRET" not in result.trace_path.read_text()             # planted link unread
    assert result.status == NO_SUBMISSION
    assert [e["limit"] for e in events if e["event"] == "limit"][:1] in (
        ["process_limit"], ["file_size_limit"]), result.detail
    depth = max(len(Path(p).relative_to(out).parts) for p, _, _ in os.walk(out))
    assert depth < 80                                                     # no deep tree kept


@pytest.mark.parametrize("field,value,problem", [("processes", 0, "positive"),
                                                 ("memory_mb", -1, "positive"),
                                                 ("processes", 10**9, "pid_max")])
def test_bad_limits_are_refused_naming_the_field(field: str, value: int, problem: str,
                                                 tmp_path: Path) -> None:
    from monitorbench.errors import InputError
    limits = HarnessLimits(**{field: value})
    with pytest.raises(InputError) as e:
        _generator(_probe("pass"), "http://127.0.0.1:1/v1", tmp_path, limits=limits)
    assert f"scaffold.harness.limits.{field}" in str(e.value) and problem in str(e.value)


def test_safe_reads_refuse_links_fifos_and_oversize_without_blocking(tmp_path: Path) -> None:
    """The readers' primitive on its own: each refusal says why, and a FIFO with no writer is
    refused at once (a blocking open would hang the job)."""
    from monitorbench.generation.harnesses import safe_files
    root = tmp_path / "home"
    (root / "sub").mkdir(parents=True)
    outside = tmp_path / "outside.txt"
    outside.write_text("HOST")
    (root / "ok.jsonl").write_text("{}\n")
    (root / "link.jsonl").symlink_to(outside)
    (root / "sub_link").symlink_to(tmp_path)
    os.mkfifo(root / "fifo.jsonl")
    (root / "big.jsonl").write_bytes(b"x" * 2000)
    assert safe_files.read_text(root / "ok.jsonl", root) == "{}\n"
    for name, why in [("link.jsonl", "symbolic link"), ("sub_link/outside.txt", "symbolic link"),
                      ("fifo.jsonl", "not a regular file"), ("big.jsonl", "over the cap")]:
        with pytest.raises(safe_files.Refused, match=why):
            safe_files.read_bytes(root / name, root, cap=1000)
    assert [p.name for p in safe_files.files_matching(root, ".jsonl")] == ["big.jsonl",
                                                                          "ok.jsonl"]


def test_deep_trees_are_walked_and_removed_without_recursion(tmp_path: Path) -> None:
    from monitorbench.generation.harnesses import safe_files
    p = tmp_path / "t"
    p.mkdir()
    cwd = os.getcwd()
    os.chdir(p)
    try:
        for _ in range(1100):
            os.mkdir("d")
            os.chdir("d")
    finally:
        os.chdir(cwd)
    assert max(e.depth for e in safe_files.walk(p)) == safe_files.MAX_DEPTH - 1
    notes = safe_files.sanitize(p, file_cap=1 << 20)
    assert any("deeper than" in n for n in notes)
    assert max(e.depth for e in safe_files.walk(p, max_depth=5000)) < safe_files.MAX_DEPTH
    os.chdir(p)
    try:
        for _ in range(1100):
            os.makedirs("d", exist_ok=True)
            os.chdir("d")
    finally:
        os.chdir(cwd)
    safe_files.discard(p)
    assert not p.exists() and list(tmp_path.iterdir()) == []


SOCK_AND_DEEP = r'''
import json, os, socket
seen = {}
for what, act in (("file", lambda: open("/mb/sock/x.bin", "wb").write(b"x" * 4096)),
                  ("dir", lambda: os.mkdir("/mb/sock/d"))):
    try:
        act()
        seen[f"sock_{what}"] = "written"
    except OSError as e:
        seen[f"sock_{what}"] = e.strerror
s = socket.socket(socket.AF_UNIX)
s.connect("/mb/sock/endpoint.sock")
s.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
seen["models"] = s.recv(65536).split(b"\r\n")[0].decode()
try:  # 10 files of 7 MB, each under the 8 MB file-size limit, 70 MB in all
    for i in range(10):
        with open(f"/tmp/fill{i}.bin", "wb") as f:
            f.write(b"\1" * (7 << 20))
    seen["tmp_fill"] = "written"
except OSError as e:
    seen["tmp_fill"] = e.strerror
for i in range(10):
    if os.path.exists(f"/tmp/fill{i}.bin"):
        os.remove(f"/tmp/fill{i}.bin")
for root in ("/tmp", "/workspace", "/home/harness"):
    os.chdir(root)
    for _ in range(1100):
        os.mkdir("d"); os.chdir("d")
open("/workspace/main.py", "w").write("def verify(x):\n    return True\n")
print(json.dumps(seen))
'''


@needs_bwrap
def test_socket_dir_is_read_only_and_deep_trees_leave_nothing_on_the_host(
        chat_server, task_dir, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 44: ``/mb/sock`` was a writable host directory outside the disk limit, and a
    1,100-deep tree there made the clean-up raise (the generation ended as ``error``). Now the
    probe (the commands a hostile model would have a harness run) cannot write there but still
    reaches the proxy through the socket; ``/tmp`` is capped at the disk limit (64 MB here: an
    70 MB fill fails); 1,100-deep trees in /tmp, workspace and HOME give the generation's own
    outcome (main.py delivered); the host's ``/tmp/mbh.*`` directory is gone afterwards."""
    from monitorbench.generation.harnesses import generator as gen_mod

    made: list[str] = []
    real_mkdtemp = gen_mod.tempfile.mkdtemp

    def recording_mkdtemp(*args, **kwargs) -> str:
        made.append(real_mkdtemp(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(gen_mod.tempfile, "mkdtemp", recording_mkdtemp)
    task, public = task_dir
    server = chat_server(lambda body: "ok")
    result = _generator(_probe(SOCK_AND_DEEP), server.base_url, tmp_path).generate(
        task, public, tmp_path / "o")
    seen = _seen(tmp_path / "o")
    assert seen["sock_file"] == seen["sock_dir"] == "Read-only file system", seen
    assert seen["models"] == "HTTP/1.1 200 OK"
    assert seen["tmp_fill"] == "No space left on device"
    assert result.status == SUBMITTED, result.detail
    assert len(made) == 1 and not os.path.lexists(made[0])
    assert not [p for p in os.listdir("/tmp") if p.startswith(f".discard-{Path(made[0]).name}")]


FLOOD_TRAJECTORY = r'''
import os
d = "/home/harness/sessions"
os.makedirs(d)
rec = ('{"type":"message","message":{"role":"assistant","content":'
       '[{"type":"toolCall","name":"bash","arguments":{}}]}}\n')
for f in range(5):  # 5 files of 20k records (about 2 MB each): 100k records
    with open(f"{d}/s{f}.jsonl", "w") as out:
        out.write(rec * 20_000)
open("/workspace/main.py", "w").write("def verify(x):\n    return True\n")
'''


@needs_bwrap
def test_a_planted_trajectory_of_100k_records_leaves_a_bounded_trace(
        chat_server, task_dir, tmp_path: Path) -> None:
    """Issue 44: every record of a harness's trajectory became one fsynced trace event (100k
    records: a 35 MiB trace, 70-150 s, 1.07 GB peak RSS). The probe plants 100k Pi tool-call
    records (what a hostile model can make Pi's session hold); the real Pi reader reads them.
    Now the trace stops at its cap with one ``truncated`` event, the generation keeps its own
    outcome (main.py delivered), and the framework's peak memory rises by under 200 MiB."""
    from monitorbench.generation.traces import MAX_BYTES, MAX_EVENTS

    task, public = task_dir
    server = chat_server(lambda body: "ok")
    rss = PeakRss()
    t0 = time.monotonic()
    result = _generator(_probe(FLOOD_TRAJECTORY, native=pi.native_events), server.base_url,
                        tmp_path).generate(task, public, tmp_path / "o")
    seconds = time.monotonic() - t0
    events = read_trace(result.trace_path)
    assert result.status == SUBMITTED, result.detail
    assert len(events) <= MAX_EVENTS + 3 and result.trace_path.stat().st_size < MAX_BYTES
    assert [e["event"] for e in events].count("truncated") == 1
    assert events[-1]["event"] == "end" and events[-1]["dropped_events"] >= 1
    assert events[-2]["event"] == "harness_exit" and events[-2]["returncode"] == 0
    assert rss.rise_mib() < 200, f"peak RSS rose {rss.rise_mib():.0f} MiB"
    print(f"100k-record trajectory: {len(events)} events, "
          f"{result.trace_path.stat().st_size >> 10} KiB trace, {seconds:.1f} s, "
          f"peak RSS rose {rss.rise_mib():.0f} MiB")


VENDOR_TOOL_REQUEST = r"""
import json, socket
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}],
                   "tools": [{"type": "function", "function": {"name": "bash"}},
                             {"type": "web_search"}],
                   "service_tier": "priority", "background": True}).encode()
s = socket.socket(socket.AF_UNIX)
s.connect("/mb/sock/endpoint.sock")
s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
          % len(body) + body)
print(json.dumps({"status": s.recv(65536).split(b"\r\n")[0].decode()}))
"""


@needs_bwrap
def test_the_scaffold_names_the_vendor_fields_that_pass(chat_server, task_dir,
                                                       tmp_path: Path) -> None:
    """The generator's ``allowed_fields`` reach its proxy: a request from inside the sandbox
    keeps the named ``service_tier`` but loses the unnamed ``web_search`` tool and
    ``background``; the start event says which pass, and the cache identity holds them."""
    bodies: list[dict] = []
    server = chat_server(lambda body: bodies.append(body) or "ok")
    task, public = task_dir
    g = _generator(_probe(VENDOR_TOOL_REQUEST), server.base_url, tmp_path,
                   allowed_fields=frozenset({"service_tier"}))
    result = g.generate(task, public, tmp_path / "o")
    assert _seen(tmp_path / "o")["status"] == "HTTP/1.1 200 OK"
    assert len(bodies) == 1 and bodies[0]["service_tier"] == "priority"
    assert [t["type"] for t in bodies[0]["tools"]] == ["function"]
    assert "background" not in bodies[0]
    start = read_trace(result.trace_path)[0]
    assert start["vendor_fields"] == {"policy": "strip", "allowed": ["service_tier"]}
    plain = _generator(_probe(VENDOR_TOOL_REQUEST), server.base_url, tmp_path)
    assert g.identity != plain.identity
