"""Default backend: bubblewrap. One bwrap start per session, one fork per case inside it.

The sandbox's filesystem is built from nothing: only what Python needs is bound read-only (the
system's /usr tree, a few /etc files, the interpreter's prefixes), plus the verifier at
``/verifier``, the task's public directory at ``/task`` and the worker, the runtime loader and the
task source's runtime (that module or package only) under ``/mb``. The repository, suites and
outputs are never bound, and ``--ro-bind / /`` is never used, so hidden cases and reference
verifiers simply do not exist in there. Paths inside bound trees that hold secrets (e.g. an
installed package that ships a benchmark's answer keys, or an installed copy of monitorbench with
its reference verifiers) are covered by an empty read-only tmpfs.
"""

from __future__ import annotations

import atexit
import functools
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import monitorbench
from monitorbench.sandbox.base import SandboxSpec
from monitorbench.sandbox.session_cgroups import SessionCgroups
from monitorbench.sandbox.client import (WORKER_PATH, WorkerSession, check_inputs,
                                         default_runtimes_dir, minimal_env, resolve_runtime,
                                         sandbox_readable, sandbox_runtime_path,
                                         worker_config)

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
             "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/mime.types")
PIDS_SLACK = 8  # bwrap, its init, the worker: processes beyond the verifier's own allowance
SANDBOX_UID = 65534  # nobody: who the sandbox runs as when the framework runs as root
TMP_MB, SHM_MB = 256, 64  # the session's /tmp and /dev/shm (each case mounts its own, as large)


@functools.lru_cache(maxsize=1)
def bwrap_usable() -> bool:
    """bwrap installed *and* allowed to create namespaces here (some hosts forbid user
    namespaces, in which case every start would fail)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return False
    probe = [exe, "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
             *_system_links(), "--proc", "/proc", "--dev", "/dev", "/usr/bin/true"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _system_links() -> list[str]:
    """Merged-/usr systems have /bin, /lib... as symlinks: recreate them as symlinks."""
    args: list[str] = []
    for d in SYSTEM_DIRS[1:]:
        p = Path(d)
        if p.is_symlink():
            args += ["--symlink", str(p.readlink()), d]
        elif p.is_dir():
            args += ["--ro-bind", d, d]
    return args


def _python_roots() -> list[Path]:
    """The interpreter's prefixes (a venv has two) and the executable's real location."""
    roots = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(),
             Path(sys.executable).resolve().parent}
    return sorted(r for r in roots if not _under(r, [Path("/usr")]))


def _searchable_parents(path: Path) -> list[str]:
    """Create ``path``'s parents searchable by every user: bwrap as root makes them 0700 (a
    pyenv under /root), which the worker, once it is no longer root, could not pass through."""
    args: list[str] = []
    for parent in reversed(path.parents[:-1]):
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _under(path: Path, roots: list[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def _mask_args(masked: list[Path], bound: list[Path]) -> list[str]:
    args: list[str] = []
    for p in masked:
        if not _under(p, bound) or not p.exists():
            continue  # not visible in the sandbox anyway
        if p.is_dir():
            args += ["--tmpfs", str(p), "--remount-ro", str(p)]
        else:
            args += ["--ro-bind", "/dev/null", str(p)]
    return args


def bwrap_argv(verifier_dir: Path, public_dir: Path, spec: SandboxSpec,
               runtimes_dir: Path, case_pid_namespace: bool = True) -> list[str]:
    """The full command for one session (exposed so tests can check what is, and is not, bound).
    ``case_pid_namespace=False`` exists only so bench/case_pidns_cost.py can measure, side by
    side, what the cases' own PID namespace costs; sessions always use True."""
    bound = [Path("/usr"), *_python_roots()]
    runtime = resolve_runtime(spec.runtime, runtimes_dir)
    args = ["bwrap", *_namespace_args(), "--die-with-parent", "--new-session",
            "--hostname", "sandbox", "--clearenv"]
    for key, value in minimal_env().items():
        args += ["--setenv", key, value]
    args += ["--ro-bind", "/usr", "/usr", *_system_links()]
    args += _searchable_parents(Path(ETC_FILES[0]))
    for f in ETC_FILES:
        args += ["--ro-bind-try", f, f]
    for root in _python_roots():
        args += [*_searchable_parents(root), "--ro-bind", str(root), str(root)]
    args += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", str(SHM_MB << 20), "--tmpfs", "/dev/shm",
             "--perms", "1777", "--size", str(TMP_MB << 20), "--tmpfs", "/tmp",
             *(["--ro-bind", str(verifier_dir), "/verifier"] if verifier_dir.is_dir()
               else ["--dir", "/verifier"]),  # a missing verifier is judged missing_verifier
             "--ro-bind", str(public_dir), "/task",
             *_searchable_parents(Path("/mb/runtimes/__init__.py")),
             "--ro-bind", str(WORKER_PATH), "/mb/worker.py",
             "--ro-bind", str(compiled_worker(WORKER_PATH)), "/mb/worker.pyc",
             "--ro-bind", str(runtimes_dir / "__init__.py"), "/mb/runtimes/__init__.py"]
    if runtime is not None:
        inside = str(sandbox_runtime_path(runtime))
        args += [*_searchable_parents(Path(inside)), "--ro-bind", str(runtime), inside]
    masked = [Path(p).resolve() for p in spec.masked_paths]
    masked.append(Path(monitorbench.__file__).resolve().parent)  # reference verifiers live here
    args += _mask_args(masked, bound)
    # bwrap's root and /dev are writable tmpfs mounts that the worker never wipes: a file a case
    # wrote at /, /etc or /dev would reach the next case. Only /tmp and /dev/shm stay writable,
    # and the worker empties both after every case.
    args += ["--remount-ro", "/dev", "--remount-ro", "/"]
    args += ["--chdir", "/tmp", str(Path(sys.executable).resolve()), "-I", "-S", "-B",
             "/mb/worker.pyc",
             worker_config(spec, verifier_dir="/verifier", task_dir="/task",
                           runtimes_dir="/mb/runtimes",
                           runtime_path=sandbox_runtime_path(runtime), scratch_root="/tmp",
                           own_pid_namespace=True, wipe_also=("/dev/shm",),
                           own_ipc_namespace=True, case_pid_namespace=case_pid_namespace,
                           drop_to=SANDBOX_UID if os.geteuid() == 0 else None,
                           case_namespaces=case_pid_namespace,
                           case_tmpfs={"/tmp": TMP_MB, "/dev/shm": SHM_MB})]
    return args


def compiled_worker(source: Path) -> Path:
    """``source`` (the worker) compiled once per framework process and file version, for the
    sandbox to run as /mb/worker.pyc. Python never caches the bytecode of the script it is
    started with, so running /mb/worker.py compiled its ~1,100 lines at every session start:
    ~7 ms of CPU, ~0.3 ms a case of a BFCL session (issue 49). Its code keeps the name
    /mb/worker.py (tracebacks, ``_exc_line``); worker.py stays bound beside it for what imports
    it (bench/case_cost_profile.py)."""
    st = Path(source).stat()
    return _compile_worker(str(Path(source).resolve()), st.st_mtime_ns, st.st_size, st.st_ino)


@functools.lru_cache(maxsize=8)
def _compile_worker(source: str, mtime_ns: int, size: int, inode: int) -> Path:
    """The compiled file, in a directory private to this process (removed at its exit); the
    file's version is part of the cache key, so an edited worker is compiled again."""
    out = Path(_private_dir()) / f"worker-{mtime_ns}-{size}-{inode}.pyc"
    py_compile.compile(source, cfile=str(out), dfile="/mb/worker.py", doraise=True)
    return out


@functools.lru_cache(maxsize=1)
def _private_dir() -> str:
    path = tempfile.mkdtemp(prefix="mb-worker-")  # mode 0700: only this user can write it
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def _namespace_args() -> list[str]:
    """Every namespace but, for a framework running as root, the user namespace.

    bwrap as root maps its user namespace's uid 0 onto host uid 0, and the kernel judges some
    interfaces by the host uid alone (a write to /proc/sys is allowed to host uid 0 whatever its
    capabilities), so a case would be host root there. Instead bwrap keeps only CAP_SETUID and
    CAP_SETGID, and the worker, before anything else, becomes ``SANDBOX_UID`` for good (which
    clears every capability; ``worker.drop_privileges``). An unprivileged framework already runs
    as its own uid: bwrap's user namespace is the usual one and no capability is kept."""
    if os.geteuid() != 0:
        return ["--unshare-all", "--cap-drop", "ALL"]
    return ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
            "--cap-add", "CAP_SETGID"]


class BwrapSandbox:
    """Full isolation: no network, own PID/IPC/UTS/user/mount namespaces, minimal filesystem,
    and a PID namespace for the cases, in which a verifier cannot name its worker to kill it."""

    name = "bwrap"

    def __init__(self, runtimes_dir: Path | None = None) -> None:
        self.runtimes_dir = default_runtimes_dir(runtimes_dir)
        self.cgroups = SessionCgroups()

    @contextmanager
    def session(self, verifier_dir: Path, public_dir: Path, spec: SandboxSpec
                ) -> Iterator[WorkerSession]:
        check_inputs(Path(public_dir), spec, self.runtimes_dir)
        with sandbox_readable(Path(verifier_dir).resolve(), os.geteuid() == 0) as vdir, \
                self.cgroups.lease(spec.limits.processes + PIDS_SLACK) as launch:
            argv = bwrap_argv(vdir, Path(public_dir).resolve(), spec, self.runtimes_dir)
            with WorkerSession(launch.wrap(argv), minimal_env(), spec,
                               popen=launch.popen) as s:
                yield s
