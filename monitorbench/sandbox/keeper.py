"""In-container keeper of the docker backend: pid 1 of a container that outlives its sessions.

Why: ``docker run`` costs about 0.25-0.5 s, which a session of a few dozen cases cannot carry
(docker judged at 3.3x bubblewrap's time per case, issue 49). So each judging thread keeps one
container, and this keeper starts each session in it with a fork, not a container.

Like worker.py (bound beside it at ``/mb``), standard library only and run by the image's Python.

Protocol (newline-delimited JSON on the container's stdin/stdout, one session at a time):

* ``{"start": CONFIG}``: fork a worker (``worker.serve(CONFIG)``) that owns stdin and stdout
  until it exits (``{"end": true}`` from the framework, EOF, or its own replace_worker answer);
  it answers ready and judges exactly as a worker started by ``docker run`` would.
* when the worker has exited the keeper ends the session and writes
  ``{"ended": true, "clean": bool}``. Every other line read while no session runs (an end
  request that crossed an exit) is ignored.

Ending a session leaves nothing of it for the next (the contract of
monitorbench/sandbox/__init__.py, across sessions): every process but the keeper is killed
(every process a case makes is in the worker's PID namespace, which dies with the worker; the
keeper's ``kill(-1)`` reaches whatever else could be left, since all run as the container's
user), /tmp, /dev/shm and /dev/mqueue are emptied and every System V object is removed. The verifier, the task and the runtime are host directories the framework
refills between sessions (read-only here). If any of that fails, ``clean`` is false and the
keeper exits: the framework retires the container and starts a fresh one.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import worker  # noqa: E402  (beside this file in the container: /mb/worker.py)

del sys.path[0]  # as under a worker started on its own

WIPED = ("/tmp", "/dev/shm", "/dev/mqueue")
KILL_ROUNDS = 200


def _read_line(buf: bytearray) -> bytes | None:
    """The next line of fd 0 (None at EOF). Reads with os.read into the keeper's own buffer, so
    the worker's ``sys.stdin`` starts with nothing read ahead: the framework sends a session's
    first request only after its ready line."""
    while b"\n" not in buf:
        chunk = os.read(0, 65536)
        if not chunk:
            return None
        buf += chunk
    line, _, rest = bytes(buf).partition(b"\n")
    buf[:] = rest
    return line


def _run_session(cfg: dict) -> None:
    """Fork the session's worker and wait for it, reaping every orphan handed to pid 1."""
    pid = os.fork()
    if pid == 0:
        try:
            # the keeper is not dumpable; the worker must be, to write its namespace's id maps
            # (it makes itself non-dumpable again right after, before any case exists)
            worker._libc().prctl(worker.PR_SET_DUMPABLE, 1, 0, 0, 0)
            worker.serve(cfg)
            sys.stdout.flush()
        finally:
            os._exit(0)
    while True:
        try:
            done, _ = os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue
        if done == pid:
            return


def _others() -> list[int]:
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) != os.getpid()]


def _kill_everything() -> bool:
    """Kill and reap every process but this one; False if some survive every round."""
    for _ in range(KILL_ROUNDS):
        if not _others():
            return True
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        worker._reap()
        time.sleep(0.001)
    return not _others()


def _no_sysv_left() -> bool:
    for kind in ("shm", "sem", "msg"):
        try:
            with open(f"/proc/sysvipc/{kind}", "rb") as f:
                if len(f.read().splitlines()) > 1:
                    return False
        except OSError:
            continue
    return True


def end_session(libc) -> bool:
    """Leave nothing of the session: processes, files in the writable roots, IPC objects."""
    if not _kill_everything():
        return False
    clean = all([worker._wipe(root) for root in WIPED if os.path.isdir(root)])
    worker._remove_sysv_ipc(libc)
    return clean and _no_sysv_left()


def _connect() -> None:
    """Take the framework's socket (bound at /mb/io/sock until this connects) as stdin and
    stdout: requests and answers then skip the docker client and engine."""
    import socket

    sock = socket.socket(socket.AF_UNIX)
    sock.connect("/mb/io/sock")
    os.dup2(sock.fileno(), 0)
    os.dup2(sock.fileno(), 1)
    sock.close()


def main() -> None:
    _connect()
    libc = worker._libc()
    libc.prctl(worker.PR_SET_DUMPABLE, 0, 0, 0, 0)  # a case may not read this process's memory
    if sys.flags.no_site:
        worker._add_site_packages()
    for name in worker.PRELOAD:  # imported once here, inherited by every session's worker
        __import__(name)
    buf = bytearray()
    while True:
        line = _read_line(buf)
        if line is None:
            return
        try:
            cfg = json.loads(line)["start"]
        except (ValueError, KeyError, TypeError):
            continue  # a stray line of a session already over
        buf.clear()
        _run_session(cfg)
        clean = end_session(libc)
        worker._write_all(1, (json.dumps({"ended": True, "clean": clean}) + "\n").encode())
        if not clean:
            return


if __name__ == "__main__":
    main()
