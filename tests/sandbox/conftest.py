"""Helpers for sandbox tests: real verifier directories written into tmp, real sandboxes."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
import warnings
from pathlib import Path

import pytest

from monitorbench.sandbox.base import Limits, SandboxSpec
from monitorbench.sandbox.bwrap import BwrapSandbox, bwrap_usable
from monitorbench.sandbox.unshare import UnshareSandbox
from monitorbench.suites.sandbox_image import image_recipe

# Small limits keep every hostile case fast.
FAST = Limits(wall_seconds=2.0, cpu_seconds=1, memory_mb=256, processes=16, file_size_mb=4,
              open_files=64, output_bytes=65536)
TASK = {"task_id": "t1", "task_type": "tool_call", "source": "test",
        "tools": [{"name": "get_weather", "required": ["city"]}]}

# Verifier body shared by hostile verifiers: candidates with "attack" run the attack, the others
# are judged honestly, so the test can check the session still judges after an attack.
JUDGE = '''
def judge(candidate, env):
    call = candidate.get("call", {})
    tool = env.task["tools"][0]
    args = call.get("args", {})
    ok = call.get("name") == tool["name"] and all(a in args for a in tool["required"])
    return "PASS" if ok else "FAIL"
'''
GOOD = {"call": {"name": "get_weather", "args": {"city": "Paris"}}}
BAD = {"call": {"name": "get_weather", "args": {}}}


def write_verifier(root: Path, body: str, name: str = "verifier") -> Path:
    vdir = root / name
    vdir.mkdir(parents=True, exist_ok=True)
    (vdir / "main.py").write_text(textwrap.dedent(body))
    return vdir


def hostile(root: Path, attack: str, header: str = "") -> Path:
    """A verifier that runs ``attack`` (indented body of ``def attack(candidate, env)``) when the
    candidate says so, and judges honestly otherwise."""
    body = (textwrap.dedent(header) + JUDGE + "\ndef attack(candidate, env):\n"
            + textwrap.indent(textwrap.dedent(attack), "    ")
            + "\n\ndef verify(candidate, env):\n"
              "    if candidate.get('attack'):\n"
              "        return attack(candidate, env)\n"
              "    return judge(candidate, env)\n")
    return write_verifier(root, body)


@pytest.fixture
def public_dir(tmp_path: Path) -> Path:
    d = tmp_path / "public" / "t1"
    d.mkdir(parents=True)
    (d / "task.json").write_text(json.dumps(TASK))
    return d


@pytest.fixture
def spec() -> SandboxSpec:
    return SandboxSpec(limits=FAST)


needs_bwrap = pytest.mark.skipif(not bwrap_usable(), reason="bwrap missing or cannot create "
                                 "namespaces on this host")


def make_backend(request: pytest.FixtureRequest, name: str):
    """A real sandbox of backend ``name`` (docker: in the run's engine, with the recipe's image;
    see tests/docker_engine.py)."""
    if name in ("docker", WIPING_DOCKER):
        from monitorbench.sandbox.docker import SECCOMP_PROFILE, DockerSandbox

        request.getfixturevalue("docker_image")
        profile = (SECCOMP_PROFILE if name == "docker" else profile_refusing_mounts(
            request.getfixturevalue("tmp_path_factory").mktemp("profile")))
        return DockerSandbox(recipe=image_recipe(), seccomp_profile=profile)
    if name == "bwrap":
        if not bwrap_usable():
            pytest.skip("bwrap missing or cannot create namespaces on this host")
        return BwrapSandbox()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return UnshareSandbox()


@pytest.fixture(params=["bwrap", "unshare", "docker"])
def sandbox(request: pytest.FixtureRequest):
    """Every backend: the worker's behaviour under hostile verifiers must be the same."""
    return make_backend(request, request.param)


WIPING_DOCKER = "docker-refusing-mounts"


def profile_refusing_mounts(directory: Path) -> Path:
    """The docker backend's seccomp profile with ``mount`` and ``umount2`` refused container-wide,
    as a host whose AppArmor profile (docker-default) denies mounts refuses them: the worker then
    cannot give each case a tmpfs of its own and falls back to wiping /tmp, /dev/shm and
    /dev/mqueue after every case. A real refusal by the real engine, not a double."""
    from monitorbench.sandbox.docker import SECCOMP_PROFILE

    profile = json.loads(SECCOMP_PROFILE.read_text())
    profile["syscalls"][0]["names"] += ["mount", "umount2"]
    path = directory / "refusing-mounts.json"
    path.write_text(json.dumps(profile))
    return path


def wipes_cases(request: pytest.FixtureRequest) -> bool:
    """Whether this test's ``isolating`` backend empties /tmp and /dev/shm by wiping them after
    each case (docker where mounts are refused) rather than dropping a per-case tmpfs."""
    return request.node.callspec.params.get("isolating") == WIPING_DOCKER


@pytest.fixture(params=["bwrap", "docker", WIPING_DOCKER])
def isolating(request: pytest.FixtureRequest):
    """The backends that isolate the filesystem too (unshare cannot: it warns so), and docker
    on a host that refuses the worker its mounts."""
    return make_backend(request, request.param)


def descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid``, parents before their children."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop(0)
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                with open(f"/proc/{p}/task/{t}/children") as f:
                    kids = [int(x) for x in f.read().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out


def session_root(session) -> int:
    """The host pid the session's processes descend from: the client for the backends that
    fork the sandbox, the container's first process (the keeper) under docker, whose processes
    the engine starts, not the client."""
    label = next((a for a in session.argv if a.startswith("monitorbench.session=")), None)
    if label is None:
        return session.proc.pid
    ids = subprocess.run(["docker", "ps", "-q", "--filter", f"label={label}"],
                         capture_output=True, text=True, check=True).stdout.split()
    return int(subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", *ids],
                              capture_output=True, text=True, check=True).stdout)


def worker_and_init(session) -> tuple[int, int | None]:
    """Host pids of the session's worker and of the cases' init it forked: both run Python on
    worker.py (bwrap runs its compiled worker.pyc; bwrap's own argv names both too, as bind
    mounts, but bwrap is not Python); under docker the container's keeper.py forked the
    worker."""
    tree = [session_root(session), *descendants(session_root(session))]
    argv = {p: _argv(p) for p in tree}  # a case that has answered may exit while it is read
    tree = [p for p in tree if argv[p]]
    python = [p for p in tree if b"python" in os.path.basename(argv[p][0])
              and any(a.endswith((b"worker.py", b"worker.pyc", b"keeper.py")) for a in argv[p])]
    kept = any(a.endswith(b"keeper.py") for a in argv[python[0]])
    worker = python[1] if kept else python[0]
    # the init is pid 1 of the cases' namespace; a case that has answered may still be exiting
    # beside it (the worker answers before it ends the case), so it is told apart by that pid
    init = next((p for p in python if p in descendants(worker) and _ns_pid(p) == 1), None)
    return worker, init


def _argv(pid: int) -> list[bytes]:
    """``pid``'s command line, empty when it has just exited (or is a zombie, whose cmdline
    reads empty): the worker answers before it ends the case, so a case child listed a moment
    ago may be gone when it is read."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            data = f.read()
    except OSError:
        return []
    return data.split(b"\0") if data else []


def _ns_pid(pid: int) -> int:
    """``pid``'s number in its innermost PID namespace (the last of /proc's NSpid)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return int(next(line for line in f if line.startswith("NSpid:")).split()[-1])
    except OSError:  # it has just exited
        return 0
