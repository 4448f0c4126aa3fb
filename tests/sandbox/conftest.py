"""Helpers for sandbox tests: real verifier directories written into tmp, real sandboxes."""

from __future__ import annotations

import json
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
    if name == "docker":
        from monitorbench.sandbox.docker import DockerSandbox

        request.getfixturevalue("docker_image")
        return DockerSandbox(recipe=image_recipe())
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


@pytest.fixture(params=["bwrap", "docker"])
def isolating(request: pytest.FixtureRequest):
    """The backends that isolate the filesystem too (unshare cannot: it warns so)."""
    return make_backend(request, request.param)
