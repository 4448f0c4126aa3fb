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

Why a PID namespace per case (``case_pid_namespace``): the case runs as the same user as the
worker, so without one it could kill the worker (``os.kill(os.getppid(), 9)``, ``os.kill(-1, 9)``,
or pids read from /proc), and the judging loop could not tell that from an infrastructure fault.
With it, the fork for a case enters a fresh user + PID namespace and starts a small init there
(pid 1), which forks the case (pid 2). The worker has no pid in that namespace, ``kill(-1)``
reaches only the case's own processes, and pid 1 ignores signals sent from inside; the init
reports the case's wait status on a pipe and, by exiting, kills whatever the case left behind.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import selectors
import shutil
import signal
import struct
import sys
import tempfile
import time
import traceback
import types

DETAIL_CAP = 500          # characters of exception/detail text sent back
RESULT_CAP = 1 << 20      # bytes a verify() return value may take once encoded
OUTPUT_KEEP = 4096        # bytes of printed output kept from the start, to diagnose kills
OUTPUT_TAIL = 2000        # bytes of printed output sent back (Verdict.stdout)
PRELOAD = ("re", "ast", "math", "collections", "itertools", "functools", "typing", "string",
           "copy")
EXPECTED = "expected 'PASS', 'FAIL' or {'decision': 'PASS'|'FAIL', 'confidence': float}"


def _cap(text: str, n: int = DETAIL_CAP) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


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
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except (OSError, AttributeError):
        pass


# ------------------------------------------------------------------------------------ the child


def _set_limits(limits: dict) -> None:
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
    for which, (soft, hard) in pairs:
        cur_soft, cur_hard = resource.getrlimit(which)
        if cur_hard != resource.RLIM_INFINITY:  # cannot raise a hard limit: keep the lower one
            hard = min(hard, cur_hard)
            soft = min(soft, hard)
        resource.setrlimit(which, (soft, hard))


CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
STATUS = struct.Struct("<i")  # the case's raw wait status, as the case's init reports it


def _enter_case_namespaces(libc) -> None:
    """Move this process's future children into a new user + PID namespace. The user namespace
    is what permits the PID namespace without privileges (bwrap drops every capability). No id
    map is written: mapping the parent's uid 0 needs CAP_SETFCAP, which the worker lacks under
    bwrap, so the case sees itself and every file as the overflow id 65534 ("nobody"), under both
    backends alike. The kernel still checks files, signals, rlimits and the pids cgroup against
    the worker's real ids, so what the case may touch does not change."""
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0:
        err = _ctypes_errno()
        raise OSError(err, f"unshare(CLONE_NEWUSER|CLONE_NEWPID): {os.strerror(err)}")


def _ctypes_errno() -> int:
    """errno of the last libc call made through ctypes."""
    import ctypes

    return ctypes.get_errno()


def _case_namespace(code, candidate: dict, state: dict, scratch: str, out_w: int, res_w: int,
                    st_w: int) -> None:
    """The worker's fork for one case when cases get their own PID namespace; never returns.
    It leads a new session (so the worker's killpg on a timeout reaches it and the init), enters
    the namespaces and waits for the init, whose wait status the worker then reads. A failure to
    enter them is the sandbox's fault, never the verifier's."""
    try:
        os.setsid()
        _enter_case_namespaces(state["ns_libc"])
    except OSError as e:
        _write_all(res_w, json.dumps({"status": "u", "reason": "sandbox_error", "detail": _cap(
            f"cannot give the case its own PID namespace: {e}")}).encode())
        os._exit(0)
    init = os.fork()
    if init == 0:
        _case_init(code, candidate, state, scratch, out_w, res_w, st_w)
    for fd in (out_w, res_w, st_w):
        os.close(fd)
    os.waitpid(init, 0)
    os._exit(0)


def _case_init(code, candidate: dict, state: dict, scratch: str, out_w: int, res_w: int,
               st_w: int) -> None:
    """Pid 1 of the case's namespace; never returns. With SIGINT at its default (Python's handler
    would raise in here), the kernel drops every signal the case sends it. It reaps orphans until
    the case itself ends, writes the case's wait status to ``st_w`` and exits, which kills every
    process left in the namespace."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    case = os.fork()
    if case == 0:
        os.close(st_w)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _child(code, candidate, state, scratch, out_w, res_w)
    os.close(out_w)
    os.close(res_w)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == case:
            break
    _write_all(st_w, STATUS.pack(status))
    os._exit(0)


def _child(code, candidate: dict, state: dict, scratch: str, out_w: int, res_w: int) -> None:
    """Run one case; never returns. Only this exact process may write the result: descendants a
    verifier forks share the except-path, so they are silenced by the pid check."""
    me = os.getpid()
    env = None

    def send(obj: dict) -> None:
        if os.getpid() != me:
            os._exit(0)
        obj["executions"] = _executions(env)
        try:
            data = json.dumps(obj).encode()
        except (TypeError, ValueError):
            data = json.dumps({"status": "unserializable",
                               "repr": _cap(_safe_repr(obj.get("value")))}).encode()
        if len(data) > RESULT_CAP:
            data = json.dumps({"status": "u", "reason": "malformed",
                               "detail": f"returned a value of {len(data)} bytes once encoded "
                                         f"(cap {RESULT_CAP}); {EXPECTED}"}).encode()
        _write_all(res_w, data)
        os._exit(0)

    try:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        os.closerange(3, res_w)
        os.closerange(res_w + 1, 65536)
        os.chdir(scratch)
        os.environ["HOME"] = scratch
        os.environ["TMPDIR"] = scratch
        tempfile.tempdir = scratch
        _set_limits(state["limits"])
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversize writes raise OSError instead
        sys.dont_write_bytecode = True
        sys.path.insert(0, state["verifier_dir"])
        sys.argv = [state["main_path"]]
    except BaseException as e:  # noqa: BLE001 - report and die, never fall back into the parent
        send({"status": "u", "reason": "sandbox_error",
              "detail": _cap(f"child setup failed: {type(e).__name__}: {e}")})

    try:
        env = _make_env(state, candidate)
    except BaseException as e:  # noqa: BLE001
        send({"status": "u", "reason": "sandbox_error",
              "detail": _cap(f"runtime {state['runtime']!r} make_env failed: "
                             f"{type(e).__name__}: {e}")})

    try:
        module = types.ModuleType("main")
        module.__file__ = state["main_path"]
        sys.modules["main"] = module
        exec(code, module.__dict__)  # noqa: S102 - untrusted code, isolated per-case child
        verify = module.__dict__.get("verify")
        if not callable(verify):
            send({"status": "u", "reason": "missing_verifier",
                  "detail": "main.py defines no callable verify(candidate, env)"})
        value = verify(candidate, env)
        sys.stdout.flush()
        sys.stderr.flush()
    except MemoryError as e:
        send({"status": "u", "reason": "memory_limit",
              "detail": _cap(f"MemoryError: {e} (limit {state['limits']['memory_mb']} MB)")})
    except BaseException as e:  # noqa: BLE001 - any exception from untrusted code is a crash
        send({"status": "u", "reason": "crash", "detail": _cap(_exc_line(e))})
    try:
        json.dumps(value, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        send({"status": "unserializable", "repr": _cap(_safe_repr(value))})
    send({"status": "returned", "value": value})


def _exc_line(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    where = ""
    for frame in reversed(tb):
        if frame.filename.startswith("/") and "worker.py" not in frame.filename:
            where = f" (at {os.path.basename(frame.filename)}:{frame.lineno})"
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
    (the code runtime's run_public applies the candidate's patch unless told otherwise)."""
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


def _load_runtime(cfg: dict):
    """Import the (trusted, framework-provided) runtime package once in the parent, so each
    child only pays for make_env. See monitorbench/sandbox/runtimes/__init__.py for the contract."""
    name = cfg.get("runtime") or "none"
    if name == "none":
        return None
    rdir = cfg["runtimes_dir"]
    sys.path.insert(0, os.path.dirname(rdir))
    import importlib

    package = importlib.import_module(os.path.basename(rdir))
    return package.load_env_factory(name)


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


def _other_pids(keep: frozenset[int]) -> list[int]:
    """Every process in this PID namespace except ``keep``."""
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) not in keep]


def _kill_strays(own_pid_namespace: bool, child_pgid: int, keep: frozenset[int]) -> None:
    """Nothing may survive a case. In our own PID namespace we can kill everything else; elsewhere
    (no namespace) only the child's process group is safe to kill."""
    try:
        os.killpg(child_pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if own_pid_namespace:
        for _ in range(100):
            pids = _other_pids(keep)
            if not pids:
                break
            for p in pids:
                try:
                    os.kill(p, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            _reap()
            time.sleep(0.001)
    _reap()


def _wipe(root: str) -> None:
    """Empty the scratch root (in bwrap: the sandbox's whole /tmp), so no file a case wrote is
    there for the next one. Entries a verifier made unreadable are chmod-ed and retried."""
    def retry(func, path, _exc) -> None:
        try:
            os.chmod(os.path.dirname(path), 0o700)
            os.chmod(path, 0o700)
            func(path)
        except OSError:
            pass

    for entry in os.listdir(root):
        path = os.path.join(root, entry)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, onerror=retry)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


SYSV_IPC = (("shm", "shmctl"), ("sem", "semctl"), ("msg", "msgctl"))
IPC_RMID = 0


def _libc():
    """libc through ctypes, to remove System V IPC objects (the standard library has no call for
    it). A worker that must remove them and cannot refuses to start rather than run unisolated."""
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


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
    try:
        name = signal.Signals(sig).name
    except ValueError:
        name = f"signal {sig}"
    cpu = rusage.ru_utime + rusage.ru_stime
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= limits["cpu_seconds"]):
        return "cpu_limit", f"CPU limit of {limits['cpu_seconds']} s reached ({name})"
    memory_hint = (rusage.ru_maxrss * 1024 >= 0.5 * limits["memory_mb"] * 1024 * 1024
                   or b"alloc" in output_head.lower() or b"memory" in output_head.lower())
    if sig in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGKILL) and memory_hint:
        return "memory_limit", f"killed by {name} near the {limits['memory_mb']} MB limit"
    return "crash", f"killed by {name}"


def _judge(code, candidate: dict, state: dict) -> dict:
    limits = state["limits"]
    scratch = tempfile.mkdtemp(prefix="case-", dir=state["scratch_root"])
    out_r, out_w = os.pipe()
    res_r, res_w = os.pipe()
    st_r, st_w = os.pipe() if state["ns_libc"] is not None else (None, None)
    t0 = time.monotonic()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(out_r)
            os.close(res_r)
            if st_r is None:
                _child(code, candidate, state, scratch, out_w, res_w)
            os.close(st_r)
            _case_namespace(code, candidate, state, scratch, out_w, res_w, st_w)
        finally:
            os._exit(70)
    for fd in (out_w, res_w, st_w):
        if fd is not None:
            os.close(fd)
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    sel = selectors.DefaultSelector()
    sel.register(out_r, selectors.EVENT_READ, "out")
    sel.register(res_r, selectors.EVENT_READ, "res")
    if pidfd is not None:
        sel.register(pidfd, selectors.EVENT_READ, "exit")
    result = bytearray()
    out_count = 0
    out_head = bytearray()
    out_tail = bytearray()
    killed_for = ""
    status = rusage = None
    deadline = t0 + float(limits["wall_seconds"])
    open_streams = {"out", "res"}
    while status is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            killed_for = "timeout"
            break
        events = sel.select(min(remaining, 0.05) if pidfd is None else remaining)
        for key, _ in events:
            if key.data == "exit":
                continue
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fd)
                open_streams.discard(key.data)
            elif key.data == "out":
                out_count += len(chunk)
                if len(out_head) < OUTPUT_KEEP:
                    out_head += chunk[: OUTPUT_KEEP - len(out_head)]
                out_tail += chunk[-OUTPUT_TAIL:]
                del out_tail[:-OUTPUT_TAIL]
                if out_count > limits["output_bytes"]:
                    killed_for = "output_limit"
            else:
                result += chunk
                if len(result) > RESULT_CAP + 1024:
                    killed_for = "malformed"
        if killed_for:
            break
        wpid, wstatus, wrusage = os.wait4(pid, os.WNOHANG)
        if wpid:
            status, rusage = wstatus, wrusage
    if status is None:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, status, rusage = os.wait4(pid, 0)
    elif "res" in open_streams:
        # The child has exited, so everything it wrote sits in the pipe; strays may still hold
        # the write end open, so read without waiting for EOF.
        os.set_blocking(res_r, False)
        try:
            while len(result) <= RESULT_CAP + 1024:
                chunk = os.read(res_r, 65536)
                if not chunk:
                    break
                result += chunk
        except BlockingIOError:
            pass
    seconds = time.monotonic() - t0
    if st_r is not None:
        status = _case_status(st_r, status)
    _kill_strays(state["own_pid_namespace"], pid, state["keep"])
    sel.close()
    for fd in (out_r, res_r, pidfd, st_r):
        if fd is not None:
            os.close(fd)
    for root in state["wipe_roots"]:
        _wipe(root)
    if state["ipc_libc"] is not None:
        _remove_sysv_ipc(state["ipc_libc"])
    answer = _classify(killed_for, status, rusage, bytes(result), bytes(out_head), limits)
    answer["seconds"] = round(seconds, 6)
    answer["stdout"] = out_tail.decode("utf-8", "replace")
    answer.setdefault("executions", 0)
    return answer


def _case_status(st_r: int, fork_status: int) -> int:
    """The case's own wait status, as its init reported it. The worker's fork has exited (or
    was killed) by now, so the init is gone and whatever it wrote is in the pipe. Without a
    report (the init was killed from out here on a timeout) the fork's own status stands."""
    os.set_blocking(st_r, False)
    try:
        data = os.read(st_r, STATUS.size)
    except BlockingIOError:
        return fork_status
    return STATUS.unpack(data)[0] if len(data) == STATUS.size else fork_status


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
            answer = json.loads(result)
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


def _session_state(cfg: dict, main_path: str, task: dict, factory) -> dict:
    """What every case of the session needs, computed once. Raises OSError/ImportError when the
    sandbox has its own IPC namespace but libc cannot be loaded to clean it between cases."""
    return {
        "limits": cfg["limits"], "verifier_dir": cfg["verifier_dir"], "main_path": main_path,
        "task": task, "task_dir": cfg["task_dir"], "scratch_root": cfg["scratch_root"],
        "runtime": cfg.get("runtime") or "none", "runtime_config": cfg.get("runtime_config", {}),
        "make_env": factory, "own_pid_namespace": bool(cfg.get("own_pid_namespace")),
        "keep": _ancestry(),
        "wipe_roots": [cfg["scratch_root"], *(d for d in cfg.get("wipe_also", ())
                                              if os.path.isdir(d))],
        "ipc_libc": _libc() if cfg.get("own_ipc_namespace") else None,
        "ns_libc": _libc() if cfg.get("case_pid_namespace") else None,
    }


def main() -> None:
    cfg = json.loads(sys.argv[1])
    if sys.flags.no_site:
        _add_site_packages()
    _no_ptrace()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main_path = os.path.join(cfg["verifier_dir"], "main.py")
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
            task = json.load(f)
    except (OSError, ValueError) as e:
        _write_all(1, (json.dumps({"ready": False, "error": _cap(f"task.json: {e}")}) + "\n")
                   .encode())
        return
    try:
        factory = _load_runtime(cfg)
    except BaseException as e:  # noqa: BLE001 - report to the framework instead of dying silently
        _write_all(1, (json.dumps({"ready": False, "error": _cap(
            f"runtime {cfg.get('runtime')!r}: {type(e).__name__}: {e}")}) + "\n").encode())
        return
    try:
        state = _session_state(cfg, main_path, task, factory)
    except (OSError, ImportError) as e:
        _write_all(1, (json.dumps({"ready": False, "error": _cap(
            f"cannot load libc (to remove System V IPC objects or to give cases their own "
            f"PID namespace): {e}")}) + "\n")
                   .encode())
        return
    for name in PRELOAD:  # trusted stdlib, imported once here instead of in every child
        __import__(name)
    gc.collect()
    gc.freeze()  # per-case children then leave the parent's objects alone: fewer copied pages
    _write_all(1, (json.dumps({"ready": True, "pid": os.getpid()}) + "\n").encode())
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            return
        try:
            candidate = json.loads(line)["candidate"]
        except (ValueError, KeyError, TypeError) as e:
            answer = {"status": "u", "reason": "sandbox_error", "detail": f"bad request: {e}"}
        else:
            if problem:
                answer = {"status": "u", "reason": problem[0], "detail": problem[1],
                          "seconds": 0.0, "executions": 0}
            else:
                answer = _judge(code, candidate, state)
        _write_all(1, (json.dumps(answer) + "\n").encode())


if __name__ == "__main__":
    main()
