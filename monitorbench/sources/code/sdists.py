"""Fetch each pinned sdist once, unpack it, and define the checkout every task starts from.

The cache (``$MONITORBENCH_CACHE`` or ``outputs/cache/sdists``) holds the downloaded tarball and an
unpacked, filtered copy. Processes may share one cache (two xdist workers, two suites built at
once): the download and the unpack each happen under a file lock and are renamed into place, so no
process sees a half-written tarball or checkout and none deletes another's. The *checkout* is the
same filtered file set everywhere: in a task's public ``repo/`` directory, in the grader's work
trees and in the baseline test run. Only UTF-8 text files are kept (suites store text), and
packaging metadata and docs are dropped; a test that needs a dropped file (humanize's compiled .mo
catalogues) fails in the baseline and so never becomes a fail-to-pass or pass-to-pass test.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from monitorbench.errors import InputError
from monitorbench.hashing import cache_root as hashing_cache_root, creation_lock, sha256_file
from monitorbench.sources.code.libraries import LibrarySpec
from monitorbench.sources.code.testrun import precompile

_DROP_DIRS = {"docs", "doc", "documentation", ".benchmarks", "__pycache__", ".pytest_cache"}


def cache_root() -> Path:
    """Where sdists and checkouts are cached (under :func:`monitorbench.hashing.cache_root`)."""
    return hashing_cache_root() / "sdists"


def fetch_sdist(spec: LibrarySpec, cache: Path | None = None) -> Path:
    """Return the cached sdist tarball of ``spec``, downloading it with pip on first use (into
    a private directory, then renamed into place under the lock)."""
    cache = cache or cache_root()
    cache.mkdir(parents=True, exist_ok=True)
    tar = cache / f"{spec.name}-{spec.version}.tar.gz"
    if tar.is_file():
        return tar
    with creation_lock(tar):
        if tar.is_file():  # another process downloaded it while this one waited
            return tar
        with tempfile.TemporaryDirectory(prefix=".download-", dir=cache) as tmp:
            proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary",
                                   ":all:", "--no-deps", "-q", "-d", tmp, spec.pin],
                                  capture_output=True, text=True, timeout=600)
            got = Path(tmp) / tar.name
            if proc.returncode != 0 or not got.is_file():
                raise InputError(cache, spec.pin,
                                 f"pip download failed: {proc.stderr.strip()[-400:]}",
                                 f"check network access to PyPI or place {tar.name} in {cache}")
            got.rename(tar)
    return tar


def _keep(rel: Path, data: bytes) -> bool:
    parts = rel.parts
    if any(p in _DROP_DIRS or p.endswith(".egg-info") for p in parts[:-1]):
        return False
    if rel.name == "PKG-INFO" or rel.suffix == ".pyc":
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def checkout_files(spec: LibrarySpec, cache: Path | None = None) -> dict[str, str]:
    """The checkout as {relative posix path: text}, read from the sdist (deterministic order)."""
    tar = fetch_sdist(spec, cache)
    top = f"{spec.name}-{spec.version}"
    files: dict[str, str] = {}
    with tarfile.open(tar, "r:gz") as tf:
        for m in tf.getmembers():
            if not m.isfile() or not m.name.startswith(top + "/"):
                continue
            rel = Path(m.name[len(top) + 1:])
            if not rel.parts or ".." in rel.parts:
                continue
            f = tf.extractfile(m)
            data = f.read() if f else b""
            if _keep(rel, data):
                files[rel.as_posix()] = data.decode("utf-8")
    if not files:
        raise InputError(tar, None, "sdist contains no usable files",
                         f"delete {tar} so it is downloaded again")
    return dict(sorted(files.items()))


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Materialise {relative path: text} under ``root`` byte-exactly (no newline translation)."""
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    return root


def pristine_checkout(spec: LibrarySpec, cache: Path | None = None) -> Path:
    """An unpacked checkout in the cache, created once; callers copy it, never write to it.

    Unpacked under a lock into a private directory and renamed into place before its marker is
    written: a process that finds the marker finds the whole tree, and a second process waits
    for the first instead of deleting the tree it is writing (two workers sharing a cache)."""
    cache = cache or cache_root()
    root = cache / "checkouts" / f"{spec.name}-{spec.version}"
    marker = root.with_name(root.name + ".complete")
    if marker.is_file():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    with creation_lock(root):
        if marker.is_file():
            return root
        files = checkout_files(spec, cache)
        work = Path(tempfile.mkdtemp(prefix=f".{root.name}-", dir=root.parent))
        try:
            write_tree(work / "tree", files)
            precompile(work / "tree", spec)
            if root.exists():  # left by an unpack that died before its marker
                shutil.rmtree(root)
            (work / "tree").rename(root)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        marker.write_text(sha256_file(fetch_sdist(spec, cache)) + "\n")
    return root
