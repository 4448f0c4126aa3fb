"""Docker backend, for cluster users whose nodes run a container engine but not bubblewrap.

Same worker and protocol as the other backends; the container provides the isolation, as strong
as bubblewrap's: no network (``--network none`` always), a read-only root with a private ``/tmp``,
its own IPC namespace, an unprivileged user (65534) so ``/dev`` is not writable, all capabilities
dropped, no new privileges, memory, PID and CPU caps, and a seccomp profile
(``docker_seccomp.json``) that allows the user + PID namespace the worker gives the cases (so a
case cannot kill its worker). After every case the worker empties ``/tmp``, ``/dev/shm`` and
``/dev/mqueue`` and removes every System V IPC object, as under bubblewrap.

The image is monitorbench's own (:mod:`monitorbench.sandbox.image`, ``monitorbench sandbox
build-image``; its recipe, which lists the sources' runtime distributions, comes from the caller:
the sandbox knows no source) unless the user names one; it is never pulled (``--pull never``). Only the verifier,
the task's public directory, the worker, the runtime loader and the task source's runtime are
mounted, read-only; masked host paths inside the copied site-packages are covered in the image.
"""

from __future__ import annotations

import os
import subprocess
import sysconfig
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from monitorbench.errors import InputError
from monitorbench.sandbox.base import SandboxSpec
from monitorbench.sandbox.client import (WORKER_PATH, WorkerSession, check_inputs,
                                         default_runtimes_dir, minimal_env, resolve_runtime,
                                         sandbox_readable, sandbox_runtime_path,
                                         worker_config)
from monitorbench.sandbox.image import (ImageRecipe, image_name, image_present, image_site_dir,
                                        missing_image, require_engine)

WORKER_MEMORY_MB = 256  # the worker parent's share on top of the verifier's memory limit
PIDS_SLACK = 4
SANDBOX_USER = "65534:65534"  # nobody:nogroup in the Debian base
SECCOMP_PROFILE = Path(__file__).with_name("docker_seccomp.json")
SESSION_LABEL = "monitorbench.session"
CLIENT_VARS = ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_CERT_PATH",
               "DOCKER_TLS_VERIFY")
WIPE_ALSO = ("/dev/shm", "/dev/mqueue")  # writable for every user in a container's /dev


def image_path(host_path: Path) -> str | None:
    """Where a file of the framework's site-packages is in the recipe's image (its copy), or
    None for a path outside it (not in the image at all)."""
    host_site = Path(sysconfig.get_paths()["purelib"]).resolve()
    p = Path(host_path).resolve()
    return f"{image_site_dir()}/{p.relative_to(host_site)}" if host_site in p.parents else None


def _mask_args(masked_paths: tuple[str, ...]) -> list[str]:
    """Hide the image's copies of masked host paths (an empty read-only tmpfs over a directory,
    /dev/null over a file)."""
    args: list[str] = []
    for p in (Path(m).resolve() for m in masked_paths):
        inside = image_path(p)
        if inside is None or not p.exists():
            continue
        if p.is_dir():
            args += ["--mount", f"type=tmpfs,destination={inside},readonly"]
        else:
            args += ["-v", f"/dev/null:{inside}:ro"]
    return args


def docker_argv(verifier_dir: Path, public_dir: Path, spec: SandboxSpec, runtimes_dir: Path,
                image: str, binary: str = "docker", label: str = "") -> list[str]:
    """The full ``docker run`` command for one session."""
    lim = spec.limits
    args = [binary, "run", "--rm", "-i", "--pull", "never", "--network", "none",
            "--ipc", "private", "--user", SANDBOX_USER,
            "--memory", f"{lim.memory_mb + WORKER_MEMORY_MB}m",
            "--pids-limit", str(lim.processes + PIDS_SLACK), "--cpus", "1",
            "--read-only", "--tmpfs", "/tmp:rw,exec,size=256m,mode=1777", "--cap-drop", "ALL",
            "--security-opt", "no-new-privileges",
            "--security-opt", f"seccomp={SECCOMP_PROFILE}",
            "--hostname", "sandbox", "--workdir", "/tmp", "--log-driver", "none",
            # the container's cgroup files tell a case the peak memory of earlier cases
            "--mount", "type=tmpfs,destination=/sys/fs/cgroup,readonly"]
    if label:
        args += ["--label", f"{SESSION_LABEL}={label}"]
    if verifier_dir.is_dir():
        args += ["-v", f"{verifier_dir}:/verifier:ro"]
    args += ["-v", f"{public_dir}:/task:ro", "-v", f"{WORKER_PATH}:/mb/worker.py:ro",
             "-v", f"{runtimes_dir / '__init__.py'}:/mb/runtimes/__init__.py:ro"]
    runtime = resolve_runtime(spec.runtime, runtimes_dir)
    if runtime is not None:
        args += ["-v", f"{runtime}:{sandbox_runtime_path(runtime)}:ro"]
    args += _mask_args(spec.masked_paths)
    for key, value in minimal_env().items():
        args += ["-e", f"{key}={value}"]
    args += [image, "python3", "-I", "-S", "-B", "/mb/worker.py",
             worker_config(spec, verifier_dir="/verifier", task_dir="/task",
                           runtimes_dir="/mb/runtimes",
                           runtime_path=sandbox_runtime_path(runtime), scratch_root="/tmp",
                           own_pid_namespace=True, wipe_also=WIPE_ALSO,
                           own_ipc_namespace=True, case_pid_namespace=True,
                           case_namespaces=True)]
    return args


def client_env() -> dict[str, str]:
    """The docker client's environment: the minimal one plus how to reach the engine. The
    container itself gets only ``minimal_env`` (the ``-e`` flags), never these."""
    return {**minimal_env(), **{k: v for k, v in os.environ.items() if k in CLIENT_VARS}}


def remove_containers(label: str, binary: str = "docker") -> None:
    """Remove a session's containers: a killed ``docker run`` client leaves its container
    running (the engine, not the client, owns it)."""
    ids = subprocess.run([binary, "ps", "-aq", "--filter", f"label={SESSION_LABEL}={label}"],
                         capture_output=True, text=True, timeout=60).stdout.split()
    if ids:
        subprocess.run([binary, "rm", "-f", *ids], capture_output=True, timeout=60)


class DockerSandbox:
    """One ``docker run`` per session. ``image``: the user's image, or None for the one built
    from ``recipe``; either must be in the engine already (checked once, here: one line naming
    the fix)."""

    name = "docker"

    def __init__(self, image: str | None = None, recipe: ImageRecipe | None = None,
                 runtimes_dir: Path | None = None, binary: str = "docker") -> None:
        if not image and recipe is None:
            raise ValueError("DockerSandbox needs an image name or the recipe it is built from")
        recipe_image = image_name(recipe) if recipe is not None else None
        self.image: str = image or str(recipe_image)
        self.binary = binary
        self.runtimes_dir = default_runtimes_dir(runtimes_dir)
        require_engine(binary)   # no engine: say so, not "the image is not in the engine"
        try:
            present = image_present(self.image, binary)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise InputError(None, "sandbox.backend", f"docker engine unusable here ({e})",
                             "install and start docker, or set sandbox.backend=bwrap") from None
        if not present:
            raise missing_image(self.image, recipe_image)

    @contextmanager
    def session(self, verifier_dir: Path, public_dir: Path, spec: SandboxSpec
                ) -> Iterator[WorkerSession]:
        check_inputs(Path(public_dir), spec, self.runtimes_dir)
        label = uuid.uuid4().hex
        with sandbox_readable(Path(verifier_dir).resolve(), True) as vdir:
            argv = docker_argv(vdir, Path(public_dir).resolve(), spec, self.runtimes_dir,
                               self.image, self.binary, label)

            def cleanup() -> None:
                if session.forced_kills:
                    remove_containers(label, self.binary)

            session = WorkerSession(argv, client_env(), spec, on_close=cleanup)
            with session as s:
                yield s
