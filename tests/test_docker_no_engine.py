"""Docker without an engine: the real docker client pointed at a socket where nothing listens
fails ``sandbox=docker`` and ``sandbox build-image`` within 5 s, in one line naming the engine and
how to start it; debootstrap (minutes) never starts without an engine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline_helpers import ROOT
from monitorbench.errors import InputError
from monitorbench.sandbox.docker import DockerSandbox
from monitorbench.suites.sandbox_image import image_recipe

pytestmark = pytest.mark.skipif(shutil.which("docker") is None, reason="no docker client")
NOWHERE = "unix:///tmp/monitorbench-no-engine.sock"   # nothing listens: no such socket


def _no_engine_env(tmp_path: Path) -> dict[str, str]:
    """The environment with DOCKER_HOST at no engine and a debootstrap that leaves a mark."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "debootstrap").write_text(f"#!/bin/sh\ntouch {tmp_path / 'debootstrap-ran'}\n")
    (fake / "debootstrap").chmod(0o755)
    return {**os.environ, "DOCKER_HOST": NOWHERE, "PATH": f"{fake}:{os.environ['PATH']}"}


def test_the_docker_backend_without_an_engine_says_so_at_once(monkeypatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", NOWHERE)
    start = time.monotonic()
    with pytest.raises(InputError) as e:
        DockerSandbox(recipe=image_recipe())
    assert time.monotonic() - start < 5
    assert e.value.field == "sandbox.backend" and f"answers at {NOWHERE}" in e.value.problem
    assert "no docker engine (dockerd)" in str(e.value) and "not in the engine" not in str(e.value)
    assert "systemctl start docker" in e.value.fix and "\n" not in str(e.value)


def test_build_image_without_an_engine_fails_in_one_line_before_debootstrap(
        tmp_path: Path) -> None:
    start = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "monitorbench.cli", "sandbox", "build-image"],
                         cwd=ROOT, env=_no_engine_env(tmp_path), capture_output=True, text=True,
                         timeout=60)
    assert time.monotonic() - start < 5, res.stderr
    assert res.returncode == 2 and not (tmp_path / "debootstrap-ran").exists()
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and f"no docker engine (dockerd) answers at {NOWHERE}" in lines[0]
    assert "dockerd" in lines[0] and "Fix: start it" in lines[0]


def test_a_job_with_sandbox_docker_and_no_engine_stops_with_the_one_line(
        tmp_path: Path, suites_dir: Path) -> None:
    res = subprocess.run([sys.executable, "-m", "monitorbench", "sandbox=docker",
                          "generator=schema_check", "task.max_tasks_per_type=1",
                          "tracking.enabled=false", f"paths.suites={suites_dir}",
                          f"paths.outputs={tmp_path / 'out'}", f"hydra.run.dir={tmp_path}/h"],
                         cwd=ROOT, env=_no_engine_env(tmp_path), capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 2
    assert f"no docker engine (dockerd) answers at {NOWHERE}" in res.stderr + res.stdout
    assert "not in the engine" not in res.stderr + res.stdout
