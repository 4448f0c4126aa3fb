"""Pick a sandbox backend by its config name (``sandbox.backend``)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from monitorbench.config import SandboxBackend
from monitorbench.errors import InputError
from monitorbench.sandbox.base import Sandbox

log = logging.getLogger(__name__)

BACKENDS = tuple(b.value for b in SandboxBackend)   # the config's enum is the one list
OPTIONS = ("image", "recipe", "runtimes_dir", "binary")  # docker's only, but runtimes_dir


def make_sandbox(backend: str, **options: Any) -> Sandbox:
    """``auto``/``bwrap`` use bubblewrap and fall back to ``unshare`` (with its loud warning)
    when bwrap is missing or cannot create namespaces here. Options every backend accepts:
    ``runtimes_dir``; docker also takes ``image``, ``recipe`` (the image's
    :class:`~monitorbench.sandbox.image.ImageRecipe`, used when ``image`` is empty) and
    ``binary`` (the config always carries an image, so the others ignore these)."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise InputError(None, f"sandbox.{unknown[0]}", "unknown sandbox option",
                         f"remove it; known options are {list(OPTIONS)}")
    if backend not in BACKENDS:
        raise InputError(None, "sandbox.backend", f"unknown backend {backend!r}",
                         f"set sandbox.backend to one of {list(BACKENDS)}")
    runtimes_dir = options.get("runtimes_dir")
    runtimes_dir = Path(runtimes_dir) if runtimes_dir is not None else None
    if backend == "docker":
        from monitorbench.sandbox.docker import DockerSandbox

        return DockerSandbox(image=options.get("image") or None, recipe=options.get("recipe"),
                             runtimes_dir=runtimes_dir, binary=options.get("binary") or "docker")
    if backend in ("auto", "bwrap"):
        from monitorbench.sandbox.bwrap import BwrapSandbox, bwrap_usable

        if bwrap_usable():
            return BwrapSandbox(runtimes_dir=runtimes_dir)
        log.warning("bwrap is missing or cannot create namespaces here; falling back to unshare")
    from monitorbench.sandbox.unshare import UnshareSandbox

    return UnshareSandbox(runtimes_dir=runtimes_dir)
