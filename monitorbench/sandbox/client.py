"""Framework side of the worker protocol, shared by every backend.

A backend only decides *how* the worker is started (bwrap, unshare, docker: the argv prefix and
the paths the worker sees); starting it, talking to it, the per-session wall timeout and the
clean-up are the same everywhere and live here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import selectors
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from monitorbench.errors import InputError
from monitorbench.sandbox.base import SANDBOX_ERROR, SandboxSpec, Verdict
from monitorbench.sandbox.seccomp import compile_filter
from monitorbench.sandbox.decision import cap, verdict_from_answer
from monitorbench.sandbox.runtimes import RUNTIMES_DIR, available

WORKER_PATH = Path(__file__).resolve().parent / "worker.py"
# Seconds for the sandbox to come up (a cold bwrap + Python start ~0.1 s; the heaviest runtime
# import, a state source's replay environment, a few seconds on a loaded 2-core machine). One
# that takes longer is an infrastructure failure and is retried; waiting longer would cost
# minutes per case on a hung one.
START_TIMEOUT = 10.0
ANSWER_GRACE = 5.0       # seconds beyond the per-case wall clock before the worker counts as hung
ANSWER_CAP = 4 << 20     # bytes of one answer line; a worker answer is small by construction


def check_inputs(public_dir: Path, spec: SandboxSpec, runtimes_dir: Path) -> None:
    """Refuse a task without task.json or an unknown runtime before any sandbox starts (a
    verifier directory may be missing or empty: that is judged ``missing_verifier``)."""
    task_json = Path(public_dir) / "task.json"
    if not task_json.is_file():
        raise InputError(task_json, None, "the task's public task.json is missing",
                         "pass the task's public/<task_id> directory of a built suite, or "
                         "rebuild the suite")
    check_runtime(spec, runtimes_dir)


def check_runtime(spec: SandboxSpec, runtimes_dir: Path) -> None:
    """Refuse an unknown runtime before any sandbox starts."""
    resolve_runtime(spec.runtime, runtimes_dir)
    try:
        json.dumps(dict(spec.runtime_config))
    except (TypeError, ValueError) as e:
        raise InputError(None, "sandbox.runtime_config", f"not JSON-serializable ({e})",
                         "use only strings, numbers, booleans, lists and dicts") from None


def resolve_runtime(name: str, runtimes_dir: Path) -> Path | None:
    """The host file (a module) or directory (a package) of runtime ``name``, which a backend
    binds read-only and nothing else of the package it lives in; None for ``"none"``.

    ``name`` is a module path (``"mysource.runtime"``, resolved with the framework's imports
    without importing the module itself) or a bare name of a module in ``runtimes_dir``. See
    monitorbench/sandbox/runtimes/__init__.py for the contract.
    """
    if name == "none":
        return None
    parts = name.split(".")
    if not all(p.isidentifier() for p in parts):
        raise _unknown_runtime(name, runtimes_dir, "not a module path")
    if len(parts) == 1:
        path = Path(runtimes_dir) / f"{name}.py"
        if path.is_file():
            return path.resolve()
        raise _unknown_runtime(name, runtimes_dir, f"no {path}")
    try:
        found = importlib.util.find_spec(name)
    except (ImportError, ValueError) as e:  # ValueError: imported with no __spec__
        raise _unknown_runtime(name, runtimes_dir, str(e)) from None
    if found is None or not (found.origin or "").endswith(".py"):
        raise _unknown_runtime(name, runtimes_dir, "no such Python source module")
    origin = Path(found.origin).resolve()  # type: ignore[arg-type]
    return origin.parent if found.submodule_search_locations is not None else origin


def _unknown_runtime(name: str, runtimes_dir: Path, why: str) -> InputError:
    return InputError(None, "sandbox.runtime", f"unknown runtime {name!r} ({why})",
                      "name the task source's runtime module as 'package.module' "
                      f"(SourceSpec.runtime), 'none', or one of {available(runtimes_dir)} "
                      f"(modules in {runtimes_dir})")


def sandbox_runtime_path(host_path: Path | None, root: str = "/mb/runtime") -> str | None:
    """Where a backend that binds paths puts the runtime inside the sandbox."""
    return None if host_path is None else f"{root}/{host_path.name}"


def worker_config(spec: SandboxSpec, *, verifier_dir: str, task_dir: str, runtimes_dir: str,
                  runtime_path: str | None,
                  scratch_root: str, own_pid_namespace: bool, wipe_also: tuple[str, ...] = (),
                  own_ipc_namespace: bool = False, case_pid_namespace: bool = False,
                  drop_to: int | None = None, case_namespaces: bool = False,
                  case_tmpfs: Mapping[str, int] | None = None, case_tmpfs_optional: bool = False,
                  pid_counter: str | None = None) -> str:
    """The worker's argv[1]: everything it needs, with paths as seen *inside* the sandbox.

    ``runtimes_dir``: the directory of the runtime loader package; ``runtime_path``: the runtime
    module file or package directory (None: no runtime).
    ``wipe_also``: further writable directories private to the sandbox that the worker empties
    after every case, like the scratch root. ``own_ipc_namespace``: the sandbox has its own System
    V IPC namespace, so the worker may remove every shared-memory segment, semaphore set and
    message queue in it after every case (they outlive the processes that made them); a backend
    that shares the host's IPC namespace must leave this False. ``case_pid_namespace``: the
    cases run in a user + PID namespace of their own under a small init, so nothing a verifier
    does can signal the worker (a killed worker would look like an infrastructure fault); the
    backend must permit unprivileged user namespaces inside the sandbox. ``drop_to``: the uid
    and gid the worker, started as root with CAP_SETUID and CAP_SETGID only, becomes before it
    does anything else (no case ever runs as host uid 0). ``case_namespaces``: every case gets
    its own IPC and PID namespace (needs ``case_pid_namespace``), and ``case_tmpfs`` (path to
    size in MB) a fresh tmpfs over each of those directories in a mount namespace of its own,
    dropped whole when it ends; directories not listed are wiped after every case instead.
    ``case_tmpfs_optional``: where the sandbox refuses the worker its mounts or its pid counter
    (docker under an AppArmor profile), the worker wipes those directories instead of failing.
    ``pid_counter``: the path of ns_last_pid inside the sandbox, if not /proc/sys's. Every
    case, on every backend, runs without capabilities under the deny list of
    :mod:`monitorbench.sandbox.seccomp`.
    """
    return json.dumps({
        "limits": asdict(spec.limits), "verifier_dir": verifier_dir, "task_dir": task_dir,
        "runtimes_dir": runtimes_dir, "scratch_root": scratch_root,
        "runtime": spec.runtime, "runtime_path": runtime_path,
        "runtime_config": dict(spec.runtime_config),
        "own_pid_namespace": own_pid_namespace, "wipe_also": list(wipe_also),
        "own_ipc_namespace": own_ipc_namespace, "case_pid_namespace": case_pid_namespace,
        "drop_to": drop_to, "case_namespaces": case_namespaces,
        "case_tmpfs": dict(case_tmpfs or {}), "case_tmpfs_optional": case_tmpfs_optional,
        "pid_counter": pid_counter,
        "seccomp": compile_filter().hex(),
    })


READABLE_CHECK_ENTRIES = 10_000  # a verifier directory is main.py and a few helpers


@contextmanager
def sandbox_readable(verifier_dir: Path, needed: bool) -> Iterator[Path]:
    """``verifier_dir``, or a copy of it that the sandbox's unprivileged user can read.

    The sandbox runs as an ordinary user (never host root), so it reads the bound verifier
    directory through the "other" permission bits. A directory made by ``mkdtemp`` (0700), a
    file written under umask 077 (0600) would otherwise be a silent ``missing_verifier`` for
    every case. Such a directory is copied into a private one with 0755 directories and 0644
    files (symlinks kept as links, other special files left out) for the session. ``needed``:
    the sandbox's user differs from the files' owner (a framework running as root, docker)."""
    if not needed or not verifier_dir.is_dir() or _world_readable(verifier_dir):
        yield verifier_dir
        return
    with tempfile.TemporaryDirectory(prefix="mb-verifier-") as tmp:
        copy = Path(tmp) / "verifier"
        copy_readable(verifier_dir, copy)
        yield copy


def copy_readable(src: Path, dst: Path) -> None:
    """Copy a verifier directory into ``dst`` (which may exist, empty) with 0755 directories
    and 0644 files (symlinks kept as links, other special files left out)."""
    shutil.copytree(src, dst, symlinks=True, copy_function=shutil.copyfile,
                    ignore=_special_files, dirs_exist_ok=True)
    for root, dirs, files in os.walk(dst):
        os.chmod(root, 0o755)
        for name in files:
            if not os.path.islink(os.path.join(root, name)):
                os.chmod(os.path.join(root, name), 0o644)


def _world_readable(top: Path) -> bool:
    """Every directory under ``top`` searchable and every file readable by any user (within
    READABLE_CHECK_ENTRIES entries; a larger tree counts as not checked, so it is copied)."""
    seen = 0
    for root, dirs, files in os.walk(top):
        if os.stat(root).st_mode & 0o005 != 0o005:
            return False
        for name in files:
            seen += 1
            st = os.lstat(os.path.join(root, name))
            if seen > READABLE_CHECK_ENTRIES or (stat.S_ISREG(st.st_mode)
                                                and not st.st_mode & 0o004):
                return False
    return True


def _special_files(root: str, names: list[str]) -> set[str]:
    """FIFOs, sockets and devices: nothing a verifier reads, and a FIFO would block the copy."""
    out = set()
    for name in names:
        mode = os.lstat(os.path.join(root, name)).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
            out.add(name)
    return out


def minimal_env() -> dict[str, str]:
    """The sandbox must not inherit the framework's environment (API keys, tokens)."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp",
            "PYTHONDONTWRITEBYTECODE": "1"}


def _wait_exit(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Wait up to ``timeout`` for ``proc`` to exit. A pidfd wakes us the moment it does;
    ``Popen.wait(timeout)`` would poll with sleeps that grow to 50 ms, which every session's
    close paid (8 ms on average, measured). Falls back to it where pidfds are missing."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
        return
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(pidfd, selectors.EVENT_READ)
            if sel.select(timeout):
                proc.wait()
    finally:
        os.close(pidfd)


class WorkerSession:
    """One running worker. ``judge`` never raises for verifier misbehaviour: a hung or dead
    worker becomes a ``sandbox_error`` verdict and the next call starts a fresh worker."""

    def __init__(self, argv: list[str], env: Mapping[str, str], spec: SandboxSpec,
                 on_close: Callable[[], None] | None = None,
                 answer_grace: float = ANSWER_GRACE,
                 popen: Callable[..., subprocess.Popen[bytes]] = subprocess.Popen) -> None:
        self.argv = argv
        self.popen = popen  # what starts the worker (a session_cgroups spawner's, or Popen)
        self.answer_grace = answer_grace
        self.env = dict(env)
        self.spec = spec
        self.on_close = on_close
        self.proc: subprocess.Popen[bytes] | None = None
        self.start_seconds: list[float] = []  # one entry per (re)start, for the bench
        self._start_error: Exception | None = None  # __enter__'s failed start, for judge
        self._buf = b""
        self._stderr = tempfile.TemporaryFile()
        # Workers that had to be killed (not exited): a container backend must then remove
        # what the killed client leaves behind (on_close).
        self.forced_kills = 0

    # ------------------------------------------------------------------------- lifecycle

    def start(self) -> None:
        t0 = time.monotonic()
        self._buf = b""
        self._stderr.seek(0)
        self._stderr.truncate()
        self.proc = self.popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=self._stderr, env=self.env, start_new_session=True,
                               close_fds=True)
        self._await_ready(t0, self._kill)

    def _await_ready(self, t0: float, abandon: Callable[[], None],
                     launch: Callable[[], None] | None = None) -> None:
        """Wait for the worker's ready line, after ``launch`` (whose failure counts as the
        worker's) when given; unless it comes, ``abandon`` the worker and raise RuntimeError,
        else record the start's seconds. The one start check of every backend's session."""
        try:
            if launch is not None:
                launch()
            hello = self._read_line(START_TIMEOUT)
        except (OSError, RuntimeError, TimeoutError, ValueError) as e:
            hello = {"error": f"{e}; {self._stderr_tail()}"}
        if not isinstance(hello, dict) or not hello.get("ready"):
            why = hello.get("error") if isinstance(hello, dict) else repr(hello)
            abandon()
            raise RuntimeError(f"sandbox worker did not start: {why}")
        self.start_seconds.append(time.monotonic() - t0)

    def close(self) -> None:
        self._retire()
        self._stderr.close()
        if self.on_close is not None:
            self.on_close()

    def interrupt(self) -> None:
        """Kill the worker from another thread (a stopped run): the thread judging on this
        session then reads its exit at once and cleans up itself (``judge`` never raises)."""
        proc = self.proc
        if proc is not None and proc.returncode is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def __enter__(self) -> "WorkerSession":
        """A sandbox that fails to start does not raise here: the first ``judge`` reports it
        as ``sandbox_error`` (without waiting for a second start: a hung start costs
        START_TIMEOUT once per attempt, not twice), later ones retry the start, so a run
        records it and goes on."""
        try:
            self.start()
        except (OSError, RuntimeError) as e:
            self._kill()
            self._start_error = e
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _kill(self) -> None:
        if self.proc is None:
            return
        self.forced_kills += self.proc.poll() is None
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass
        self.proc = None

    # ------------------------------------------------------------------------- judging

    def judge(self, candidate: Mapping[str, Any]) -> Verdict:
        """Send one candidate, wait for its verdict (per-case wall clock plus a grace)."""
        line = (json.dumps({"candidate": dict(candidate)}) + "\n").encode()
        t0 = time.monotonic()
        if self._start_error is not None:
            error, self._start_error = self._start_error, None
            return Verdict(decision=None, reason=SANDBOX_ERROR,
                           detail=cap(f"{type(error).__name__}: {error}"), seconds=0.0)
        try:
            if self.proc is None or self.proc.poll() is not None:
                self._kill()
                self.start()
            self._send(line)
            answer = self._read_line(self.spec.limits.wall_seconds + self.answer_grace)
        except (OSError, RuntimeError, TimeoutError, ValueError) as e:
            self._kill()
            return Verdict(decision=None, reason=SANDBOX_ERROR,
                           detail=cap(f"{type(e).__name__}: {e}; {self._stderr_tail()}"),
                           seconds=time.monotonic() - t0)
        if isinstance(answer, dict) and answer.get("replace_worker"):
            self._retire()  # it exits after this answer: the next case gets a fresh sandbox
        return verdict_from_answer(answer)

    def _retire(self) -> None:
        """Close the worker's input and give it a second to exit (one that announced its exit,
        or one at the session's end), then forget it (``judge`` starts the next one); one that
        lingers is killed."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # type: ignore[union-attr]
                _wait_exit(self.proc, 1.0)
            except OSError:
                pass
        self._kill()

    def _send(self, data: bytes) -> None:
        """Write to the worker (its stdin; a kept container's socket, kept.py)."""
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def _answer_fd(self) -> int:
        """Where the worker's answers come from (its stdout; a kept container's socket)."""
        assert self.proc is not None and self.proc.stdout is not None
        return self.proc.stdout.fileno()

    def _read_line(self, timeout: float) -> Any:
        fd = self._answer_fd()
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buf:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"worker gave no answer within {timeout:.1f} s")
                if not sel.select(remaining):
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise RuntimeError("worker exited")
                self._buf += chunk
                if len(self._buf) > ANSWER_CAP:
                    raise ValueError(f"worker answer longer than {ANSWER_CAP} bytes")
        line, _, self._buf = self._buf.partition(b"\n")
        return json.loads(line)

    def _stderr_tail(self) -> str:
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 400))
            return self._stderr.read().decode("utf-8", "replace").strip() or "(no stderr)"
        except (OSError, ValueError):
            return "(stderr unavailable)"


def default_runtimes_dir(runtimes_dir: Path | None) -> Path:
    """Backends accept an alternative runtimes directory (tests use one with toy runtimes named
    by bare names); its ``__init__.py`` is the loader the worker imports."""
    path = Path(runtimes_dir) if runtimes_dir is not None else RUNTIMES_DIR
    if path.name != "runtimes" or not (path / "__init__.py").is_file():
        raise InputError(None, "sandbox.runtimes_dir",
                         f"{path} is not a runtimes package directory",
                         "point it at a directory named 'runtimes' holding the __init__.py of "
                         "monitorbench/sandbox/runtimes and the runtime modules")
    return path.resolve()
