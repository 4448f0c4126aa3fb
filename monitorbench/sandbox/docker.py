"""Docker backend, for cluster users whose nodes run a container engine but not bubblewrap.

Same worker and protocol as the other backends; the container provides the isolation: no network,
a read-only root filesystem with a private ``/tmp``, memory, PID and CPU caps, all capabilities
dropped. Only the verifier, the task's public directory, the worker, the runtime loader and the
task source's runtime are mounted, read-only. The image needs ``python3`` (3.8 or newer) on its PATH.
"""

from __future__ import annotations

import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from monitorbench.sandbox.base import SandboxSpec
from monitorbench.sandbox.client import (WORKER_PATH, WorkerSession, check_inputs,
                                         default_runtimes_dir, minimal_env, resolve_runtime,
                                         sandbox_runtime_path, worker_config)

DEFAULT_IMAGE = "python:3.11-slim"
WORKER_MEMORY_MB = 256  # the worker parent's share on top of the verifier's memory limit
PIDS_SLACK = 4


def docker_available(binary: str = "docker") -> tuple[bool, str]:
    """Whether an engine answers here, and if not, why (tests use the reason to skip)."""
    if shutil.which(binary) is None:
        return False, f"no '{binary}' binary on PATH"
    try:
        res = subprocess.run([binary, "info"], capture_output=True, timeout=20, text=True)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"'{binary} info' failed: {e}"
    if res.returncode != 0:
        return False, f"'{binary} info' failed: {(res.stderr or res.stdout).strip()[-300:]}"
    return True, ""


def docker_argv(verifier_dir: Path, public_dir: Path, spec: SandboxSpec, runtimes_dir: Path,
                image: str, binary: str = "docker") -> list[str]:
    """The full ``docker run`` command for one session."""
    lim = spec.limits
    args = [binary, "run", "--rm", "-i", "--network", "none",
            "--memory", f"{lim.memory_mb + WORKER_MEMORY_MB}m",
            "--pids-limit", str(lim.processes + PIDS_SLACK), "--cpus", "1",
            "--read-only", "--tmpfs", "/tmp:rw,exec,size=256m", "--cap-drop", "ALL",
            "--security-opt", "no-new-privileges", "--hostname", "sandbox", "--workdir", "/tmp"]
    if verifier_dir.is_dir():
        args += ["-v", f"{verifier_dir}:/verifier:ro"]
    args += ["-v", f"{public_dir}:/task:ro", "-v", f"{WORKER_PATH}:/mb/worker.py:ro",
             "-v", f"{runtimes_dir / '__init__.py'}:/mb/runtimes/__init__.py:ro"]
    runtime = resolve_runtime(spec.runtime, runtimes_dir)
    if runtime is not None:
        args += ["-v", f"{runtime}:{sandbox_runtime_path(runtime)}:ro"]
    for key, value in minimal_env().items():
        args += ["-e", f"{key}={value}"]
    args += [image, "python3", "-I", "-S", "-B", "/mb/worker.py",
             worker_config(spec, verifier_dir="/verifier", task_dir="/task",
                           runtimes_dir="/mb/runtimes",
                           runtime_path=sandbox_runtime_path(runtime), scratch_root="/tmp",
                           own_pid_namespace=True)]
    return args


class DockerSandbox:
    """One ``docker run`` per session; the image is configurable (``sandbox.image``)."""

    name = "docker"

    def __init__(self, image: str = DEFAULT_IMAGE, runtimes_dir: Path | None = None,
                 binary: str = "docker") -> None:
        self.image = image
        self.binary = binary
        self.runtimes_dir = default_runtimes_dir(runtimes_dir)

    @contextmanager
    def session(self, verifier_dir: Path, public_dir: Path, spec: SandboxSpec
                ) -> Iterator[WorkerSession]:
        check_inputs(Path(public_dir), spec, self.runtimes_dir)
        argv = docker_argv(Path(verifier_dir).resolve(), Path(public_dir).resolve(), spec,
                           self.runtimes_dir, self.image, self.binary)
        with WorkerSession(argv, minimal_env(), spec) as s:
            yield s
