"""Docker backend, for cluster users whose nodes run a container engine but not bubblewrap.

Same worker and protocol as the other backends; the container provides the isolation, as strong
as bubblewrap's: no network (``--network none`` always), a read-only root with a private ``/tmp``,
its own IPC namespace, an unprivileged user (65534) so ``/dev`` is not writable, all capabilities
dropped, no new privileges, memory, PID and CPU caps, and a seccomp profile
(``docker_seccomp.json``) that allows the user, PID and mount namespaces the worker gives the
cases (so a case cannot kill its worker) and the mounts it makes in them. Each case gets a fresh
tmpfs over ``/tmp``, ``/dev/shm`` and ``/dev/mqueue``, its own IPC namespace, no ``/proc`` and a
pid counter reset by the cases' init through the host's ``ns_last_pid``, bound at
``/mb/ns_last_pid`` (a write sets the counter of the writer's own PID namespace, and only with
CAP_SYS_ADMIN over it: the init's, never a case's or the keeper's), as under bubblewrap. Where a
host refuses those mounts (AppArmor's docker-default profile denies mount), each case gets
namespaces of its own through a guard process and the worker empties the three directories
after it instead (a known /proc gap: monitorbench/sandbox/__init__.py).

Containers are kept (:mod:`monitorbench.sandbox.kept`): one per judging thread, whose pid 1
(``keeper.py``) forks each session's worker and, when the session ends, kills every process of
it and empties every writable directory, or retires the container. The verifier, the task's
public directory and the runtime are refilled for each session into a host directory of the
container's own, bound read-only; so a session starts in milliseconds, not in a ``docker run``.

The image is monitorbench's own (:mod:`monitorbench.sandbox.image`, ``monitorbench sandbox
build-image``; its recipe, which lists the sources' runtime distributions, comes from the caller:
the sandbox knows no source) unless the user names one; it is never pulled (``--pull never``).
Only the verifier, the task's public directory, the worker, the keeper, the runtime loader and
the task source's runtime are mounted, read-only; masked host paths inside the copied
site-packages are covered in the image.
"""

from __future__ import annotations

import os
import subprocess
import sysconfig
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from monitorbench.errors import InputError
from monitorbench.sandbox.base import SandboxSpec
from monitorbench.sandbox.bwrap import SHM_MB, TMP_MB
from monitorbench.sandbox.client import (WORKER_PATH, WorkerSession, check_inputs,
                                         default_runtimes_dir, minimal_env, resolve_runtime,
                                         sandbox_runtime_path, worker_config)
from monitorbench.sandbox.image import (ImageRecipe, image_name, image_present, image_site_dir,
                                        missing_image, require_engine)
from monitorbench.sandbox.kept import (SESSION_LABEL, ContainerPool, KeptContainer,
                                       KeptSession)

WORKER_MEMORY_MB = 256  # the worker parent's share on top of the verifier's memory limit
PIDS_SLACK = 5  # the keeper, the worker, the cases' init, the guard and its init
SANDBOX_USER = "65534:65534"  # nobody:nogroup in the Debian base
SECCOMP_PROFILE = Path(__file__).with_name("docker_seccomp.json")
KEEPER_PATH = Path(__file__).with_name("keeper.py")
RUNTIME_ROOT = "/mb/runtime"
CLIENT_VARS = ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_CERT_PATH",
               "DOCKER_TLS_VERIFY")
WIPE_ALSO = ("/dev/shm", "/dev/mqueue")  # writable for every user in a container's /dev
CASE_TMPFS = {"/tmp": TMP_MB, "/dev/shm": SHM_MB, "/dev/mqueue": 1}
HOST_PID_COUNTER = Path("/proc/sys/kernel/ns_last_pid")  # absent on kernels without C/R
PID_COUNTER = "/mb/ns_last_pid"  # where the container binds it, read-write


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


def docker_argv(shared: Path, spec: SandboxSpec, runtimes_dir: Path, image: str,
                binary: str = "docker", label: str = "",
                seccomp_profile: Path = SECCOMP_PROFILE) -> list[str]:
    """The ``docker run`` command of a kept container (``keeper.py`` as its pid 1). ``shared``:
    the host directory whose ``verifier``, ``task`` and ``runtime`` subdirectories are bound
    read-only at /verifier, /task and /mb/runtime and refilled for every session
    (:class:`KeptContainer`): a bind mount cannot be added to a running container."""
    lim = spec.limits
    args = [binary, "run", "--rm", "-i", "--pull", "never", "--network", "none",
            "--ipc", "private", "--user", SANDBOX_USER,
            "--memory", f"{lim.memory_mb + WORKER_MEMORY_MB}m",
            "--pids-limit", str(lim.processes + PIDS_SLACK), "--cpus", "1",
            "--read-only", "--tmpfs", f"/tmp:rw,exec,size={TMP_MB}m,mode=1777",
            "--cap-drop", "ALL",
            "--security-opt", "no-new-privileges",
            "--security-opt", f"seccomp={seccomp_profile}",
            "--hostname", "sandbox", "--workdir", "/tmp", "--log-driver", "none",
            # the container's cgroup files tell a case the peak memory of earlier cases
            "--mount", "type=tmpfs,destination=/sys/fs/cgroup,readonly"]
    if label:
        args += ["--label", f"{SESSION_LABEL}={label}"]
    args += ["-v", f"{shared / 'verifier'}:/verifier:ro", "-v", f"{shared / 'task'}:/task:ro",
             "-v", f"{shared / 'runtime'}:{RUNTIME_ROOT}:ro",
             "-v", f"{shared / 'io'}:/mb/io:ro",  # the keeper's socket, until it connects
             "-v", f"{WORKER_PATH}:/mb/worker.py:ro", "-v", f"{KEEPER_PATH}:/mb/keeper.py:ro",
             "-v", f"{runtimes_dir / '__init__.py'}:/mb/runtimes/__init__.py:ro"]
    if HOST_PID_COUNTER.exists():  # else the worker wipes instead (case_tmpfs_optional)
        args += ["-v", f"{HOST_PID_COUNTER}:{PID_COUNTER}"]
    args += _mask_args(spec.masked_paths)
    for key, value in minimal_env().items():
        args += ["-e", f"{key}={value}"]
    return [*args, image, "python3", "-I", "-S", "-B", "/mb/keeper.py"]


def session_config(spec: SandboxSpec, runtime: Path | None) -> str:
    """The worker's config for one session, paths as the kept container shows them."""
    return worker_config(spec, verifier_dir="/verifier", task_dir="/task",
                         runtimes_dir="/mb/runtimes",
                         runtime_path=sandbox_runtime_path(runtime, RUNTIME_ROOT),
                         scratch_root="/tmp", own_pid_namespace=True, wipe_also=WIPE_ALSO,
                         own_ipc_namespace=True, case_pid_namespace=True,
                         case_namespaces=True, case_tmpfs=CASE_TMPFS, case_tmpfs_optional=True,
                         pid_counter=PID_COUNTER)


def client_env() -> dict[str, str]:
    """The docker client's environment: the minimal one plus how to reach the engine. The
    container itself gets only ``minimal_env`` (the ``-e`` flags), never these."""
    return {**minimal_env(), **{k: v for k, v in os.environ.items() if k in CLIENT_VARS}}


class DockerSandbox:
    """One kept container per judging thread (:mod:`monitorbench.sandbox.kept`), one forked
    worker per session in it. ``image``: the user's image, or None for the one built from
    ``recipe``; either must be in the engine already (checked once, here: one line naming the
    fix). ``seccomp_profile``: the container-wide profile (a host that refuses the worker's
    mounts, as AppArmor's docker-default does, is what a profile refusing ``mount`` mimics)."""

    name = "docker"

    def __init__(self, image: str | None = None, recipe: ImageRecipe | None = None,
                 runtimes_dir: Path | None = None, binary: str = "docker",
                 seccomp_profile: Path = SECCOMP_PROFILE) -> None:
        if not image and recipe is None:
            raise ValueError("DockerSandbox needs an image name or the recipe it is built from")
        recipe_image = image_name(recipe) if recipe is not None else None
        self.image: str = image or str(recipe_image)
        self.binary = binary
        self.seccomp_profile = seccomp_profile
        self.runtimes_dir = default_runtimes_dir(runtimes_dir)
        require_engine(binary)   # no engine: say so, not "the image is not in the engine"
        try:
            present = image_present(self.image, binary)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise InputError(None, "sandbox.backend", f"docker engine unusable here ({e})",
                             "install and start docker, or set sandbox.backend=bwrap") from None
        if not present:
            raise missing_image(self.image, recipe_image)
        self.pool = ContainerPool()
        weakref.finalize(self, self.pool.close)  # the containers end with the sandbox

    def _container(self, spec: SandboxSpec) -> KeptContainer:
        """An idle container started for the same limits and masks, or a new one."""
        key = (spec.limits.memory_mb, spec.limits.processes, tuple(spec.masked_paths))

        def make() -> KeptContainer:
            return KeptContainer(key, lambda shared, label: docker_argv(
                shared, spec, self.runtimes_dir, self.image, self.binary, label,
                self.seccomp_profile),
                client_env(), self.binary)
        return self.pool.take(key, make)

    @contextmanager
    def session(self, verifier_dir: Path, public_dir: Path, spec: SandboxSpec
                ) -> Iterator[WorkerSession]:
        check_inputs(Path(public_dir), spec, self.runtimes_dir)
        runtime = resolve_runtime(spec.runtime, self.runtimes_dir)
        box = self._container(spec)
        try:
            box.load(Path(verifier_dir).resolve(), Path(public_dir).resolve(), runtime)
        except BaseException:
            box.close()
            raise
        session = KeptSession(box, session_config(spec, runtime), spec,
                              on_close=lambda: self.pool.give_back(box))
        with session as s:
            yield s
