"""Backend selection, the docker backend, and the framework-side session watchdog."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest
from conftest import FAST, GOOD, write_verifier

from monitorbench.errors import InputError
from monitorbench.sandbox import bwrap as bwrap_module
from monitorbench.sandbox.base import SandboxSpec
from monitorbench.sandbox.bwrap import BwrapSandbox
from monitorbench.sandbox.client import WORKER_PATH, WorkerSession
from monitorbench.sandbox.docker import KEEPER_PATH, DockerSandbox, docker_argv
from monitorbench.sandbox.factory import make_sandbox
from monitorbench.sandbox.image import BUILD_COMMAND, image_name, missing_image, require_engine
from monitorbench.sandbox.runtimes import RUNTIMES_DIR
from monitorbench.sandbox.unshare import UnshareSandbox
from monitorbench.suites.sandbox_image import image_recipe


def test_unknown_backend_names_the_field_and_the_choices():
    with pytest.raises(InputError) as e:
        make_sandbox("firejail")
    assert e.value.field == "sandbox.backend"
    assert "bwrap" in e.value.fix and "unshare" in e.value.fix and "docker" in e.value.fix


def test_unknown_runtime_is_refused_before_starting(tmp_path, public_dir):
    with pytest.raises(InputError) as e:
        with BwrapSandbox().session(tmp_path, public_dir, SandboxSpec(runtime="nope")):
            pass
    assert e.value.field == "sandbox.runtime" and "none" in e.value.fix


def test_auto_prefers_bwrap_and_falls_back_to_unshare_loudly(monkeypatch):
    if bwrap_module.bwrap_usable():
        assert isinstance(make_sandbox("auto", image="ignored:latest"), BwrapSandbox)
    monkeypatch.setattr(bwrap_module, "bwrap_usable", lambda: False)
    with pytest.warns(RuntimeWarning, match="cannot hide files"):
        box = make_sandbox("bwrap")
    assert isinstance(box, UnshareSandbox)


def test_docker_argv_isolates(tmp_path):
    argv = docker_argv(tmp_path, SandboxSpec(limits=FAST), RUNTIMES_DIR, "img:1")
    for flag in ("--rm", "--read-only", "-i"):
        assert flag in argv
    pairs = dict(zip(argv, argv[1:]))
    assert pairs["--network"] == "none" and pairs["--pull"] == "never"
    assert pairs["--ipc"] == "private" and pairs["--user"] == "65534:65534"
    assert pairs["--pids-limit"] == str(FAST.processes + 5)
    # the session's verifier and task are refilled into the kept container's own directory
    assert f"{tmp_path}/task:/task:ro" in argv and f"{tmp_path}/verifier:/verifier:ro" in argv
    assert [a for a in argv if a.endswith(":ro")] == [
        f"{tmp_path}/verifier:/verifier:ro", f"{tmp_path}/task:/task:ro",
        f"{tmp_path}/runtime:/mb/runtime:ro", f"{tmp_path}/io:/mb/io:ro",
        f"{WORKER_PATH}:/mb/worker.py:ro",
        f"{KEEPER_PATH}:/mb/keeper.py:ro", f"{RUNTIMES_DIR}/__init__.py:/mb/runtimes/__init__.py:ro"]
    # the one writable bind: the pid counter the cases' init resets (only it may write it)
    assert "/proc/sys/kernel/ns_last_pid:/mb/ns_last_pid" in argv


def test_docker_backend_judges_in_the_recipes_image(tmp_path, public_dir, docker_image):
    require_engine()  # raises, naming the engine and the fix, when none answers
    vdir = write_verifier(tmp_path, "import sys\ndef verify(c, env):\n"
                                    "    return 'PASS' if sys.version_info[:2] == %r else 'FAIL'\n"
                                    % (tuple(sys.version_info[:2]),))
    box = make_sandbox("docker", recipe=image_recipe())
    assert box.image == docker_image == image_name(image_recipe())
    with box.session(vdir, public_dir, SandboxSpec(limits=FAST)) as s:
        assert s.judge(GOOD).decision == "PASS"   # the image's Python is the framework's minor


def test_a_missing_image_is_one_line_naming_the_build_command(docker_image):
    with pytest.raises(InputError) as e:
        make_sandbox("docker", image="monitorbench-sandbox:not-built", recipe=image_recipe())
    assert e.value.field == "sandbox.image" and "\n" not in str(e.value)
    assert "sandbox.image empty" in e.value.fix
    assert BUILD_COMMAND in missing_image(image_name(image_recipe()), image_name(image_recipe())).fix
    images = subprocess.run(["docker", "images", "-q", "monitorbench-sandbox:not-built"],
                            capture_output=True, text=True, check=True).stdout
    assert images == ""   # nothing was pulled (no registry is reachable anyway)


def test_no_container_outlives_a_killed_session(tmp_path, public_dir, docker_image):
    """A hung verifier whose answer never comes: the framework kills the ``docker run`` client;
    the container it started must not stay behind in the engine."""
    vdir = write_verifier(tmp_path, "import time\ndef verify(c, env):\n"
                                    "    time.sleep(60)\n")
    spec = SandboxSpec(limits=FAST.__class__(wall_seconds=30))
    with DockerSandbox(recipe=image_recipe()).session(vdir, public_dir, spec) as s:
        s.answer_grace, s.spec = 0.0, SandboxSpec(limits=FAST.__class__(wall_seconds=0.5))
        assert s.judge(GOOD).reason == "sandbox_error"
        label = next(a for a in s.argv if a.startswith("monitorbench.session="))
    left = subprocess.run(["docker", "ps", "-aq", "--filter", f"label={label}"],
                          capture_output=True, text=True, check=True).stdout
    assert left == ""


def test_hung_worker_is_killed_reported_and_restarted(tmp_path):
    # A real process that completes the handshake and then never answers again.
    hang = [sys.executable, "-c",
            "import sys, time; print('{\"ready\": true}', flush=True); time.sleep(3600)"]
    spec = SandboxSpec(limits=FAST.__class__(wall_seconds=0.2))
    with WorkerSession(hang, {"PATH": "/usr/bin:/bin"}, spec, answer_grace=0.3) as s:
        first_pid = s.proc.pid
        v = s.judge(GOOD)
        assert v.reason == "sandbox_error" and "no answer" in v.detail
        assert s.proc is None
        v = s.judge(GOOD)  # restarted, hangs again, reported again
        assert v.reason == "sandbox_error" and len(s.start_seconds) == 2
    with pytest.raises(ProcessLookupError):
        os.kill(first_pid, 0)


def test_sandbox_that_cannot_start_reports_sandbox_error():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with WorkerSession(["/nonexistent/bwrap"], {}, SandboxSpec(limits=FAST)) as s:
            v = s.judge(GOOD)
    assert v.reason == "sandbox_error" and "nonexistent" in v.detail


def test_public_dir_without_task_json_is_an_input_error(tmp_path):
    with pytest.raises(InputError) as e:
        with BwrapSandbox().session(tmp_path, tmp_path, SandboxSpec()):
            pass
    assert e.value.file.endswith("task.json") and "rebuild" in e.value.fix
