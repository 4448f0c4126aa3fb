"""Each sandbox session's processes capped in a pids cgroup of its own, started without a move.

Why: a session used to join a fresh cgroup by a small shell that writes its own pid into it and
then execs the sandbox. On cgroup v1 that move waits for an RCU grace period whenever no other
move happened in the last few milliseconds, as between sessions: 8 to 16 ms of every session's
start spent asleep (measured here, 2026-12-07), about a fifth of a BFCL session's wall time.
A process forked by a thread inside a cgroup is born there, with no move. So on v1, where each
thread may sit in a cgroup of its own, every cgroup of this pool holds one long-lived *spawner*
thread, moved in once; a session leases an empty one (nothing in it but its spawner), has its
sandbox started by that thread, and gives it back when it closes. The cap is the same as before
(the session's allowance plus the spawner thread), and no process of one session counts against
the next, since a cgroup is leased only once every process in it has gone (a zombie the host
has yet to reap widens the limit by its own pid: :meth:`_Spawner.cap`). Elsewhere (cgroup
v2, whose threads share their process's cgroup) each session still gets a fresh cgroup joined
through the shell (:class:`~monitorbench.sandbox.cgroup.PidsCgroup`).
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from monitorbench.sandbox.cgroup import PidsCgroup, read_text, writable_pids_root

Popen = Callable[..., "subprocess.Popen[bytes]"]


@dataclass
class Launch:
    """How one session starts its sandbox: the command (``wrap``) and the call that runs it."""

    wrap: Callable[[list[str]], list[str]]
    popen: Popen


class _Spawner:
    """A pids cgroup and the one thread in it that starts its sessions' sandboxes."""

    def __init__(self, cgroup: PidsCgroup) -> None:
        self.cgroup = cgroup
        self._tid = 0  # the thread's id, once it has moved in
        self._calls: queue.SimpleQueue = queue.SimpleQueue()
        joined: Future = Future()
        self._thread = threading.Thread(target=self._serve, args=(joined,), daemon=True,
                                        name=f"spawner-{cgroup.path.name}")
        self._thread.start()
        joined.result()  # raises what moving the thread in raised

    def _serve(self, joined: Future) -> None:
        self._tid = threading.get_native_id()
        try:
            (self.cgroup.path / "tasks").write_text(str(self._tid))
        except OSError as e:
            joined.set_exception(e)
            return
        joined.set_result(None)
        while (call := self._calls.get()) is not None:
            fn, args, kwargs, done = call
            try:
                done.set_result(fn(*args, **kwargs))
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                done.set_exception(e)

    def popen(self, *args: Any, **kwargs: Any) -> "subprocess.Popen[bytes]":
        """``subprocess.Popen`` run on this cgroup's thread: the process is born in the cgroup."""
        done: Future = Future()
        self._calls.put((subprocess.Popen, args, kwargs, done))
        return done.result()

    def empty(self) -> bool:
        """No live task in the cgroup but the spawner thread."""
        return read_text(self.cgroup.path / "tasks").split() == [str(self._tid)]

    def cap(self, max_pids: int) -> None:
        """Let the next session have ``max_pids`` live processes: the limit also counts the
        spawner thread and every zombie still charged here. A sandbox's outermost init is
        orphaned when bwrap's monitor exits before reaping it, and the host's pid 1 reaps it
        when it will (on some hosts seconds later): until then it holds one pid of the cgroup
        but is no process of anyone's."""
        try:  # leased only when empty (or just made): the spawner is its one live task
            charged = int(read_text(self.cgroup.path / "pids.current"))
        except ValueError:
            charged = 1
        self.cgroup.set_max(max_pids + max(1, charged))

    def stop(self) -> None:
        """End the thread; the cgroup is removed once it has left."""
        self._calls.put(None)
        self._thread.join(timeout=2.0)
        self.cgroup.remove()


class SessionCgroups:
    """The pids cgroups of one sandbox backend's sessions (:meth:`lease`)."""

    def __init__(self) -> None:
        root = writable_pids_root()
        self._spawners = root is not None and (root / "tasks").is_file()  # cgroup v1
        self._idle: list[_Spawner] = []
        self._all: list[_Spawner] = []
        self._lock = threading.Lock()
        self._pid = os.getpid()  # a forked copy of this process has none of the threads
        self.close = weakref.finalize(self, _stop_all, self._all, self._lock, self._pid)

    @contextmanager
    def lease(self, max_pids: int) -> Iterator[Launch]:
        """How to start a session whose processes are capped at ``max_pids``, for as long as it
        runs: on cgroup v1 through a leased spawner, elsewhere through a fresh cgroup joined by
        the shell and removed at the end (or no cap where the host gives no pids cgroup)."""
        spawner = self._take(max_pids) if self._spawners and os.getpid() == self._pid else None
        if spawner is not None:
            try:
                yield Launch(wrap=lambda argv: argv, popen=spawner.popen)
            finally:
                with self._lock:
                    self._idle.append(spawner)
            return
        cgroup = PidsCgroup.create(max_pids)
        try:
            yield Launch(wrap=cgroup.wrap if cgroup is not None else (lambda argv: argv),
                         popen=subprocess.Popen)
        finally:
            if cgroup is not None:
                cgroup.remove()

    def _take(self, max_pids: int) -> _Spawner | None:
        """An empty spawner capped at ``max_pids`` plus its own thread, made if none is free;
        None where no cgroup can be made (then the shell's way is tried, as on v2)."""
        with self._lock:
            free = next((s for s in self._idle if s.empty()), None)
            if free is not None:
                self._idle.remove(free)
        if free is None:
            cgroup = PidsCgroup.create(max_pids + 1)
            if cgroup is None:
                return None
            try:
                free = _Spawner(cgroup)
            except OSError:
                cgroup.remove()
                self._spawners = False
                return None
            with self._lock:
                self._all.append(free)
        free.cap(max_pids)
        return free


def _stop_all(spawners: list[_Spawner], lock: threading.Lock, owner: int) -> None:
    """Stop every spawner and remove its cgroup (at ``close``, collection or the exit of the
    process that made them, ``owner``: a forked copy leaves them to it)."""
    if os.getpid() != owner:
        return
    with lock:
        todo = list(spawners)
        spawners.clear()
    for spawner in todo:
        spawner.stop()
