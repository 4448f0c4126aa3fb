"""Suites by source name: how to build each, where it lives, and what the sandbox must hide.

A suite is built once per (source, options) into ``<suites_dir>/<name>`` (default options) or
``<suites_dir>/<name>-<options hash>``, then loaded frozen (hash-checked) by every run, as long
as its source's package is the one it was built from (:func:`source_code_hash`). Each
source is described by its :class:`~monitorbench.suites.source_spec.SourceSpec` (found through
:mod:`monitorbench.suites.source_registry`); builders are imported lazily: agentdojo and the code
libraries are heavy and optional.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import logging
import multiprocessing
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from filelock import FileLock

from monitorbench.errors import InputError
from monitorbench.hashing import canonical_json, sha256_text, tree_hash
from monitorbench.suites.format import Suite, load_suite
from monitorbench.suites.source_registry import get_source
from monitorbench.suites.source_spec import SourceSpec, load_object

log = logging.getLogger(__name__)


BUILDER_FILE = "builder.json"
# Run on a freshly built suite directory before it is put in place: (directory, progress).
PostBuild = Callable[[Path, bool], None]


def source_info(name: str) -> SourceSpec:
    """The spec of source ``name`` (an InputError listing the known names if there is none)."""
    return get_source(name)


def suite_dir(suites_root: Path, name: str, options: Mapping[str, Any]) -> Path:
    if not options:
        return Path(suites_root) / name
    return Path(suites_root) / f"{name}-{sha256_text(canonical_json(dict(options)))[:10]}"


def _builder(info: SourceSpec) -> Callable[..., Path]:
    return load_object(info.builder, source=info.name, what="builder")


def build_suite(suites_root: Path, name: str, options: Mapping[str, Any] | None = None, *,
                check: PostBuild | None, force: bool = False, progress: bool = False) -> Path:
    """Build a suite into its directory (atomically: a temp dir renamed into place).

    ``check(tmp_dir, progress)`` runs on the built files before they are put in place: the
    pipeline passes the V4V audit (:mod:`monitorbench.audit.prepare`, a layer above this one).
    It has no default, so no caller can skip the audit by forgetting it; None means unaudited.
    """
    options = dict(options or {})
    info = source_info(name)
    target = suite_dir(suites_root, name, options)
    if target.exists() and not force and not _stale(target, info):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # Parallel jobs of a sweep may all find the suite missing or stale: one builds, the others
    # wait and then load it. A stale suite is replaced in place, so a job still running from the
    # checkout it was built for must finish before a newer checkout's job starts on it.
    with suite_lock(target):
        if target.exists() and not force and not _stale(target, info):
            return target
        if target.exists() and not force:
            log.info("rebuilding suite %s at %s: it was built from other %s source files than "
                     "this checkout's (its builder, references or reviewed records changed)",
                     name, target, name)
        _remove_leftovers(target)
        _build_into(target, name, info, options, progress=progress, check=check)
    return target


def source_code_hash(info: SourceSpec) -> str:
    """The identity of what a source's suite is built from: :func:`hashing.tree_hash` of the
    package holding its builder (its code, and data such as τ²'s reviewed acceptance records).
    A suite is frozen, but it must follow the checkout that loads it: labels repaired in a
    record, or a builder fix, would otherwise never reach a suite built before them. Code the
    builder imports from outside its package (``monitorbench.suites``, the audit) is not
    hashed: a change there that changes what is built still bumps ``builder_version``."""
    spec = importlib.util.find_spec(info.builder.partition(":")[0])
    if spec is None or spec.origin is None:
        raise InputError(None, f"source {info.name}.builder", f"module of {info.builder!r} "
                         "not found", "install the source's package, or fix its builder path")
    return tree_hash(Path(spec.origin).resolve().parent)


def _stale(target: Path, info: SourceSpec) -> bool:
    """Whether the suite at ``target`` was built from other source files than this checkout's
    (or before builds recorded them): such a suite is built again, not loaded."""
    try:
        built = json.loads((target / BUILDER_FILE).read_text()).get("source_code")
    except (OSError, ValueError, AttributeError):
        return True
    return built != source_code_hash(info)


def suite_lock(target: Path) -> FileLock:
    """The file lock under which the suite at ``target`` is built or re-audited."""
    return FileLock(str(target.parent / f".{target.name}.lock"))


def _remove_leftovers(target: Path) -> None:
    """Remove the temp directories (``.<name>.<random>``) of builds of ``target`` that were
    killed (SIGKILL, OOM, a Slurm preemption: no handler runs). Called under the build lock,
    so no live build of this target owns one."""
    for tmp in target.parent.glob(f".{target.name}.*"):
        if tmp.is_dir() and not tmp.name.endswith(".lock"):
            log.info("removing %s, left by a build of %s that was killed", tmp, target.name)
            shutil.rmtree(tmp, ignore_errors=True)


def _build_into(target: Path, name: str, info: SourceSpec, options: dict[str, Any], *,
                progress: bool, check: PostBuild | None) -> None:
    builder = _builder(info)
    accepted = [p for p in inspect.signature(builder).parameters if p not in ("out_dir",
                                                                              "progress")]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise InputError("conf/task/*.yaml", f"task.suites[{name}].options.{unknown[0]}",
                         f"the {name} builder has no option {unknown[0]!r}",
                         f"use options from {accepted}")
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    t0 = time.time()
    try:
        builder(tmp, progress=progress, **options)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    built = time.time() - t0
    if check is not None:
        try:
            check(tmp, progress)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    (tmp / BUILDER_FILE).write_text(json.dumps(
        {"source": name, "builder_version": info.builder_version, "options": options,
         "source_code": source_code_hash(info)}, sort_keys=True) + "\n")
    if target.exists():
        shutil.rmtree(target)
    tmp.rename(target)
    log.info("built suite %s in %.1f s at %s (builder %.1f s)", name, time.time() - t0, target,
             built)


def ensure_suite(suites_root: Path, name: str, options: Mapping[str, Any] | None = None, *,
                 check: PostBuild | None) -> Suite:
    """Load the frozen suite, building it first (then ``check``) if it does not exist yet."""
    _announce(suites_root, [(name, dict(options or {}))])
    root = build_suite(suites_root, name, options, check=check, progress=True)
    check_builder_version(root, name)
    return load_suite(root)


def _announce(suites_root: Path, wanted: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Say that a first build is about to take a while (its builders then print each step)."""
    for n, o in wanted:
        if not suite_dir(suites_root, n, o).exists():
            log.info("building suite %s %s on first use (minutes for agentdojo and code; the "
                     "builder prints each step, later runs load the frozen suite)", n, o or "")


def ensure_suites(suites_root: Path, wanted: Sequence[tuple[str, Mapping[str, Any] | None]], *,
                  check: PostBuild | None) -> list[Suite]:
    """:func:`ensure_suite` for several suites, building the missing ones concurrently.

    Each missing suite is built in its own process (spawned: the caller may hold threads or
    an open MLflow run), through :func:`build_suite` and so under its file lock: a suite that
    another job is building is waited for, not built twice. ``check`` must be a module-level
    function (it is sent to the workers). Builds are mostly test runs and
    subprocesses, so on a small machine they overlap well; the suites are loaded in order.
    """
    missing = [(n, dict(o or {})) for n, o in wanted
               if not suite_dir(suites_root, n, dict(o or {})).exists()]
    if len(missing) > 1:
        _announce(suites_root, missing)
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=len(missing), mp_context=ctx) as pool:
            futures = [pool.submit(_build_reporting, suites_root, n, o, check) for n, o in missing]
            for f in futures:
                err = f.result()
                if err is not None:  # the first builder's InputError, as the builder said it
                    raise InputError(*err)
    return [ensure_suite(suites_root, n, o, check=check) for n, o in wanted]


def _build_reporting(suites_root: Path, name: str, options: dict[str, Any],
                     check: PostBuild | None) -> tuple[str | None, str | None, str, str] | None:
    """:func:`build_suite` in a worker process; an InputError comes back as its four fields
    (it cannot be unpickled across processes as itself)."""
    _log_to_stderr()
    try:
        build_suite(suites_root, name, options, check=check, progress=True)
    except InputError as e:
        return e.file, e.field, e.problem, e.fix
    return None


def _log_to_stderr() -> None:
    """A spawned builder starts with logging unconfigured, so its INFO lines (each suite's
    builder and audit seconds) would be dropped: send monitorbench's to stderr, as the job's
    own process does."""
    pkg = logging.getLogger("monitorbench")
    if pkg.handlers or logging.getLogger().handlers:
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("[%(name)s][%(levelname)s] - %(message)s"))
    pkg.addHandler(handler)
    pkg.setLevel(logging.INFO)


def check_builder_version(root: Path, name: str) -> None:
    """Refuse a suite that this version of its builder would not produce."""
    want = source_info(name).builder_version
    path = Path(root) / BUILDER_FILE
    try:
        got = json.loads(path.read_text())["builder_version"]
    except (OSError, ValueError, KeyError):
        got = None
    if got != want:
        raise InputError(path, "builder_version",
                         f"suite was built by {name} builder version {got}, this monitorbench "
                         f"builds version {want}",
                         f"remove {root} (the next run rebuilds it), or run `python -m "
                         f"monitorbench.suites.build {name} --force` for the default options; "
                         "results from the two versions are not comparable")


def masked_paths(name: str) -> tuple[str, ...]:
    """Host paths a sandbox must hide for tasks of this source (answer keys, reference code)."""
    info = source_info(name)
    paths: list[str] = []
    for pkg in info.leaky_packages:
        spec = importlib.util.find_spec(pkg)
        if spec is not None and spec.submodule_search_locations:
            paths.extend(str(p) for p in spec.submodule_search_locations)
    if info.masked_paths:
        paths.extend(load_object(info.masked_paths, source=name, what="masked_paths")())
    return tuple(paths)
