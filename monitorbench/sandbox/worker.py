"""In-sandbox worker: judge candidates one at a time, each in a fresh forked child.

This file is bound read-only into the sandbox and run by the sandbox's own Python, so it uses the
standard library only and never imports monitorbench (the package is not visible in there).

Protocol (newline-delimited JSON over stdin/stdout):

* start: ``python3 -I -S -B worker.py CONFIG_JSON``; the worker answers ``{"ready": true, ...}``.
* request ``{"candidate": {...}}`` -> one answer line per request, either
  ``{"status": "returned", "value": <JSON value>, "seconds": s, "executions": n}``,
  ``{"status": "unserializable", "repr": "...", ...}`` or
  ``{"status": "u", "reason": "<U reason>", "detail": "...", ...}``.

Why a fork per case: the untrusted ``main.py`` (including its module-level code) must only ever run
inside a per-case child, so no state from one case reaches the next. The parent merely
``compile()``s the source once, which executes nothing. After each case the parent kills every
other process in the sandbox's PID namespace and wipes the case's scratch directory.

Why cases get a PID namespace of their own (``case_pid_namespace``): a case runs as the same user
as the worker, so it could kill the worker (``os.kill(os.getppid(), 9)``, ``os.kill(-1, 9)``, or
pids read from /proc), and the judging loop could not tell that from an infrastructure fault. So
at start the worker enters a new user namespace and makes its *children* start in a new PID
namespace, whose pid 1 is a small init it forks at once. Every case is then forked into that
namespace: the worker has no pid there (``getppid()`` is 0), ``kill(-1)`` reaches only the case's
own processes, and pid 1 ignores signals sent from inside. The worker still sees and kills
everything left after a case, as before.
"""

from __future__ import annotations

import gc
import _json
import os
import resource
import select
import _signal
import stat
import sys
import time

DETAIL_CAP = 500          # characters of exception/detail text sent back
RESULT_CAP = 1 << 20      # bytes a verify() return value may take once encoded
OUTPUT_KEEP = 4096        # bytes of printed output kept from the start, to diagnose kills
OUTPUT_TAIL = 2000        # bytes of printed output sent back (Verdict.stdout)
# trusted stdlib the parent imports once a case shows the verifier uses it (``_preload``)
PRELOAD = ("json", "re", "ast", "math", "collections", "itertools", "functools", "typing",
           "string", "copy")
EXPECTED = "expected 'PASS', 'FAIL' or {'decision': 'PASS'|'FAIL', 'confidence': float}"


def _cap(text: str, n: int = DETAIL_CAP) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


# JSON on the wire through ``_json``, json's own C codec, without ``import json``: its decoder
# imports re and enum, ~5 ms of every session's start (issue 49). Same output and errors as
# json.dumps and json.loads with their defaults (tests/sandbox/test_worker_wire.py).
class _JSONContext:
    """What ``_json.make_scanner`` reads: json.loads's defaults."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int
    parse_constant = float  # NaN, Infinity, -Infinity, as json.loads reads them


_scan = _json.make_scanner(_JSONContext())
_WHITESPACE = " \t\n\r"


def _loads(text: str | bytes) -> object:
    """``json.loads`` for UTF-8 text; a ValueError (json's JSONDecodeError or one of ours)
    for anything that is not one JSON value."""
    if not isinstance(text, str):
        text = bytes(text).decode("utf-8", "surrogatepass")
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as e:
        raise ValueError(f"Expecting value: char {e.value}") from None
    rest = text[end:].lstrip(_WHITESPACE)
    if rest:
        raise ValueError(f"Extra data: char {len(text) - len(rest)}")
    return value


def _unencodable(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _dumps(value: object) -> str:
    """``json.dumps(value)``: a fresh circular-reference guard each call, as json makes one."""
    encode = _json.make_encoder({}, _unencodable, _json.encode_basestring_ascii, None, ": ",
                                ", ", False, False, True)
    return "".join(encode(value, 0))


class Env:
    """The plain ``env`` a verifier receives when no runtime is configured."""

    def __init__(self, task: dict, public_dir: str) -> None:
        self.task = task
        self.public_dir = public_dir


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _no_ptrace() -> None:
    """Make the worker non-dumpable so a verifier child cannot ptrace it or read its /proc fds
    (which would let it see later candidates)."""
    try:
        _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError, ImportError):
        pass


# ------------------------------------------------------------------------------------ the child


def _rlimits(limits: dict) -> list[tuple[int, tuple[int, int]]]:
    """The per-case resource limits as ``setrlimit`` arguments, computed once per session in the
    parent (a case's children inherit the parent's current limits, which never change), so each
    case only makes the six ``setrlimit`` calls."""
    mb = 1024 * 1024
    cpu = int(limits["cpu_seconds"])
    pairs = [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (int(limits["memory_mb"]) * mb,) * 2),
        (resource.RLIMIT_NPROC, (int(limits["processes"]),) * 2),
        (resource.RLIMIT_FSIZE, (int(limits["file_size_mb"]) * mb,) * 2),
        (resource.RLIMIT_NOFILE, (int(limits["open_files"]),) * 2),
        (resource.RLIMIT_CORE, (0, 0)),
    ]
    out = []
    for which, (soft, hard) in pairs:
        cur_hard = resource.getrlimit(which)[1]
        if cur_hard != resource.RLIM_INFINITY:  # cannot raise a hard limit: keep the lower one
            hard = min(hard, cur_hard)
            soft = min(soft, hard)
        out.append((which, (soft, hard)))
    return out


def _set_limits(rlimits: list[tuple[int, tuple[int, int]]]) -> None:
    for which, pair in rlimits:
        resource.setrlimit(which, pair)


def _send(obj: dict, me: int, env: object, res_w: int) -> None:
    """Write the case's one answer to the result pipe and exit; never returns.

    Only the case child itself (pid ``me``) may answer: descendants a verifier forks share the
    child's except-paths, so they are silenced here. ``env`` is None until make_env succeeded (the
    answer then counts no executions). The answer is capped once encoded so a huge return value
    becomes a malformed U instead of flooding the parent, and a value JSON cannot encode an
    ``unserializable`` answer (found by encoding it once, here: a separate check before cost
    every case a second encoding, issue 49)."""
    if os.getpid() != me:
        os._exit(0)
    obj["executions"] = _executions(env)
    obj["preload"] = [name for name in PRELOAD if name in sys.modules]
    try:
        data = _dumps(obj).encode()
    except (TypeError, ValueError, RecursionError):
        data = _dumps({"status": "unserializable", "repr": _cap(_safe_repr(obj.get("value"))),
                       "executions": obj["executions"], "preload": obj["preload"]}).encode()
    if len(data) > RESULT_CAP:
        data = _dumps({"status": "u", "reason": "malformed",
                       "detail": f"returned a value of {len(data)} bytes once encoded "
                                 f"(cap {RESULT_CAP}); {EXPECTED}"}).encode()
    _write_all(res_w, data + b"\n")  # the newline tells the parent the answer is whole
    os._exit(0)


def _enter_case(state: dict, scratch: str, out_w: int, res_w: int) -> None:
    """Turn the freshly forked child into the case's process before any untrusted code runs.

    Its own session (so the parent can kill the whole group), stdin from /dev/null, stdout and
    stderr into the capped output pipe, every other inherited fd closed except the result pipe (so
    the case cannot read the parent's requests), the scratch directory as home and temp dir, and
    the per-case resource limits. SIGXFSZ is ignored so an oversize write raises OSError."""
    os.setsid()
    os.dup2(state["devnull"], 0)
    os.dup2(out_w, 1)
    os.dup2(out_w, 2)
    os.closerange(3, res_w)
    os.closerange(res_w + 1, 65536)
    if not state["fixed_scratch"]:  # else the parent moved in before the fork (_prepare_case)
        _use_scratch(scratch)
    _set_limits(state["rlimits"])
    # _signal's own function: signal.signal converts both handlers to enums in Python code,
    # which in a fresh fork cost ~0.1 ms of page copies (issue 49)
    _signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)
    _signal.signal(_signal.SIGXFSZ, _signal.SIG_IGN)  # oversize writes raise OSError instead
    sys.dont_write_bytecode = True
    sys.path.insert(0, state["verifier_dir"])
    if state["confinement"] is not None:
        _confine(*state["confinement"])


def _use_scratch(scratch: str) -> None:
    """Make ``scratch`` this process's working, home and temp directory."""
    os.chdir(scratch)
    os.environ["HOME"] = scratch
    os.environ["TMPDIR"] = scratch
    if "tempfile" in sys.modules:  # a runtime imported it in the parent: its cached dir is stale
        sys.modules["tempfile"].tempdir = scratch


PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
CAPS_VERSION_3 = 0x20080522


def _confinement(program_hex: str | None):
    """What ``_confine`` needs, built once per session in the parent: libc's ``capset`` and
    ``prctl``, the capability header and the empty capability sets, and the framework's
    compiled seccomp filter (``monitorbench/sandbox/seccomp.py``) as a ``struct sock_fprog``.
    Built here because each case child is a fresh fork: ctypes array types, buffers and libc
    symbol lookups made in the child would cost every case ~0.25 ms of CPU (issue 49)."""
    if not program_hex:
        return None
    import _ctypes

    program = bytes.fromhex(program_hex)
    buf = _c_array("c", len(program)).from_buffer_copy(program)

    class SockFprog(_ctypes.Structure):
        _fields_ = [("len", _c_type("H")), ("filter", _c_type("P"))]  # ushort, void *

    fprog = SockFprog(len(program) // 8, _ctypes.addressof(buf))
    header = _c_array("I", 2)(CAPS_VERSION_3, 0)  # two uint32
    data = _c_array("I", 6)()  # effective, permitted, inheritable x 2: all empty
    libc = _libc()
    return libc.capset, libc.prctl, header, data, _ctypes.byref(fprog), (fprog, buf)


def _confine(capset, prctl, header, data, fprog_ref, _keep) -> None:
    """Drop every capability the case holds (in the worker's user namespace it has them all,
    which would let it write ns_last_pid or mount) and load the deny list. Irreversible, and the
    last step before untrusted code; a failure is the sandbox's (``sandbox_error``)."""
    if capset(header, data) != 0:
        _raise_errno("capset")
    if prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog_ref, 0, 0) != 0:
        _raise_errno("seccomp filter")


def _raise_errno(what: str) -> None:
    import _ctypes

    raise OSError(_ctypes.get_errno(), what)


def _child(code, candidate: dict, state: dict, scratch: str, out_w: int, res_w: int) -> None:
    """Run one case; never returns. Every path ends in ``_send`` (one answer, then exit).

    The verifier's module code and ``verify()`` run right here, not in a helper, so untrusted code
    sees the same stack depth (recursion headroom) as before this function was split."""
    me = os.getpid()
    try:
        _enter_case(state, scratch, out_w, res_w)
    except BaseException as e:  # noqa: BLE001 - report and die, never fall back into the parent
        _send({"status": "u", "reason": "sandbox_error",
               "detail": _cap(f"child setup failed: {type(e).__name__}: {e}")}, me, None, res_w)

    try:
        env = _make_env(state, candidate)
    except BaseException as e:  # noqa: BLE001
        _send({"status": "u", "reason": "sandbox_error",
               "detail": _cap(f"runtime {state['runtime']!r} make_env failed: "
                              f"{type(e).__name__}: {e}")}, me, None, res_w)

    try:
        module = type(sys)("main")
        module.__file__ = state["main_path"]
        sys.modules["main"] = module
        exec(code, module.__dict__)  # noqa: S102 - untrusted code, isolated per-case child
        verify = module.__dict__.get("verify")
        if not callable(verify):
            _send({"status": "u", "reason": "missing_verifier",
                   "detail": "main.py defines no callable verify(candidate, env)"}, me, env, res_w)
        value = verify(candidate, env)
        sys.stdout.flush()
        sys.stderr.flush()
    except MemoryError as e:
        _send({"status": "u", "reason": "memory_limit",
               "detail": _cap(f"MemoryError: {e} (limit {state['limits']['memory_mb']} MB)")},
              me, env, res_w)
    except BaseException as e:  # noqa: BLE001 - any exception from untrusted code is a crash
        _send({"status": "u", "reason": "crash", "detail": _cap(_exc_line(e))}, me, env, res_w)
    _send({"status": "returned", "value": value}, me, env, res_w)  # or unserializable


def _exc_line(e: BaseException) -> str:
    """``Type: message (at file:line)``, the line being the innermost frame outside the worker.
    Walks the traceback by hand: the traceback module would cost every session its import."""
    frames = []
    tb = e.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    where = ""
    for filename, lineno in reversed(frames):
        if filename.startswith("/") and "worker.py" not in filename:
            where = f" (at {os.path.basename(filename)}:{lineno})"
            break
    return f"{type(e).__name__}: {_safe_str(e)}{where}"


def _safe_str(e: BaseException) -> str:
    try:
        return _cap(str(e))
    except Exception:  # noqa: BLE001 - __str__ of untrusted exceptions may itself raise
        return "<unprintable>"


def _safe_repr(value: object) -> str:
    try:
        return _cap(repr(value))
    except Exception:  # noqa: BLE001
        return f"<{type(value).__name__} with failing repr>"


def _executions(env: object) -> int:
    n = getattr(env, "executions", 0) if env is not None else 0
    return n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else 0


def _make_env(state: dict, candidate: object) -> object:
    """The env for one case. ``env.candidate`` lets a runtime act on the candidate by default
    (e.g. a run_public that applies the candidate's patch unless told otherwise)."""
    factory = state["make_env"]
    if factory is None:
        env = Env(state["task"], state["task_dir"])
    else:
        env = factory(state["task"], state["task_dir"], state["runtime_config"])
        env.task = state["task"]
        env.public_dir = state["task_dir"]
    env.candidate = candidate
    return env


# ----------------------------------------------------------------------------------- the parent


def _load_runtime(cfg: dict, task: dict):
    """Import the (trusted, task-source-provided) runtime at ``runtime_path`` once in the parent,
    through the loader package at ``runtimes_dir``, and let it prepare the session's task, so each
    child only pays for make_env. See monitorbench/sandbox/runtimes/__init__.py for the contract."""
    path = cfg.get("runtime_path")
    if not path:
        return None
    rdir = cfg["runtimes_dir"]
    sys.path.insert(0, os.path.dirname(rdir))
    import importlib

    package = importlib.import_module(os.path.basename(rdir))
    return package.load_env_factory(path, task, cfg["task_dir"], cfg.get("runtime_config", {}))


CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
PID_COUNTER = "/proc/sys/kernel/ns_last_pid"


def _start_case_namespace(libc, case_namespaces: bool, own_mounts: bool,
                          mounts_optional: bool = False, counter: str = PID_COUNTER
                          ) -> tuple[int, tuple[int, int] | None]:
    """Put every later child of the worker into a new PID namespace and start its init; returns
    the init's pid (in the worker's namespace) and, with ``case_namespaces`` and ``own_mounts``
    (the fast path, ``_prepare_case``), the worker's ends of the init's control pipes, by which
    it asks the init to reset the pid counter. Must run while the worker has one thread.

    The new user namespace is what permits the PID namespace without privileges (bwrap drops
    every capability). With ``case_namespaces`` the worker's own uid and gid are mapped into it
    (the one mapping an unprivileged process may write): a case's own tmpfs and IPC namespace
    need a mapped owner to hold files and queues. Without it the worker and its cases see
    themselves and every file as the overflow id 65534 ("nobody"). Either way the kernel checks
    files, signals, rlimits and the pids cgroup against the real ids, so what a case may touch
    does not change. ``own_mounts``: the worker also gets a mount namespace of its own, in which
    it mounts each case's tmpfs (``_prepare_case``); with ``mounts_optional``, where the host
    refuses it mounts (docker under an AppArmor profile that denies mount), the worker goes on
    without (the cases then get ``_isolate_case`` and wiped directories, see ``_session_state``).
    ``counter``: the pid counter file the init opens (``_open_pid_counter``)."""
    uid, gid = os.geteuid(), os.getegid()
    _check(libc.unshare(CLONE_NEWUSER | CLONE_NEWPID | (CLONE_NEWNS if own_mounts else 0)),
           "unshare(CLONE_NEWUSER|CLONE_NEWPID)")
    if case_namespaces:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                           ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
    if own_mounts:
        try:
            _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount private")
        except OSError:
            if not mounts_optional:
                raise
            own_mounts = False
    _no_ptrace()  # only now: a non-dumpable process may not write its own id maps
    if not (case_namespaces and own_mounts):
        return _fork_init(libc), None
    ctl_r, ctl_w = os.pipe()
    ack_r, ack_w = os.pipe()
    init = _fork_init(libc, ctl_r, ack_w, counter)
    os.close(ctl_r)
    os.close(ack_w)
    return init, (ctl_w, ack_r)


def _fork_init(libc, ctl_r: int | None = None, ack_w: int | None = None,
               counter: str = PID_COUNTER) -> int:
    """Fork the init of the PID namespace the next children start in (``_case_init``)."""
    init = os.fork()
    if init == 0:
        try:
            _case_init(libc, ctl_r, ack_w, counter)
        finally:
            os._exit(70)
    return init


def _cover_proc(libc) -> None:
    """An empty, read-only tmpfs over /proc in this mount namespace, for every case judged in it.

    A case's own PID namespace resets the counter its own calls see (``getpid``, ``fork``), but
    /proc is the sandbox's: ``readlink("/proc/self")`` and the listing of /proc show pids of the
    sandbox's namespace, whose counter an earlier case moves (40 forks move the next case's
    /proc/self by 40), so one case could pass the next a number. A procfs of the cases' own
    namespace cannot be mounted (bubblewrap's read-only covers of /proc/sys and others make the
    kernel refuse a new one), so the cases get none: a verifier has no use for it (Python falls
    back where it looks for /proc/self/fd). The worker keeps an fd of the real /proc (``proc``
    in the session state) to find a case's strays, and the init its open pid counter."""
    _check(libc.mount(b"tmpfs", b"/proc", b"tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                      b"size=4k,mode=555"), "tmpfs over /proc")


def _mount_case_tmpfs(libc, case_tmpfs: dict) -> None:
    """A fresh tmpfs of the stated size over each directory, writable by everyone (sticky)."""
    for path, mb in case_tmpfs.items():
        _check(libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
                          f"size={mb}m,mode=1777".encode()), f"tmpfs on {path}")


PR_SET_PDEATHSIG = 1


def _case_init(libc, ctl_r: int | None = None, ack_w: int | None = None,
               counter_path: str = PID_COUNTER) -> None:
    """Pid 1 of the cases' namespace, for the whole session: it reaps the orphans that cases
    leave behind and, asked by the worker before each case (one byte on ``ctl_r``), reaps what
    is left and sets the namespace's pid counter back (``_pid_counter_to``). Its only signal handler
    is SIGCHLD's, which reaps; the kernel drops every other signal a case sends it, so only the
    worker, from outside, can kill it (and if it died, forks would fail and the session would
    restart: an infrastructure fault).

    It dies with the worker (the kernel's parent-death signal, which comes from outside the
    namespace and so is not dropped): it reaps forever, and a worker killed from outside while
    the sandbox's own init could not tear the session down (a Slurm requeue signals every
    process of the job) would otherwise leave it, and with it the sandbox, behind for good."""
    libc.prctl(PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0)
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
    counter = _open_pid_counter(counter_path) if ctl_r is not None else None  # before the cover
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    low = 3
    for keep in sorted(fd for fd in (ctl_r, ack_w, counter) if fd is not None):
        os.closerange(low, keep)
        low = keep + 1
    os.closerange(low, 65536)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    _signal.set_wakeup_fd(wake_w)
    _signal.signal(_signal.SIGCHLD, lambda *_: None)
    poller = select.poll()  # not selectors: its import cost every session start ~0.8 ms
    for fd in (wake_r, ctl_r):
        if fd is not None:
            poller.register(fd, select.POLLIN)
    while True:
        for fd, _ in poller.poll():
            if fd == wake_r:
                os.read(wake_r, 4096)
            elif not os.read(ctl_r, 1):
                os._exit(0)  # the worker is gone
            else:
                _reap()
                os.write(ack_w, b"\x01" if _pid_counter_to(counter, 1) else b"\x00")  # type: ignore
        _reap()


def _open_pid_counter(path: str = PID_COUNTER) -> int | None:
    """This namespace's pid counter opened for writing, once, so the init can keep resetting it
    after the worker covers /proc (``_cover_proc``); None where the kernel refuses (a read-only
    /proc/sys, as docker mounts it). ``path``: /proc/sys/kernel/ns_last_pid, or a bind of it
    (docker binds the host's at /mb/ns_last_pid): a write sets the counter of the *writer's*
    PID namespace, and only where it holds CAP_SYS_ADMIN over it (the init, never a case)."""
    try:
        return os.open(path, os.O_WRONLY)
    except OSError:
        return None


def _pid_counter_to(counter: int | None, last: int) -> bool:
    """Make the next pid of this (the init's own) namespace ``last + 1`` through ``counter``
    (``_open_pid_counter``); False where it could not be opened or the write is refused."""
    if counter is None:
        return False
    try:
        return os.pwrite(counter, str(last).encode(), 0) > 0
    except OSError:
        return False


def _ancestry() -> frozenset[int]:
    """This worker and its ancestors (in bwrap: bwrap's init), which must survive clean-up.
    Computed once at start: a process's ancestors never change while it lives."""
    keep = set()
    pid = os.getpid()
    while pid > 0 and pid not in keep:
        keep.add(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
            pid = int(stat[stat.rindex(b")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return frozenset(keep)


def _other_pids(keep: frozenset[int], proc: int | str = "/proc") -> list[int]:
    """Every process in this PID namespace except ``keep`` (``proc``: /proc, or an fd of it
    kept from before the cases' view of it was covered)."""
    return [int(e) for e in os.listdir(proc) if e.isdigit() and int(e) not in keep]


def _kill_strays(own_pid_namespace: bool, child_pgid: int, keep: frozenset[int],
                 proc: int | str = "/proc") -> None:
    """Nothing may survive a case. In our own PID namespace we can kill everything else; elsewhere
    (no namespace) only the child's process group is safe to kill."""
    try:
        os.killpg(child_pgid, _signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if own_pid_namespace:
        for _ in range(100):
            pids = _other_pids(keep, proc)
            if not pids:
                break
            for p in pids:
                try:
                    os.kill(p, _signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            _reap()
            time.sleep(0.001)
    _reap()


WIPE_MAX_ENTRIES = 100_000  # entries one clean-up may remove before it calls the sandbox tampered


def _wipe(root: str) -> bool:
    """Empty ``root`` (the scratch root, /dev/shm, /dev/mqueue) so nothing a case wrote reaches
    the next one. Returns False when it could not: the case then is ``sandbox_tampered`` and the
    worker is replaced (``main``), never a crash of the worker.

    Written against what a case can leave: no recursion (a 1,500-deep tree is a loop, not a
    RecursionError), every directory made searchable and writable before it is read (a mode-0
    directory is the case's own file, so chmod works), symlinks removed and never followed
    (``lstat``), and at most WIPE_MAX_ENTRIES removals."""
    budget = WIPE_MAX_ENTRIES
    stack = [(root, False)]
    while stack:
        path, listed = stack.pop()
        if listed:
            if path != root:
                try:
                    os.rmdir(path)
                except OSError:
                    return False
            continue
        try:
            if path != root:
                os.chmod(path, 0o700)
            names = os.listdir(path)
        except OSError:
            return False
        stack.append((path, True))
        for name in names:
            budget -= 1
            if budget < 0:
                return False
            child = os.path.join(path, name)
            try:
                is_dir = stat.S_ISDIR(os.lstat(child).st_mode)
                if not is_dir:
                    os.unlink(child)
            except FileNotFoundError:
                continue
            except OSError:
                return False
            if is_dir:
                stack.append((child, False))
    return True


SYSV_IPC = (("shm", "shmctl"), ("sem", "semctl"), ("msg", "msgctl"))
IPC_RMID = 0


def _libc() -> "_Libc":
    """libc, loaded once per process: the standard library has no call for unshare, mount,
    prctl, capset or removing System V IPC objects. A worker that needs them and cannot load
    libc refuses to start rather than run unisolated."""
    global _LIBC
    if _LIBC is None:
        _LIBC = _Libc()
    return _LIBC


_LIBC = None


class _Libc:
    """libc's functions as attributes, each returning a C int and keeping errno (``_check``),
    as ``ctypes.CDLL(None, use_errno=True)`` gives them, but through ``_ctypes``, ctypes' own
    core: ``import ctypes`` (its Python layer, struct and the byte-order module) cost every
    session start ~1 ms (issue 49)."""

    def __init__(self) -> None:
        import _ctypes

        class Function(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
            _restype_ = _c_type("i")

        self._function = Function
        self._handle = _ctypes.dlopen(None, os.RTLD_NOW)  # read by Function((name, self))

    def __getattr__(self, name: str):
        function = self._function((name, self))
        setattr(self, name, function)
        return function


_C_TYPES: dict = {}


def _c_type(code: str) -> type:
    """The C scalar type of a ``struct`` code ("i": int, "I": uint32, "H": ushort, "P": void *,
    "c": char), made as ctypes makes its own, once per code."""
    if code not in _C_TYPES:
        import _ctypes

        _C_TYPES[code] = type(f"c_{code}", (_ctypes._SimpleCData,), {"_type_": code})
    return _C_TYPES[code]


def _c_array(code: str, length: int) -> type:
    """The C array type of ``length`` scalars of ``code`` (``ctypes.c_X * length``)."""
    import _ctypes

    return type(f"c_{code}_x{length}", (_ctypes.Array,), {"_type_": _c_type(code),
                                                          "_length_": length})


def _remove_sysv_ipc(libc) -> None:
    """Remove every System V shared-memory segment, semaphore set and message queue in the
    sandbox's own IPC namespace. They outlive the process that made them, so a segment a case
    created and filled would otherwise be readable by the next case (shmget on the same key).
    Called only after every process of the case is dead, so a removed segment is freed at once."""
    for kind, ctl in SYSV_IPC:
        try:
            with open(f"/proc/sysvipc/{kind}", "rb") as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            ipc_id = int(row.split()[1])
            if kind == "sem":
                libc.semctl(ipc_id, 0, IPC_RMID)
            else:
                getattr(libc, ctl)(ipc_id, IPC_RMID, None)


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _classify_signal(sig: int, rusage, limits: dict, output_head: bytes) -> tuple[str, str]:
    import signal  # only here: its enums import cost every session start ~2.5 ms (issue 49)

    try:
        name = signal.Signals(sig).name
    except ValueError:
        name = f"signal {sig}"
    cpu = rusage.ru_utime + rusage.ru_stime
    if sig == _signal.SIGXCPU or (sig == _signal.SIGKILL and cpu >= limits["cpu_seconds"]):
        return "cpu_limit", f"CPU limit of {limits['cpu_seconds']} s reached ({name})"
    memory_hint = (rusage.ru_maxrss * 1024 >= 0.5 * limits["memory_mb"] * 1024 * 1024
                   or b"alloc" in output_head.lower() or b"memory" in output_head.lower())
    if sig in (_signal.SIGSEGV, _signal.SIGABRT, _signal.SIGBUS, _signal.SIGKILL) and memory_hint:
        return "memory_limit", f"killed by {name} near the {limits['memory_mb']} MB limit"
    return "crash", f"killed by {name}"


class _CaseOutput:
    """What the parent has read from one case's two pipes, bounded in memory.

    Printed output keeps only its head (to spot memory errors in a killed case's last words) and
    its tail (Verdict.stdout), while counting every byte against the output limit; the result
    pipe is kept only up to a little over RESULT_CAP. ``killed_for`` names the limit that makes
    the parent kill the case (timeout, output_limit or malformed); once set it stays set, and a
    later limit crossed in the same read batch overwrites it, as the original loop did."""

    __slots__ = ("result", "out_count", "out_head", "out_tail", "killed_for", "open_streams",
                 "answered")

    def __init__(self) -> None:
        self.result = bytearray()
        self.out_count = 0
        self.out_head = bytearray()
        self.out_tail = bytearray()
        self.killed_for = ""
        self.open_streams = {"out", "res"}
        self.answered = False  # the result pipe holds a whole line: the case's answer

    def take_output(self, chunk: bytes, output_bytes: int) -> None:
        """Count, keep head and tail of, and limit what the case printed."""
        self.out_count += len(chunk)
        if len(self.out_head) < OUTPUT_KEEP:
            self.out_head += chunk[: OUTPUT_KEEP - len(self.out_head)]
        self.out_tail += chunk[-OUTPUT_TAIL:]
        del self.out_tail[:-OUTPUT_TAIL]
        if self.out_count > output_bytes:
            self.killed_for = "output_limit"

    def take_result(self, chunk: bytes) -> None:
        """Keep the child's answer bytes; far past the cap the case is killed as malformed."""
        self.result += chunk
        self.answered = self.answered or b"\n" in chunk
        if len(self.result) > RESULT_CAP + 1024:
            self.killed_for = "malformed"

    def drain_output(self, out_r: int, output_bytes: int) -> None:
        """Read what the case printed before its answer and is still in the output pipe
        (a case may have enlarged the pipe past one read). Stops at an empty pipe or at the
        output limit, so a flooding descendant cannot keep it reading."""
        os.set_blocking(out_r, False)
        try:
            while not self.killed_for:
                chunk = os.read(out_r, 65536)
                if not chunk:
                    break
                self.take_output(chunk, output_bytes)
        except BlockingIOError:
            pass

    def drain_result(self, res_r: int) -> None:
        """Read what an exited child left in the result pipe. Strays may still hold the write
        end open, so read without waiting for EOF."""
        os.set_blocking(res_r, False)
        try:
            while len(self.result) <= RESULT_CAP + 1024:
                chunk = os.read(res_r, 65536)
                if not chunk:
                    break
                self.result += chunk
        except BlockingIOError:
            pass


def _case_poller(pid: int, out_r: int, res_r: int) -> tuple[select.poll, int | None, dict]:
    """A poll object over the case's output and result pipes and, where the kernel has pidfds,
    the child's exit (so the parent wakes the moment it exits instead of polling). Returns it,
    the pidfd (None without pidfd support) and each fd's name. ``poll`` rather than a
    ``selectors`` selector: no epoll descriptor to make and close and no key objects per case,
    which cost every case ~0.2 ms of the worker's CPU (issue 49)."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    names = {out_r: "out", res_r: "res"}
    if pidfd is not None:
        names[pidfd] = "exit"
    poller = select.poll()
    for fd in names:
        poller.register(fd, select.POLLIN)
    return poller, pidfd, names


def _watch_case(pid: int, poller: select.poll, names: dict, polling: bool, deadline: float,
                limits: dict, out: _CaseOutput, early: bool) -> tuple:
    """Read the case's pipes until it exits, its wall clock runs out or it crosses a limit,
    or, with ``early``, until its whole answer is in (``out.answered``). Returns ``(status,
    rusage)`` of the exited child, or ``(None, None)`` when it must be killed (``out.killed_for``
    says why) or has answered early. ``polling``: no pidfd, so wake every 50 ms to check for
    exit."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            out.killed_for = "timeout"
            return None, None
        wait_ms = int(min(remaining, 0.05) * 1000 if polling else remaining * 1000) + 1
        for fd, _ in poller.poll(wait_ms):
            name = names[fd]
            if name == "exit":
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                poller.unregister(fd)
                out.open_streams.discard(name)
            elif name == "out":
                out.take_output(chunk, limits["output_bytes"])
            else:
                out.take_result(chunk)
        if out.killed_for or (early and out.answered):
            return None, None
        wpid, wstatus, wrusage = os.wait4(pid, os.WNOHANG)
        if wpid:
            return wstatus, wrusage


def _kill_case(pid: int) -> tuple:
    """Kill the case's process group and the child itself, and reap it: ``(status, rusage)``.
    The group may already be gone or unreachable, so the child gets its own SIGKILL too."""
    try:
        os.killpg(pid, _signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.kill(pid, _signal.SIGKILL)
    except ProcessLookupError:
        pass
    _, status, rusage = os.wait4(pid, 0)
    return status, rusage


def _clean_after_case(state: dict, pid: int, fds: tuple) -> bool:
    """Leave nothing of the case for the next one: kill every stray process it left, close its
    pipes and pidfd, wipe the scratch (and other writable) roots and, where the sandbox has its
    own IPC namespace, remove the System V IPC objects it created. False: a root could not be
    emptied (what the case left there defeats the clean-up)."""
    _kill_strays(state["own_pid_namespace"], pid, state["keep"], state["proc"])
    for fd in fds:
        if fd is not None:
            os.close(fd)
    clean = all([_wipe(root) for root in state["wipe_roots"]])
    if state["pid_reset"] is not None:
        clean = _unmount_case(state) and clean
    if state["ipc_libc"] is not None:
        _remove_sysv_ipc(state["ipc_libc"])
    return clean


TAMPERED = {"status": "u", "reason": "sandbox_tampered", "replace_worker": True,
            "detail": "the case left files the clean-up could not remove (e.g. a tree too deep "
                      "or too large); this worker is replaced before the next case"}


CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
MS_REC, MS_PRIVATE, MS_NOSUID, MS_NODEV = 0x4000, 0x40000, 0x2, 0x4
MS_RDONLY, MS_NOEXEC = 0x1, 0x8


MNT_DETACH = 2


def _prepare_case(state: dict, scratch: str) -> None:
    """Fresh state for the next case, made by the worker itself before it forks the case (the
    fast path, where the cases' init can reset the pid counter): the pid counter back to where
    the first case found it (so a case cannot pass the next one a chosen pid), an IPC namespace
    of the case's own (message queues and System V objects die with it) and a fresh,
    size-limited tmpfs over each ``case_tmpfs`` directory, unmounted whole after the case
    (``_clean_after_case``): no file a case leaves (mode 0, a deep tree, a full disk) can defeat
    that, and it takes host memory only up to the stated size. Raises OSError; the case is then
    a sandbox_error."""
    libc = state["libc"]
    ctl_w, ack_r = state["pid_reset"]
    os.write(ctl_w, b"r")
    if os.read(ack_r, 1) != b"\x01":
        raise OSError("the cases' init could not reset the pid counter")
    _check(libc.unshare(CLONE_NEWIPC), "unshare(CLONE_NEWIPC)")
    _mount_case_tmpfs(libc, state["case_tmpfs"])
    if state["scratch_root"] in state["case_tmpfs"]:
        os.mkdir(scratch, 0o700)
    if state["fixed_scratch"]:
        _use_scratch(scratch)


def _unmount_case(state: dict) -> bool:
    """Drop the case's tmpfs mounts whole (lazily: the kernel frees them once nothing holds
    them, and nothing does once the case's processes are dead)."""
    ok = True
    for path in state["case_tmpfs"]:
        ok = state["libc"].umount2(path.encode(), MNT_DETACH) == 0 and ok
    return ok


def _isolate_case(state: dict, scratch: str, res_w: int) -> None:
    """Give the case namespaces of its own and fork it into them; this process stays outside as
    its guard and never returns (``_guard``); the case returns, to run.

    Its own IPC namespace: message queues and System V objects die with the case. Its own PID
    namespace, whose pid 1 is a small init (``_case_init``) and the case pid 2: the pid counter
    starts afresh (a case cannot pass the next one a chosen pid), signals behave as for any
    process, and when the guard kills the init the kernel kills everything the case left. Its
    own mount namespace with a fresh, size-limited tmpfs over each ``case_tmpfs`` directory (/tmp,
    /dev/shm): what a case writes there is dropped whole with the namespace, so no file it leaves
    (mode 0, a deep tree, a full disk) can defeat a clean-up, and it takes host memory only up to
    the stated size."""
    libc = state["libc"]
    try:
        os.setsid()  # the guard leads the group the worker kills
        flags = CLONE_NEWIPC | CLONE_NEWPID | (CLONE_NEWNS if state["case_tmpfs"] else 0)
        _check(libc.unshare(flags), "unshare")
        if state["case_tmpfs"]:
            _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount private")
            _mount_case_tmpfs(libc, state["case_tmpfs"])
            _cover_proc(libc)
            os.mkdir(scratch, 0o700)
        init = _fork_init(libc)
        case = os.fork()
    except BaseException as e:  # noqa: BLE001 - the sandbox's fault: report it, never run
        _write_all(res_w, _dumps({
            "status": "u", "reason": "sandbox_error",
            "detail": _cap(f"case isolation failed: {type(e).__name__}: {e}")}).encode())
        os._exit(0)
    if case == 0:
        libc.prctl(PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0)  # the guard's death ends the case
        return
    _guard(case, init)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        import _ctypes

        err = _ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _guard(case: int, init: int) -> None:
    """Wait for the case, end its namespace (killing the init kills whatever the case left),
    and end as the case ended (same exit status, or killed by the same signal), so the worker
    classifies it as if it were its direct child; ``wait4`` of this process then also reports
    the case's CPU time and peak memory. Never returns."""
    status = _wait_for(case)
    os.kill(init, _signal.SIGKILL)
    _wait_for(init)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            _signal.signal(sig, _signal.SIG_DFL)
        except (OSError, ValueError):
            pass
        _signal.pthread_sigmask(_signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)


def _wait_for(pid: int) -> int:
    while True:
        try:
            return os.waitpid(pid, 0)[1]
        except InterruptedError:
            continue


def _judge(code, candidate: dict, state: dict) -> dict:
    """Judge one candidate in a freshly forked child and return the answer line's object.

    The fork stays in this function (not a helper) so the child's stack, and with it the
    untrusted code's recursion headroom, is unchanged. ``seconds`` spans fork to reaped child,
    before the clean-up, which is the worker's cost and not the case's (with an early answer,
    ``_answers_early``: fork to answer)."""
    limits = state["limits"]
    scratch, failed = state["ahead"] or _prepared_case(state)
    state["ahead"] = None
    if failed is not None:
        return failed
    out_r, out_w = os.pipe()
    res_r, res_w = os.pipe()
    t0 = time.monotonic()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(out_r)
            os.close(res_r)
            if state["case_namespaces"] and state["pid_reset"] is None:
                _isolate_case(state, scratch, res_w)  # returns in the case, in its namespaces
            _child(code, candidate, state, scratch, out_w, res_w)
        finally:
            os._exit(70)
    os.close(out_w)
    os.close(res_w)
    poller, pidfd, names = _case_poller(pid, out_r, res_r)
    out = _CaseOutput()
    deadline = t0 + float(limits["wall_seconds"])
    status, rusage = _watch_case(pid, poller, names, pidfd is None, deadline, limits, out,
                                 _answers_early(state))
    fds = (out_r, res_r, pidfd)
    if status is None and out.answered and not out.killed_for:
        out.drain_output(out_r, limits["output_bytes"])
        seconds = time.monotonic() - t0
        state["unfinished"] = (pid, fds)  # its answer is final: the rest is _finish_case's
        clean = True
    else:
        if status is None:
            status, rusage = _kill_case(pid)
        elif "res" in out.open_streams:
            out.drain_result(res_r)  # the child has exited: everything it wrote sits in the pipe
        seconds = time.monotonic() - t0
        clean = _clean_after_case(state, pid, fds)
    if clean:
        answer = _classify(out.killed_for, status, rusage, bytes(out.result),
                           bytes(out.out_head), limits)
    else:
        answer = dict(TAMPERED)
    answer["seconds"] = round(seconds, 6)
    answer["stdout"] = out.out_tail.decode("utf-8", "replace")
    answer.setdefault("executions", 0)
    return answer


def _prepared_case(state: dict) -> tuple[str, dict | None]:
    """The next case's scratch directory, made ready: on the fast path a fresh tmpfs, IPC
    namespace and pid counter (``_prepare_case``). Returns it and None, or, where that failed,
    the case's ``sandbox_error`` answer."""
    state["cases"] += 1  # unless on a fresh tmpfs, a new scratch name per case: no collision
    scratch = os.path.join(state["scratch_root"],
                           "case" if state["fixed_scratch"] else f"case-{state['cases']}")
    if state["pid_reset"] is None:
        if state["scratch_root"] not in state["case_tmpfs"]:
            os.mkdir(scratch, 0o700)
        return scratch, None
    try:
        _prepare_case(state, scratch)
    except OSError as e:
        _unmount_case(state)
        return scratch, {"status": "u", "reason": "sandbox_error", "seconds": 0.0,
                         "detail": _cap(f"case isolation failed: {e}")}
    return scratch, None


def _prepare_ahead(state: dict) -> None:
    """On the fast path, prepare the next case right after an answer, while the framework
    reads it and sends the next request, instead of after that request came (issue 49). The
    previous case is gone by then (``_finish_case`` runs first), so nothing of it reaches the
    prepared state."""
    if state["pid_reset"] is not None and state["ahead"] is None:
        state["ahead"] = _prepared_case(state)


def _answers_early(state: dict) -> bool:
    """Whether the worker may answer the framework as soon as the case's whole answer is in,
    and leave the rest of the case's end (its exit, ~0.8 ms of CPU for a forked Python, the
    kills and the unmounts) to ``_finish_case``, which runs before the next case is prepared
    (issue 49). Only on the fast path (``_prepare_case``), where no root is wiped: a wipe must
    see every process dead first and its failure must make the case's own answer
    ``sandbox_tampered``. The fast path's clean-up cannot change an answer: the case is
    killed, never waited for, and its tmpfs is unmounted whole."""
    return state["pid_reset"] is not None and not state["wipe_roots"]


def _finish_case(state: dict) -> None:
    """End the case that answered early: kill and reap it and every process it left, close its
    pipes and unmount its tmpfs. Called right after its answer is written, before the next
    case is prepared. Should the unmount fail (it needs no more than the worker's own mount
    namespace, which a case cannot touch without capabilities), the next request is answered
    ``sandbox_error`` and this worker replaced, as when a case cannot be prepared."""
    unfinished, state["unfinished"] = state["unfinished"], None
    if unfinished is None:
        return
    pid, fds = unfinished
    _kill_case(pid)
    if not _clean_after_case(state, pid, fds):  # no root to wipe here: only the unmount fails
        state["ahead"] = ("", {"status": "u", "reason": "sandbox_error", "seconds": 0.0,
                               "replace_worker": True,
                               "detail": "the last case's tmpfs could not be unmounted; this "
                                         "worker is replaced"})


def _classify(killed_for: str, status: int, rusage, result: bytes, out_head: bytes,
              limits: dict) -> dict:
    if killed_for == "timeout":
        return {"status": "u", "reason": "timeout",
                "detail": f"no decision within the {limits['wall_seconds']} s wall clock"}
    if killed_for == "output_limit":
        return {"status": "u", "reason": "output_limit",
                "detail": f"printed more than {limits['output_bytes']} bytes"}
    if killed_for == "malformed":
        return {"status": "u", "reason": "malformed",
                "detail": f"result larger than {RESULT_CAP} bytes; {EXPECTED}"}
    if result:
        try:
            answer = _loads(result)
        except ValueError:
            answer = None
        if isinstance(answer, dict) and answer.get("status") in ("returned", "unserializable",
                                                                 "u"):
            return answer
        return {"status": "u", "reason": "sandbox_error",
                "detail": _cap(f"unreadable result from the case child: {result[:200]!r}")}
    if os.WIFSIGNALED(status):
        reason, detail = _classify_signal(os.WTERMSIG(status), rusage, limits, out_head)
        return {"status": "u", "reason": reason, "detail": detail}
    code = os.WEXITSTATUS(status)
    tail = out_head.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
    return {"status": "u", "reason": "crash",
            "detail": _cap(f"exited with status {code} before returning: {tail[0]}")}


def _add_site_packages() -> None:
    """The worker runs with ``-S``: site's .pth processing imports whatever the host installed
    (on some hosts ~100 ms per sandbox start) and executes code lines. Verifiers and runtimes
    still need third-party packages, so add the site-packages directories, and the plain path
    lines of their .pth files, without running any .pth code."""
    import site

    for d in site.getsitepackages():
        if not os.path.isdir(d) or d in sys.path:
            continue
        sys.path.append(d)
        for name in sorted(os.listdir(d)):
            if not name.endswith(".pth"):
                continue
            try:
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    lines = f.read().splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            for line in lines:
                line = line.strip()
                if line and not line.startswith(("#", "import ", "import\t")):
                    path = os.path.join(d, line)
                    if os.path.isdir(path) and path not in sys.path:
                        sys.path.append(path)


def _session_state(cfg: dict, main_path: str, task: dict, factory,
                   case_init: int | None, pid_reset: tuple[int, int] | None) -> dict:
    """What every case of the session needs, computed once (``case_init``: the pid of the cases'
    init, which must survive clean-up; ``pid_reset``: its control pipes where it can reset the
    pid counter, which selects ``_prepare_case`` over ``_isolate_case``). Raises
    OSError/ImportError when the sandbox has its own IPC namespace but libc cannot be loaded to
    clean it between cases. With ``case_tmpfs_optional`` the per-case tmpfs is used only on
    the fast path; elsewhere those directories are wiped after each case instead."""
    case_tmpfs = dict(cfg.get("case_tmpfs") or {})
    if pid_reset is None and cfg.get("case_tmpfs_optional"):
        case_tmpfs = {}
    return {
        "pid_reset": pid_reset,
        "limits": cfg["limits"], "rlimits": _rlimits(cfg["limits"]),
        "verifier_dir": cfg["verifier_dir"], "main_path": main_path,
        "task": task, "task_dir": cfg["task_dir"], "scratch_root": cfg["scratch_root"],
        "runtime": cfg.get("runtime") or "none", "runtime_config": cfg.get("runtime_config", {}),
        "make_env": factory, "own_pid_namespace": bool(cfg.get("own_pid_namespace")),
        "keep": _ancestry() | ({case_init} if case_init is not None else set()),
        "wipe_roots": [d for d in (cfg["scratch_root"], *cfg.get("wipe_also", ()))
                       if os.path.isdir(d) and d not in case_tmpfs],
        "ipc_libc": (_libc() if cfg.get("own_ipc_namespace") and not cfg.get("case_namespaces")
                     else None),  # a case's own IPC namespace takes its objects with it
        "libc": _libc() if cfg.get("case_namespaces") else None,
        "case_namespaces": bool(cfg.get("case_namespaces")),
        "case_tmpfs": case_tmpfs,
        "confinement": _confinement(cfg.get("seccomp")),
        "cases": 0,  # cases judged so far (names their scratch directories)
        "devnull": os.open(os.devnull, os.O_RDONLY),  # each case's stdin, opened once
        # each case's scratch is the same path on a fresh tmpfs: the worker itself moves into it
        # (cwd, HOME, TMPDIR) before the fork, which in a fresh fork cost ~0.1 ms (issue 49)
        "fixed_scratch": pid_reset is not None and cfg["scratch_root"] in case_tmpfs,
        "proc": "/proc",  # or, once the cases' view of /proc is covered, an fd of it (_cover_proc)
        "unfinished": None,  # (pid, fds) of a case that answered early (_finish_case)
        "ahead": None,  # (scratch, failure answer or None) of the case prepared ahead
    }


def _ask_pid_reset(pipes: tuple[int, int] | None) -> None:
    """Ask the just-forked init, once, to reset the pid counter; its answer is read later
    (``_usable_pid_reset``), so its start-up runs while the worker reads the verifier and the
    task instead of in turn (~2 ms of each session start, issue 49)."""
    if pipes is not None:
        os.write(pipes[0], b"r")


def _usable_pid_reset(pipes: tuple[int, int] | None) -> tuple[int, int] | None:
    """The init's control pipes if it could reset the pid counter here (``_ask_pid_reset``),
    else None: each case then gets namespaces of its own through ``_isolate_case`` (slower: two
    more forks per case)."""
    if pipes is None:
        return None
    return pipes if os.read(pipes[1], 1) == b"\x01" else None


def _preload(names: object) -> None:
    """Import in the parent the ``PRELOAD`` modules a case imported, so later cases of the
    session inherit them instead of importing them again (typing or ast: ~3 ms a case).
    Lazily, because importing all of them at every session's start cost ~10 ms, ~0.5 ms a case
    of a BFCL session, for verifiers that import none of them (issue 49). The list comes from
    untrusted code, so only names in PRELOAD, trusted stdlib, are ever imported."""
    if not isinstance(names, list):
        return
    todo = [n for n in PRELOAD if n in names and n not in sys.modules]
    for name in todo:
        __import__(name)
    if todo:
        gc.freeze()


def _refuse(error: str) -> None:
    """Tell the framework this worker cannot judge (it then reports a sandbox fault)."""
    _write_all(1, (_dumps({"ready": False, "error": _cap(error)}) + "\n").encode())


PR_SET_NO_NEW_PRIVS = 38
PR_SET_DUMPABLE = 4


def drop_privileges(uid: int | None) -> None:
    """Become ``uid`` (and its gid, no supplementary groups) for good when started as root, and
    forbid any later gain of privileges (setuid binaries, file capabilities). Changing every uid
    away from 0 clears all capabilities, so from here on the worker and every case it forks are
    an ordinary host user: /proc/sys, root-owned files and root's keyrings are out of reach."""
    if uid is not None and os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        if os.getresuid() != (uid, uid, uid):
            raise OSError(f"still running as {os.getresuid()} after dropping to {uid}")
        # The uid change made the process non-dumpable, which gives its /proc files to root: it
        # could not write its own id maps (_start_case_namespace sets it non-dumpable after).
        _libc().prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    if _libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError("prctl(PR_SET_NO_NEW_PRIVS) failed")


def main() -> None:
    """Serve, then exit at once: every answer is written with ``os.write``, and the
    interpreter's own teardown (module and object clean-up) cost each session's close a few
    ms for nothing (issue 49)."""
    serve(_loads(sys.argv[1]))
    os._exit(0)


def serve(cfg: dict) -> None:
    """One session: judge the candidates read from stdin until EOF or an end request
    (``{"end": true}``, sent by the docker backend, whose container outlives the session: see
    keeper.py)."""
    try:
        drop_privileges(cfg.get("drop_to"))
    except (OSError, ImportError) as e:
        return _refuse(f"cannot drop privileges: {e}")
    if sys.flags.no_site:
        _add_site_packages()
    _signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)
    try:  # first: unshare needs a single-threaded process, which a runtime may not leave
        case_init, pid_reset = (
            _start_case_namespace(_libc(), bool(cfg.get("case_namespaces")),
                                  bool(cfg.get("case_tmpfs")),
                                  bool(cfg.get("case_tmpfs_optional")),
                                  cfg.get("pid_counter") or PID_COUNTER)
            if cfg.get("case_pid_namespace") else (None, None))
    except (OSError, ImportError) as e:
        return _refuse(f"cannot give cases their own PID namespace: {e}")
    _ask_pid_reset(pid_reset)
    _no_ptrace()
    main_path = os.path.join(cfg["verifier_dir"], "main.py")
    sys.argv = [main_path]  # what a case sees: set once here, not in every case's child
    code = None
    problem: tuple[str, str] | None = None
    try:
        with open(main_path, "rb") as f:
            source = f.read()
        code = compile(source, main_path, "exec", dont_inherit=True)
    except FileNotFoundError:
        problem = "missing_verifier", f"no main.py in the verifier directory ({main_path})"
    except (SyntaxError, ValueError) as e:
        problem = "crash", _cap(f"main.py does not compile: {type(e).__name__}: {e}")
    except OSError as e:
        problem = "missing_verifier", _cap(f"cannot read main.py: {e}")
    try:
        with open(os.path.join(cfg["task_dir"], "task.json"), encoding="utf-8") as f:
            task = _loads(f.read())
    except (OSError, ValueError) as e:
        return _refuse(f"task.json: {e}")
    pid_reset = _usable_pid_reset(pid_reset)  # before a runtime can start anything
    try:
        factory = _load_runtime(cfg, task)
    except BaseException as e:  # noqa: BLE001 - report to the framework instead of dying silently
        return _refuse(f"runtime {cfg.get('runtime')!r}: {type(e).__name__}: {e}")
    try:
        state = _session_state(cfg, main_path, task, factory, case_init, pid_reset)
    except (OSError, ImportError) as e:
        return _refuse(f"cannot load libc to remove System V IPC objects between cases: {e}")
    if state["pid_reset"] is not None and state["case_tmpfs"]:  # the cases share our mounts
        try:
            state["proc"] = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY)
            _cover_proc(state["libc"])
        except OSError as e:
            return _refuse(f"cannot cover /proc for the cases: {e}")
    gc.freeze()  # per-case children then leave the parent's objects alone: fewer copied pages
    _write_all(1, (_dumps({"ready": True, "pid": os.getpid()}) + "\n").encode())
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            return
        try:
            request = _loads(line)
            if isinstance(request, dict) and request.get("end") is True:
                return
            candidate = request["candidate"]
        except (ValueError, KeyError, TypeError) as e:
            answer = {"status": "u", "reason": "sandbox_error", "detail": f"bad request: {e}"}
        else:
            if problem:
                answer = {"status": "u", "reason": problem[0], "detail": problem[1],
                          "seconds": 0.0, "executions": 0}
            else:
                answer = _judge(code, candidate, state)
        preload = answer.pop("preload", None)
        _write_all(1, (_dumps(answer) + "\n").encode())
        _finish_case(state)  # after the answer: the case's exit overlaps the framework's turn
        _preload(preload)  # after the answer: the import overlaps the framework's turn
        if answer.get("replace_worker"):
            return  # the framework starts a fresh sandbox for the next case
        if code is not None:
            _prepare_ahead(state)


if __name__ == "__main__":
    main()
