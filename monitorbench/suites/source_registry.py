"""Which task sources exist: built-in subpackages, entry points, and test registrations.

Lookups are lazy and cheap: a built-in source is found by listing the subpackages of
``monitorbench.sources`` and importing only their ``__init__`` (which holds ``SPEC``); a
third-party package declares ``[project.entry-points."monitorbench.sources"] name =
"pkg.module:SPEC"``. An entry point that cannot be loaded is logged and skipped, so one broken
plugin never stops the others (or ``monitorbench list``) from working.

The registry sits in ``suites`` (below the audit) while the sources' own modules sit above the
audit (their mutants are audit operator sets): it imports the built-in package by name, as it
loads an entry point, so no import in ``suites`` names a source's package.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
import pkgutil

from monitorbench.errors import InputError
from monitorbench.suites.source_spec import SourceSpec

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "monitorbench.sources"
BUILTIN_PACKAGE = "monitorbench.sources"   # one subpackage per built-in source, SPEC in __init__
_registered: dict[str, SourceSpec] = {}   # register_source(), checked first
_discovered: dict[str, SourceSpec] | None = None


def _builtin() -> dict[str, SourceSpec]:
    pkg = importlib.import_module(BUILTIN_PACKAGE)
    out: dict[str, SourceSpec] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.ispkg:
            spec = importlib.import_module(f"{pkg.__name__}.{info.name}").SPEC
            out[spec.name] = spec
    return out


def _entry_points() -> dict[str, SourceSpec]:
    out: dict[str, SourceSpec] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            spec = ep.load()
        except Exception as e:  # a broken plugin must not hide the other sources
            log.warning("task source entry point %s = %s cannot be loaded: %s", ep.name,
                        ep.value, e)
            continue
        if not isinstance(spec, SourceSpec):
            log.warning("task source entry point %s = %s is a %s, not a SourceSpec; skipped",
                        ep.name, ep.value, type(spec).__name__)
            continue
        out[spec.name] = spec
    return out


def _all() -> dict[str, SourceSpec]:
    global _discovered
    if _discovered is None:
        _discovered = {**_entry_points(), **_builtin()}   # a plugin cannot shadow a built-in
    merged = {**_discovered, **_registered}
    return dict(sorted(merged.items(), key=lambda kv: (kv[1].order, kv[0])))


def register_source(spec: SourceSpec) -> SourceSpec:
    """Add a source for this process (tests, notebooks); a known name is refused."""
    if spec.name in _all():
        raise InputError(None, "SourceSpec.name", f"a task source named {spec.name!r} is "
                         "already registered", "pick another name, or unregister_source() it")
    _registered[spec.name] = spec
    return spec


def unregister_source(name: str) -> None:
    """Remove a source added by :func:`register_source` (built-ins and plugins stay)."""
    _registered.pop(name, None)


def source_names() -> list[str]:
    """Every known source, in listing order (``order``, then name)."""
    return list(_all())


def get_source(name: str) -> SourceSpec:
    """The spec of source ``name``; an unknown name is an InputError listing the known ones."""
    sources = _all()
    if name not in sources:
        raise InputError("conf/task/*.yaml", "task.suites[].name", f"unknown suite {name!r}",
                         f"use one of {', '.join(sorted(sources))}")
    return sources[name]


def source_for_reference(verifier_id: str) -> SourceSpec | None:
    """The source whose spec declares reference verifier ``verifier_id``, if any."""
    return next((s for s in _all().values() if verifier_id in s.references), None)
