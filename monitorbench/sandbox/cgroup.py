"""A pids cgroup per sandbox session, where the host lets us make one.

Why: ``RLIMIT_NPROC`` is not enforced for processes whose real uid is host root, and a root
framework's sandbox (bwrap or unshare without uid remapping to a non-root host uid) keeps host uid
0. Without another cap, a fork bomb in a verifier would exhaust the host's PIDs before the wall
clock stops it. A pids cgroup caps the whole session's process count for any uid. When no writable
pids cgroup exists (the usual case for non-root users) ``RLIMIT_NPROC`` does the job instead.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

_CANDIDATES = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))


def writable_pids_root() -> Path | None:
    """The pids hierarchy this process may make cgroups in (v1's own, or v2's with pids
    enabled), or None."""
    for root in _CANDIDATES:
        if (root / "cgroup.procs").is_file() and os.access(root, os.W_OK):
            if root.name == "pids" or "pids" in read_text(root / "cgroup.subtree_control"):
                return root
    return None


def read_text(path: Path) -> str:
    """A cgroup file's text, or '' where it cannot be read (gone, or not this version's)."""
    try:
        return path.read_text()
    except OSError:
        return ""


class PidsCgroup:
    """One throw-away cgroup with ``pids.max`` set; join it with :meth:`wrap` and remove it with
    :meth:`remove` once every process in it is gone."""

    def __init__(self, path: Path, max_pids: int) -> None:
        self.path = path
        self.max_pids = max_pids

    @classmethod
    def create(cls, max_pids: int) -> "PidsCgroup | None":
        """A new cgroup, or None when this host gives us no writable pids controller."""
        root = writable_pids_root()
        if root is None:
            return None
        path = root / f"monitorbench-{uuid.uuid4().hex[:12]}"
        try:
            path.mkdir()
            (path / "pids.max").write_text(str(max_pids))
        except OSError:
            if path.exists():
                path.rmdir()
            return None
        return cls(path, max_pids)

    def wrap(self, argv: list[str]) -> list[str]:
        """Command that moves itself into this cgroup, then execs ``argv`` (so no preexec_fn,
        which is unsafe with threads, is needed)."""
        procs = str(self.path / "cgroup.procs")
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, *argv]

    def set_max(self, max_pids: int) -> None:
        """Cap what is in it from now on at ``max_pids`` (a leased cgroup's sessions differ)."""
        if max_pids != self.max_pids:
            (self.path / "pids.max").write_text(str(max_pids))
            self.max_pids = max_pids

    def remove(self, wait_seconds: float = 2.0) -> None:
        """Remove the cgroup; a cgroup with live members cannot be removed, so retry briefly."""
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.001)  # members exit within a few ms of the session's close


_MEMORY_ROOTS = (Path("/sys/fs/cgroup/memory"), Path("/sys/fs/cgroup"),
                 Path("/sys/fs/cgroup/unified"))


class MemoryCgroup:
    """One throw-away memory cgroup capping the total memory of everything in it (cgroup v1's
    ``memory.limit_in_bytes`` or v2's ``memory.max``). Why: rlimits bound each process alone, so
    a session that forks many processes (a harness whose model runs commands) could still take
    the machine's memory; the kernel kills inside the cgroup when it is full. None where the host
    gives no writable memory controller."""

    def __init__(self, path: Path, limit_file: str, events_file: str) -> None:
        self.path, self.limit_file, self.events_file = path, limit_file, events_file

    @classmethod
    def create(cls, limit_bytes: int) -> "MemoryCgroup | None":
        for root in _MEMORY_ROOTS:
            if not ((root / "cgroup.procs").is_file() and os.access(root, os.W_OK)):
                continue
            v1 = (root / "memory.limit_in_bytes").is_file()
            if not v1 and "memory" not in read_text(root / "cgroup.subtree_control"):
                continue
            limit_file, events = (("memory.limit_in_bytes", "memory.oom_control") if v1
                                  else ("memory.max", "memory.events"))
            path = root / f"monitorbench-{uuid.uuid4().hex[:12]}"
            try:
                path.mkdir()
                (path / limit_file).write_text(str(limit_bytes))
            except OSError:
                if path.exists():
                    path.rmdir()
                continue
            return cls(path, limit_file, events)
        return None

    def wrap(self, argv: list[str]) -> list[str]:
        """As :meth:`PidsCgroup.wrap`: the command joins this cgroup, then execs ``argv``."""
        procs = str(self.path / "cgroup.procs")
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, *argv]

    def oom_killed(self) -> bool:
        """Whether the kernel killed a member for going past the limit."""
        words = read_text(self.path / self.events_file).split()
        return any(w == "oom_kill" and i + 1 < len(words) and words[i + 1] != "0"
                   for i, w in enumerate(words))

    def remove(self, wait_seconds: float = 2.0) -> None:
        PidsCgroup(self.path, 0).remove(wait_seconds)
