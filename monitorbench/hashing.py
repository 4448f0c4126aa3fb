"""Byte-stable hashing: the one place that decides how a value or a file becomes a sha256.

Suite manifests, generation caches, judgment-store keys and attack caches all hash through these
three functions, so two modules can never disagree on what "the same content" means; the caches
that outlive a run are all kept under one root (``cache_root``) and created under one kind of
lock (``creation_lock``). It sits at the bottom of the package (the standard library and
filelock only) so that any layer may import it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from filelock import FileLock


def canonical_json(obj: Any) -> str:
    """One byte-stable JSON text per value: the basis of every hash in monitorbench."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def sha256_text(text: str) -> str:
    """sha256 hex digest of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_file(path: Path) -> str:
    """sha256 hex digest of a file's bytes, read in 1 MiB chunks (suite files can be large)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tree_hash(root: Path, suffixes: tuple[str, ...] = (".py", ".json")) -> str:
    """sha256 over the relative path and bytes of every file under ``root`` whose suffix is in
    ``suffixes``, in path order (bytecode caches skipped): the identity of a package's code and
    data, where any edit counts, comments included."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(root).rglob("*") if p.suffix in suffixes
                       and "__pycache__" not in p.parts and p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_root() -> Path:
    """Where the content-addressed caches that outlive a run live (code sources' sdists and
    builds, the GGUF the local server serves): ``$MONITORBENCH_CACHE``, else
    ``$MONITORBENCH_OUTPUTS/cache`` (``outputs/cache`` by default)."""
    env = os.environ.get("MONITORBENCH_CACHE")
    if env:
        return Path(env)
    return (Path(os.environ.get("MONITORBENCH_OUTPUTS", "outputs")) / "cache").resolve()


def creation_lock(path: Path) -> FileLock:
    """The lock guarding the creation of ``path`` in a cache that processes share (a file
    beside it): the creator holds it, the others wait and then find ``path`` made."""
    return FileLock(str(path.with_name(f".{path.name}.lock")))
