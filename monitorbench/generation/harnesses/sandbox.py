"""Running a harness program isolated: bubblewrap with loopback-only networking.

The harness sees its workspace (``/workspace``, writable), a scratch HOME (``/home/harness``,
writable, where it keeps its native trajectory), its own installation (read-only, at its host
path so shebangs and venv links hold) and the read-only system ``/usr``. ``/tmp`` is a tmpfs
of at most the disk limit (memory, gone with the sandbox). The socket directory ``/mb/sock``
is bound read-only: connecting to a Unix socket needs no write access to its filesystem, and a
writable host directory there would escape the disk limit (issue 44: 1,255 MiB written, a
1,100-deep tree that broke the clean-up). Workspace and HOME are the only writable host
directories, and the disk limit counts both. Suites, hidden cases,
the repository, the framework's interpreter and the rest of ``outputs/`` are not bound, so they
do not exist inside. ``--unshare-all`` gives it a network namespace with only loopback; the
launcher (``bridge.LAUNCHER``) listens there on the endpoint's port and pipes into the Unix
socket directory bound at ``/mb/sock``.

bwrap itself (pid 1 inside, whose ``/proc/1/environ`` any process there can read) starts from
:data:`HOST_ENV`, not the framework's environment: ``--clearenv`` would clean only its child,
and the framework's environment holds the endpoint's key. Every process inside runs under the
scaffold's :class:`~monitorbench.config.HarnessLimits`: rlimits set just before bwrap is exec'd
(data size, file size, CPU seconds, processes) and, where the host gives them, a pids cgroup
and a memory cgroup bounding all its processes together (``session_memory_mb``).

A run is stopped at its wall clock, as soon as its output passes the cap (a flooding harness),
or once its workspace and HOME pass the disk limit; the caller turns each into
``no_submission`` with the reason in the trace.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from monitorbench.config import HarnessLimits
from monitorbench.generation.harnesses.install import SYSTEM_PYTHON
from monitorbench.sandbox.bwrap import ETC_FILES, _system_links
from monitorbench.sandbox.cgroup import MemoryCgroup, PidsCgroup

WORKSPACE = "/workspace"
HOME = "/home/harness"
SOCK_DIR = "/mb/sock"
LAUNCHER_PATH = "/mb/launch.py"
EXTRA_ETC = ("/etc/hosts", "/etc/ssl", "/etc/ca-certificates")
# The sandbox's own resolver config, in place of the host's. The sandbox has no network, so no
# name resolves; with the host's nameserver a lookup's packets are refused (ENETUNREACH) and
# musl's resolver (Codex's static binary) still waits out its timeout: Codex's background
# lookups of its vendor's hosts held every run's exit 5 s after its last reply (10 s under
# load). A nameserver on the sandbox's own loopback refuses at once; one 1 s try bounds the rest.
RESOLV_CONF = "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"
HOST_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}  # all bwrap (pid 1 inside) is given
DISK_POLL_SECONDS = 2.0
# Sets the limits on itself, then execs the rest of its argv (bwrap), which every process in
# the sandbox inherits. Run by the framework's interpreter in isolated mode, outside the sandbox.
SET_LIMITS = """
import json, os, resource, sys
for name, value in json.loads(sys.argv[1]).items():
    which = getattr(resource, name)
    hard = resource.getrlimit(which)[1]
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(which, (value, value))
os.execvp(sys.argv[2], sys.argv[2:])
"""


@dataclass(frozen=True)
class Mounts:
    """Host directories the harness sandbox binds."""

    install_dir: Path
    workspace: Path
    home: Path
    sock_dir: Path
    launcher: Path
    resolv_conf: Path  # holds RESOLV_CONF


@dataclass
class RunOutcome:
    """How the harness process ended. ``reason`` is '' for a normal exit."""

    returncode: int | None
    reason: str            # '' | 'timeout' | 'output_limit' | 'disk_limit'
    seconds: float
    output_tail: str


def harness_argv(m: Mounts, env: Mapping[str, str], port: int, command: Sequence[str],
                 *, tmp_bytes: int = HarnessLimits().disk_mb << 20) -> list[str]:
    """The bwrap command line (exposed so a test can check what is, and is not, bound);
    ``/tmp`` is a tmpfs of ``tmp_bytes``."""
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--hostname", "sandbox", "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    args += ["--ro-bind", "/usr", "/usr", *_system_links()]
    for f in (*ETC_FILES, *EXTRA_ETC):
        args += ["--ro-bind-try", f, f]
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(tmp_bytes), "--tmpfs", "/tmp",
             "--ro-bind", str(m.install_dir), str(m.install_dir),
             "--bind", str(m.workspace), WORKSPACE,
             "--bind", str(m.home), HOME,
             "--ro-bind", str(m.sock_dir), SOCK_DIR,
             "--ro-bind", str(m.launcher), LAUNCHER_PATH,
             "--ro-bind", str(m.resolv_conf), "/etc/resolv.conf",
             "--chdir", WORKSPACE,
             SYSTEM_PYTHON, "-I", "-S", LAUNCHER_PATH, str(port), f"{SOCK_DIR}/endpoint.sock",
             *command]
    return args


def base_env(install_dir: Path) -> dict[str, str]:
    """The harness's environment: nothing inherited from the framework (keys, tokens)."""
    return {"PATH": f"{install_dir}/bin:{install_dir}/node_modules/.bin:/usr/bin:/bin",
            "HOME": HOME, "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
            "CI": "1", "TMPDIR": "/tmp"}


def limited_argv(argv: Sequence[str], limits: HarnessLimits, *, nproc: bool) -> list[str]:
    """``argv`` started under ``limits``' rlimits (``RLIMIT_NPROC`` only when ``nproc``: with a
    pids cgroup it is redundant, and it is not enforced for root anyway)."""
    mb = 1 << 20
    rlimits = {"RLIMIT_DATA": limits.memory_mb * mb, "RLIMIT_FSIZE": limits.file_size_mb * mb,
               "RLIMIT_CPU": limits.cpu_seconds, "RLIMIT_CORE": 0}
    if nproc:
        rlimits["RLIMIT_NPROC"] = limits.processes
    return [str(Path(sys.executable).resolve()), "-I", "-S", "-c", SET_LIMITS,
            json.dumps(rlimits), *argv]


def run_bounded(argv: list[str], log_path: Path, *, wall_seconds: float, output_bytes: int,
                limits: HarnessLimits | None = None,
                over_disk: Callable[[], str] | None = None) -> RunOutcome:
    """Run ``argv`` (bwrap) under ``limits`` in its own session, from :data:`HOST_ENV`; kill the
    whole group at the wall clock, once its output exceeds ``output_bytes`` (everything up to the
    cap is kept in ``log_path``) or once ``over_disk()`` names a reason (polled every
    :data:`DISK_POLL_SECONDS`). A fork refused by the pids cgroup ends it as
    ``process_limit``, a kill by the kernel in the full memory cgroup as ``memory_limit``."""
    limits = limits or HarnessLimits()
    cgroup = PidsCgroup.create(limits.processes)
    memory = MemoryCgroup.create(limits.session_memory_mb << 20)
    full = limited_argv(argv, limits, nproc=cgroup is None)
    for group in (cgroup, memory):
        full = group.wrap(full) if group is not None else full
    try:
        outcome = _run(full, log_path, wall_seconds, output_bytes, over_disk)
        if cgroup is not None and not outcome.reason and _forks_refused(cgroup):
            outcome.reason, outcome.returncode = "process_limit", None
        if memory is not None and not outcome.reason and memory.oom_killed():
            outcome.reason, outcome.returncode = "memory_limit", None
        return outcome
    finally:
        for group in (cgroup, memory):
            if group is not None:
                group.remove()


def _forks_refused(cgroup: PidsCgroup) -> bool:
    """Whether the pids cgroup refused a fork (``pids.events``: ``max N``)."""
    try:
        events = (cgroup.path / "pids.events").read_text().split()
    except OSError:
        return False
    return len(events) >= 2 and events[0] == "max" and events[1] != "0"


def _run(argv: list[str], log_path: Path, wall_seconds: float, output_bytes: int,
         over_disk: Callable[[], str] | None) -> RunOutcome:
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True, env=HOST_ENV)
    flooded = threading.Event()
    reader = threading.Thread(target=_drain, args=(proc, log_path, output_bytes, flooded),
                              daemon=True)
    reader.start()
    reason = ""
    while proc.poll() is None:
        left = wall_seconds - (time.monotonic() - t0)
        try:
            proc.wait(timeout=max(0.0, min(left, DISK_POLL_SECONDS)))
            break
        except subprocess.TimeoutExpired:
            reason = "timeout" if left <= DISK_POLL_SECONDS else \
                (over_disk() if over_disk is not None else "")
        if reason:
            _kill(proc)
            proc.wait()
    reader.join(timeout=10)
    if flooded.is_set() and not reason:
        reason = "output_limit"
    tail = log_path.read_bytes()[-3000:].decode("utf-8", errors="replace") \
        if log_path.is_file() else ""
    return RunOutcome(proc.returncode if not reason else None, reason,
                      round(time.monotonic() - t0, 3), tail)


def _drain(proc: subprocess.Popen, log_path: Path, output_bytes: int,
           flooded: threading.Event) -> None:
    """Copy the harness's output into ``log_path`` up to the cap; past it, kill the harness."""
    written = 0
    with open(log_path, "wb") as log:
        assert proc.stdout is not None
        for chunk in iter(lambda: proc.stdout.read1(65536), b""):
            if written < output_bytes:
                log.write(chunk[:output_bytes - written])
            written += len(chunk)
            if written > output_bytes and not flooded.is_set():
                flooded.set()
                _kill(proc)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
