"""Task sources by name: how to build each suite, where it lives, and what the sandbox must hide.

A suite is built once per (source, options) into ``<suites_dir>/<name>`` (default options) or
``<suites_dir>/<name>-<options hash>``, then loaded frozen (hash-checked) by every run. Builders
are imported lazily: agentdojo and the code libraries are heavy and optional.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from monitorbench.errors import InputError
from monitorbench.suites.format import Suite, canonical_json, load_suite, sha256_text

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SourceInfo:
    """A task source: its builder, the sandbox runtime its tasks need, and the installed
    packages whose files would leak answers or reference checkers into a sandbox."""

    module: str
    builder: str
    runtime: str
    leaky_packages: tuple[str, ...]
    leaky_paths: str | None = None   # name of a function in `module` returning extra host paths


SOURCES: dict[str, SourceInfo] = {
    "bfcl": SourceInfo("monitorbench.suites.bfcl", "build_bfcl_suite", "none", ("bfcl_eval",)),
    "agentdojo": SourceInfo("monitorbench.suites.agentdojo", "build_agentdojo_suite",
                            "agentdojo", (), "masked_paths"),
    "code": SourceInfo("monitorbench.suites.code.build", "build_code_suite", "code", ()),
}


def source_info(name: str) -> SourceInfo:
    if name not in SOURCES:
        raise InputError("conf/task/*.yaml", "task.suites[].name", f"unknown suite {name!r}",
                         f"use one of {', '.join(sorted(SOURCES))}")
    return SOURCES[name]


def suite_dir(suites_root: Path, name: str, options: Mapping[str, Any]) -> Path:
    if not options:
        return Path(suites_root) / name
    return Path(suites_root) / f"{name}-{sha256_text(canonical_json(dict(options)))[:10]}"


def _builder(info: SourceInfo) -> Callable[..., Path]:
    try:
        module = importlib.import_module(info.module)
    except ImportError as e:
        raise InputError(None, "task.suites[].name",
                         f"the builder module {info.module} cannot be imported ({e})",
                         "install the source's extra, e.g. pip install -e '.[state]'") from e
    return getattr(module, info.builder)


def build_suite(suites_root: Path, name: str, options: Mapping[str, Any] | None = None, *,
                force: bool = False, progress: bool = False) -> Path:
    """Build a suite into its directory (atomically: a temp dir renamed into place)."""
    options = dict(options or {})
    info = source_info(name)
    target = suite_dir(suites_root, name, options)
    if target.exists() and not force:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    t0 = time.time()
    try:
        _builder(info)(tmp, progress=progress, **options)
    except TypeError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise InputError("conf/task/*.yaml", "task.suites[].options",
                         f"the {name} builder rejected the options {options} ({e})",
                         "remove or rename the offending option") from e
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if target.exists():
        shutil.rmtree(target)
    tmp.rename(target)
    log.info("built suite %s in %.1f s at %s", name, time.time() - t0, target)
    return target


def ensure_suite(suites_root: Path, name: str, options: Mapping[str, Any] | None = None) -> Suite:
    """Load the frozen suite, building it first if it does not exist yet."""
    root = build_suite(suites_root, name, options)
    return load_suite(root)


def masked_paths(name: str) -> tuple[str, ...]:
    """Host paths a sandbox must hide for tasks of this source (answer keys, reference code)."""
    info = source_info(name)
    paths: list[str] = []
    for pkg in info.leaky_packages:
        spec = importlib.util.find_spec(pkg)
        if spec is not None and spec.submodule_search_locations:
            paths.extend(str(p) for p in spec.submodule_search_locations)
    if info.leaky_paths:
        paths.extend(getattr(importlib.import_module(info.module), info.leaky_paths)())
    return tuple(paths)
