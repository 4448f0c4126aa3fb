"""Kept containers: the docker backend's sessions start with a fork, not a ``docker run``.

Why: a ``docker run`` per session cost 245 ms against bubblewrap's 50 ms start, and docker
judged at 3.3x bubblewrap's time per case (issue 49). A :class:`ContainerPool` keeps one
container per judging thread; its pid 1 is ``keeper.py``, which forks each session's worker and,
when the session ends, kills every process of it, empties every writable directory and removes
every IPC object (or says it could not, and the container is retired). The verifier, the task's
public directory and the runtime are bound from a host directory of the container's own
(``shared``) that is emptied and refilled between sessions, so a session sees its own verifier
and task and no other.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import IO, Callable

from monitorbench.sandbox.base import SandboxSpec
from monitorbench.sandbox.client import START_TIMEOUT, WorkerSession, copy_readable

SESSION_LABEL = "monitorbench.session"
SHARED_DIRS = ("verifier", "task", "runtime")  # refilled for every session
IO_DIR = "io"  # holds the socket the keeper connects to, only until it has connected
END_LINE = b'{"end": true}\n'
END_TIMEOUT = 30.0  # the keeper's clean-up of a session that left 100,000 files takes seconds
# Idle containers a pool keeps: as many as sessions ran at once (sandbox.workers, 2 by default),
# more only where tasks with other limits had their own; the oldest beyond this are ended.
MAX_IDLE = 8


def _empty(d: Path) -> None:
    for child in d.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def _link_or_copy(src: str, dst: str) -> None:
    """A hard link keeps the file's owner and mode, as a bind mount would, at no copying
    cost; another filesystem (or a file the framework may not link) gets a copy."""
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        shutil.copy2(src, dst, follow_symlinks=False)


class KeptContainer:
    """One long-lived container and its host directory ``shared``; ``clean`` turns False when
    its keeper could not end a session cleanly (the container is then retired)."""

    def __init__(self, key: tuple, make_argv: Callable[[Path, str], list[str]],
                 env: dict[str, str], binary: str) -> None:
        self.key, self.env, self.binary = key, env, binary
        self.label = uuid.uuid4().hex
        self.shared = Path(tempfile.mkdtemp(prefix="mb-docker-"))
        for sub in (*SHARED_DIRS, IO_DIR):
            (self.shared / sub).mkdir(mode=0o755)
        self.argv = make_argv(self.shared, self.label)
        self.proc: subprocess.Popen[bytes] | None = None
        self.sock: socket.socket | None = None
        self.stderr = tempfile.TemporaryFile()
        self.clean = True

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def ensure_started(self) -> subprocess.Popen[bytes]:
        """The running container, started if need be. Raises RuntimeError (a start failure)."""
        if not self.alive():
            self.retire()
            self.clean = True
            path = self.shared / IO_DIR / "sock"
            with socket.socket(socket.AF_UNIX) as listener:
                try:
                    listener.bind(str(path))
                    os.chmod(path, 0o666)  # the keeper runs as the container's user
                    listener.listen(1)
                    self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                                 stdout=subprocess.PIPE, stderr=self.stderr,
                                                 env=self.env, start_new_session=True,
                                                 close_fds=True)
                    self.sock = self._accept(listener)
                finally:
                    path.unlink(missing_ok=True)
        assert self.proc is not None
        return self.proc

    def _accept(self, listener: socket.socket) -> socket.socket:
        """The keeper's connection. The requests and answers of every session travel over it
        instead of the docker client and engine, which relayed each one (about 1 ms of CPU per
        case). Nothing else can connect: the socket is removed as soon as the keeper is in."""
        deadline = time.monotonic() + START_TIMEOUT
        while self.alive() and time.monotonic() < deadline:
            listener.settimeout(0.05)
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                continue
            conn.settimeout(None)
            return conn
        self.retire()
        raise RuntimeError(f"the container's keeper did not connect ({_tail(self.stderr)})")

    def load(self, verifier_dir: Path, public_dir: Path, runtime: Path | None) -> None:
        """Replace the previous session's verifier, task and runtime with this session's."""
        for sub in SHARED_DIRS:
            _empty(self.shared / sub)
        if verifier_dir.is_dir():  # a missing one is judged missing_verifier
            copy_readable(verifier_dir, self.shared / "verifier")
        shutil.copytree(public_dir, self.shared / "task", symlinks=True,
                        copy_function=_link_or_copy, dirs_exist_ok=True)
        if runtime is not None and runtime.is_dir():
            shutil.copytree(runtime, self.shared / "runtime" / runtime.name, symlinks=True,
                            copy_function=_link_or_copy)
        elif runtime is not None:
            _link_or_copy(str(runtime), str(self.shared / "runtime" / runtime.name))

    def retire(self, ended: bool = False) -> None:
        """Kill the container. The engine, not the client, owns it, so unless it ``ended`` (its
        keeper exited at EOF) it is removed through the engine too: a client killed by us, or by
        a stopped run (``WorkerSession.interrupt``), leaves it running."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
        if not ended:
            remove_containers(self.label, self.binary)
        self.close_socket()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()  # type: ignore[union-attr]
            except OSError:
                pass
        self.proc = None

    def hang_up(self) -> None:
        """End the keeper's connection without closing it: the keeper reads EOF, and a thread
        waiting on it wakes (a closed descriptor would silently leave that thread's poll)."""
        if self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close_socket(self) -> None:
        self.hang_up()
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def end_input(self) -> None:
        """Close the keeper's input: it exits at EOF and ``--rm`` removes the container."""
        self.close_socket()
        if self.alive():
            try:
                self.proc.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass

    def close(self) -> None:
        """End the container (``end_input``), waiting for it, and remove its directory."""
        ended = False
        if self.alive():
            self.end_input()
            try:
                ended = self.proc.wait(timeout=5) == 0  # type: ignore[union-attr]
            except subprocess.TimeoutExpired:
                pass
        self.retire(ended)
        self.stderr.close()
        shutil.rmtree(self.shared, ignore_errors=True)


def _tail(f: IO[bytes]) -> str:
    try:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 300))
        return f.read().decode("utf-8", "replace").strip() or "no stderr"
    except (OSError, ValueError):
        return "stderr unavailable"


def remove_containers(label: str, binary: str = "docker") -> None:
    """Remove a container by its label: a killed ``docker run`` client leaves its container
    running (the engine, not the client, owns it)."""
    ids = subprocess.run([binary, "ps", "-aq", "--filter", f"label={SESSION_LABEL}={label}"],
                         capture_output=True, text=True, timeout=60).stdout.split()
    if ids:
        subprocess.run([binary, "rm", "-f", *ids], capture_output=True, timeout=60)


class KeptSession(WorkerSession):
    """A session whose worker the container's keeper forks (``{"start": config}``) and ends
    (``{"end": true}``, answered ``{"ended": ...}``). A worker that cannot be ended that way (it
    hangs, or the container died) takes its container with it: never a weaker clean-up."""

    def __init__(self, box: KeptContainer, config: str, spec: SandboxSpec,
                 on_close: Callable[[], None]) -> None:
        super().__init__(box.argv, box.env, spec, on_close=on_close)
        self._stderr.close()
        self._stderr = box.stderr
        self.box = box
        self._start_line = (json.dumps({"start": json.loads(config)}) + "\n").encode()
        self._worker_up = False

    def start(self) -> None:
        t0 = time.monotonic()
        self._buf = b""
        self._await_ready(t0, self._retire, launch=self._launch)

    def _launch(self) -> None:
        """Ask the container's keeper (started if need be) to fork this session's worker."""
        self.proc = self.box.ensure_started()
        self._send(self._start_line)
        self._worker_up = True

    def _send(self, data: bytes) -> None:
        if self.box.sock is None:
            raise RuntimeError("the container is gone")
        self.box.sock.sendall(data)

    def _answer_fd(self) -> int:
        if self.box.sock is None:
            raise RuntimeError("the container is gone")
        return self.box.sock.fileno()

    def interrupt(self) -> None:
        """Also wake the judging thread, which reads the keeper's socket, not the client."""
        super().interrupt()
        self.box.hang_up()

    def _read_line(self, timeout: float) -> object:
        """The worker's next line; the keeper's ``ended`` in its place means the worker exited."""
        line = super()._read_line(timeout)
        if isinstance(line, dict) and line.get("ended") is True:
            self._worker_up = False
            self.box.clean = line.get("clean") is True
            raise RuntimeError("worker exited")
        return line

    def _retire(self) -> None:
        """End the worker through its keeper and wait for the session's clean-up."""
        if self._worker_up and self.box.alive():
            try:
                self._send(END_LINE)
                deadline = time.monotonic() + END_TIMEOUT
                while self._worker_up:  # an answer still in flight is skipped
                    self._read_line(max(0.0, deadline - time.monotonic()))
            except (OSError, RuntimeError, TimeoutError, ValueError):
                pass
        self._kill()

    def _kill(self) -> None:
        """Forget the worker; retire the container unless its keeper ended the session cleanly."""
        if self._worker_up or not self.box.clean:
            self.forced_kills += self.box.alive()
            self.box.retire()
        self._worker_up = False
        self.proc = None

    def close(self) -> None:
        self._retire()
        if self.on_close is not None:
            self.on_close()


class ContainerPool:
    """Idle kept containers by key (the container's limits and masks): a session takes one of
    its key or starts a new one, and gives it back if the keeper ended it cleanly."""

    def __init__(self) -> None:
        self._idle: list[KeptContainer] = []
        self._lock = threading.Lock()

    def take(self, key: tuple, make: Callable[[], KeptContainer]) -> KeptContainer:
        with self._lock:
            for i, box in enumerate(self._idle):
                if box.key == key:
                    return self._idle.pop(i)
        return make()

    def give_back(self, box: KeptContainer) -> None:
        if not (box.alive() and box.clean):
            box.close()
            return
        with self._lock:
            self._idle.append(box)
            surplus = self._idle[:-MAX_IDLE]
            del self._idle[:-MAX_IDLE]
        for old in surplus:
            old.close()

    def close(self) -> None:
        """End every idle container, all at once (each takes a few hundred ms to stop)."""
        with self._lock:
            boxes, self._idle[:] = list(self._idle), []
        for box in boxes:
            box.end_input()
        for box in boxes:
            box.close()
