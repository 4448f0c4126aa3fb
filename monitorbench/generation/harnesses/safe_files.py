"""Reading, measuring, copying and deleting what a harness left, as if it were hostile.

A harness runs a model's commands, so anything under its workspace and HOME may be planted: a
symlink to a host file (the framework would read the host file), a FIFO (a blocking open hangs the
job), a dangling link, a multi-GB file, or a directory chain deeper than Python's recursion limit
(``rglob``, ``shutil.copytree`` and ``shutil.rmtree`` recurse). Everything here walks iteratively
with a depth and an entry bound, never follows a link, opens with ``O_NOFOLLOW | O_NONBLOCK`` and
reads a regular file only (``fstat``), up to a size cap. What it refuses it says, so the caller
records an outcome instead of crashing or hanging.
"""

from __future__ import annotations

import logging
import os
import stat
import uuid
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

log = logging.getLogger(__name__)

MAX_DEPTH = 64            # deeper entries are not visited (a real session tree is < 10 deep)
MAX_ENTRIES = 100_000     # entries visited per walk
READ_CAP = 16_000_000     # bytes: a trajectory file larger than this is not read


class Refused(Exception):
    """A file the framework will not read, with the reason (a symlink, a FIFO, too large...)."""


@dataclass(frozen=True)
class Entry:
    path: Path
    rel: Path
    mode: int
    size: int
    depth: int  # 0: directly under the walk's root


def walk(root: Path, *, max_depth: int = MAX_DEPTH, max_entries: int = MAX_ENTRIES
         ) -> Iterator[Entry]:
    """Every entry under ``root`` (``lstat``: links are reported, never followed), breadth first,
    at most ``max_depth`` levels and ``max_entries`` entries; ``root`` itself must be a real
    directory (a link planted at ``root`` yields nothing)."""
    try:
        if not stat.S_ISDIR(os.lstat(root).st_mode):
            return
    except OSError:
        return
    queue: deque[tuple[Path, int]] = deque([(Path(root), 0)])
    seen = 0
    while queue:
        directory, depth = queue.popleft()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            seen += 1
            if seen > max_entries:
                return
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            path = Path(e.path)
            yield Entry(path, path.relative_to(root), st.st_mode, st.st_size, depth)
            if stat.S_ISDIR(st.st_mode) and depth + 1 < max_depth:
                queue.append((path, depth + 1))


def files_matching(root: Path, suffix: str) -> list[Path]:
    """Regular files under ``root`` whose name ends with ``suffix`` (the safe ``rglob``)."""
    return [e.path for e in walk(root) if stat.S_ISREG(e.mode) and e.path.name.endswith(suffix)]


def read_bytes(path: Path, root: Path, cap: int = READ_CAP) -> bytes:
    """The bytes of ``path``, a regular file inside ``root`` reached without any link, at most
    ``cap`` bytes; :class:`Refused` otherwise. Never blocks on a FIFO or device."""
    try:
        rel = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
    except ValueError:
        raise Refused(f"{path} is outside {root}") from None
    if os.path.realpath(path) != os.path.join(os.path.realpath(root), rel):
        raise Refused(f"{rel} is or passes through a symbolic link")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise Refused(f"{rel}: {e.strerror or e}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise Refused(f"{rel} is not a regular file")
        if st.st_size > cap:
            raise Refused(f"{rel} is {st.st_size} bytes, over the cap of {cap}")
        return f.read(cap + 1)[:cap]


def read_text(path: Path, root: Path, cap: int = READ_CAP) -> str:
    return read_bytes(path, root, cap).decode("utf-8", errors="replace")


def usage(root: Path, *, max_entries: int = MAX_ENTRIES) -> tuple[int, int]:
    """(bytes allocated on disk, entries) under ``root``, counting at most ``max_entries``;
    sparse files count what they occupy, not their apparent size."""
    total = count = 0
    for e in walk(root, max_entries=max_entries):
        count += 1
        try:
            total += os.lstat(e.path).st_blocks * 512
        except OSError:
            continue
    return total, count


def remove_tree(path: Path) -> bool:
    """Delete ``path`` without recursion (any depth) and without following links. True when it
    is gone; a failure is logged, never raised."""
    path = Path(path)
    if not os.path.lexists(path):
        return True
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
            return True
        stack = [path]
        while stack:
            top = stack[-1]
            if not os.access(top, os.R_OK | os.W_OK | os.X_OK):
                os.chmod(top, 0o700)  # a harness may chmod 000 its own directories
            with os.scandir(top) as it:
                subdirs = []
                for e in it:
                    if e.is_dir(follow_symlinks=False):
                        subdirs.append(Path(e.path))
                    else:
                        os.unlink(e.path)
            if subdirs:
                stack.extend(subdirs)
            else:
                os.rmdir(stack.pop())
        return True
    except OSError as e:
        log.warning("could not remove %s: %s", path, e)
        return False


def sanitize(root: Path, *, file_cap: int, max_depth: int = MAX_DEPTH) -> list[str]:
    """Remove from ``root`` what nothing outside the sandbox may meet later (the generation's
    directory is cached, copied and logged): links, FIFOs, sockets and devices, files of
    ``file_cap`` bytes or more (a write the file-size limit cut off), and whatever lies deeper
    than ``max_depth``. Returns one line per removal, for the trace."""
    notes = []
    for e in walk(root, max_depth=max_depth):
        kind = stat.S_IFMT(e.mode)
        if kind == stat.S_IFDIR:
            if e.depth == max_depth - 1 and any(stat.S_ISDIR(c.mode)
                                                 for c in walk(e.path, max_depth=1)):
                notes.append(f"{e.rel}: directories deeper than {max_depth} levels removed")
                for c in walk(e.path, max_depth=1):
                    remove_tree(c.path)
        elif kind != stat.S_IFREG:
            notes.append(f"{e.rel}: {_KINDS.get(kind, 'special file')} removed")
            remove_tree(e.path)
        elif e.size >= file_cap:
            notes.append(f"{e.rel}: {e.size} bytes, at the file-size limit, removed")
            remove_tree(e.path)
    return notes


_KINDS = {stat.S_IFLNK: "symbolic link", stat.S_IFIFO: "FIFO", stat.S_IFSOCK: "socket",
          stat.S_IFCHR: "device", stat.S_IFBLK: "device"}


def discard(path: Path) -> None:
    """Move ``path`` out of the way (renamed to a unique hidden sibling, which frees its name at
    once) and delete it; what cannot be deleted stays under that name with a warning, so it never
    blocks whoever needs the name next."""
    path = Path(path)
    if not os.path.lexists(path):
        return
    aside = path.with_name(f".discard-{path.name}-{uuid.uuid4().hex[:8]}")
    try:
        os.replace(path, aside)
    except OSError as e:
        log.warning("could not move %s aside: %s", path, e)
        aside = path
    remove_tree(aside)
