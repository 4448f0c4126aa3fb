"""Running a harness program isolated: bubblewrap with loopback-only networking.

The harness sees its workspace (``/workspace``, writable), a scratch HOME (``/home/harness``,
writable, where it keeps its native trajectory), its own installation (read-only, at its host
path so shebangs and venv links hold) and the read-only system ``/usr``. Suites, hidden cases,
the repository, the framework's interpreter and the rest of ``outputs/`` are not bound, so they
do not exist inside. ``--unshare-all`` gives it a network namespace with only loopback; the
launcher (``bridge.LAUNCHER``) listens there on the endpoint's port and pipes into the Unix
socket directory bound at ``/mb/sock``.

A run is stopped at its wall clock, or as soon as its output passes the cap (a flooding
harness); the caller turns either into ``no_submission`` with the reason in the trace.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from monitorbench.generation.harnesses.install import SYSTEM_PYTHON
from monitorbench.sandbox.bwrap import ETC_FILES, _system_links

WORKSPACE = "/workspace"
HOME = "/home/harness"
SOCK_DIR = "/mb/sock"
LAUNCHER_PATH = "/mb/launch.py"
EXTRA_ETC = ("/etc/hosts", "/etc/resolv.conf", "/etc/ssl", "/etc/ca-certificates")


@dataclass(frozen=True)
class Mounts:
    """Host directories the harness sandbox binds."""

    install_dir: Path
    workspace: Path
    home: Path
    sock_dir: Path
    launcher: Path


@dataclass
class RunOutcome:
    """How the harness process ended. ``reason`` is '' for a normal exit."""

    returncode: int | None
    reason: str            # '' | 'timeout' | 'output_limit'
    seconds: float
    output_tail: str


def harness_argv(m: Mounts, env: Mapping[str, str], port: int, command: Sequence[str]
                 ) -> list[str]:
    """The bwrap command line (exposed so a test can check what is, and is not, bound)."""
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--hostname", "sandbox", "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    args += ["--ro-bind", "/usr", "/usr", *_system_links()]
    for f in (*ETC_FILES, *EXTRA_ETC):
        args += ["--ro-bind-try", f, f]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
             "--ro-bind", str(m.install_dir), str(m.install_dir),
             "--bind", str(m.workspace), WORKSPACE,
             "--bind", str(m.home), HOME,
             "--bind", str(m.sock_dir), SOCK_DIR,
             "--ro-bind", str(m.launcher), LAUNCHER_PATH,
             "--chdir", WORKSPACE,
             SYSTEM_PYTHON, "-I", "-S", LAUNCHER_PATH, str(port), f"{SOCK_DIR}/endpoint.sock",
             *command]
    return args


def base_env(install_dir: Path) -> dict[str, str]:
    """The harness's environment: nothing inherited from the framework (keys, tokens)."""
    return {"PATH": f"{install_dir}/bin:{install_dir}/node_modules/.bin:/usr/bin:/bin",
            "HOME": HOME, "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
            "CI": "1", "TMPDIR": "/tmp"}


def run_bounded(argv: list[str], log_path: Path, *, wall_seconds: float,
                output_bytes: int) -> RunOutcome:
    """Run ``argv`` in its own session; kill the whole group at the wall clock or once its
    output exceeds ``output_bytes`` (everything up to the cap is kept in ``log_path``)."""
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    flooded = threading.Event()

    def drain() -> None:
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

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    reason = ""
    try:
        proc.wait(timeout=wall_seconds)
    except subprocess.TimeoutExpired:
        reason = "timeout"
        _kill(proc)
        proc.wait()
    reader.join(timeout=10)
    if flooded.is_set():
        reason = "output_limit"
    tail = log_path.read_bytes()[-3000:].decode("utf-8", errors="replace") \
        if log_path.is_file() else ""
    return RunOutcome(proc.returncode if not reason else None, reason,
                      round(time.monotonic() - t0, 3), tail)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
