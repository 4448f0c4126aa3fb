"""Prepare suites for a run: build what is missing, audit it, then load it frozen.

Building is :mod:`monitorbench.suites.registry`'s job and knows nothing of the audit; this module
is the step above both that every entry point (``run``, ``score``, ``audit``, ``build``, ``list``)
uses, so no suite is put in place without its V4V audit (the paper's six checks and C7,
instruction fidelity). Tasks that fail are listed with reasons in ``audit.json`` and never judged
(see :mod:`monitorbench.audit.exclusions`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Mapping, Sequence

from monitorbench.audit.audit import audit_suite
from monitorbench.audit.exclusions import AUDIT_FILE, read_exclusions, write_exclusions
from monitorbench.audit.model import CHECKS
from monitorbench.audit.report import write_report
from monitorbench.audit.rules import audited_by_these_rules
from monitorbench.errors import InputError
from monitorbench.hashing import sha256_file
from monitorbench.suites import registry
from monitorbench.suites.format import Suite, load_suite

log = logging.getLogger(__name__)


def audit_built(root: Path, progress: bool) -> None:
    """Audit a freshly built suite directory in place (before it is renamed into its final
    place): ``audit.json`` for the exclusions and the report under ``audit/``."""
    result = audit_suite(root, progress=progress)
    write_exclusions(result)
    write_report(result, root / "audit")
    log.info("audit of %s: %d/%d tasks pass all %d checks in %.1f s", result.name,
             len(result.tasks) - len(result.failed()), len(result.tasks), len(CHECKS),
             result.seconds)


def build_suite(suites_root: Path, name: str, options: Mapping[str, Any] | None = None, *,
                force: bool = False, progress: bool = False, audit: bool = True) -> Path:
    """Build a suite (atomically, under its file lock) and audit it before it is put in place;
    ``audit=False`` only for callers that audit it themselves."""
    return registry.build_suite(suites_root, name, options, force=force, progress=progress,
                                check=audit_built if audit else None)


def ensure_suite(suites_root: Path, name: str, options: Mapping[str, Any] | None = None
                 ) -> Suite:
    """Load the frozen suite, building and auditing it first if it does not exist yet; a
    built suite without its audit, or with another suite's, is refused (:func:`require_audit`)."""
    return require_audit(registry.ensure_suite(suites_root, name, options, check=audit_built))


def ensure_suites(suites_root: Path, wanted: Sequence[tuple[str, Mapping[str, Any] | None]]
                  ) -> list[Suite]:
    """:func:`ensure_suite` for several suites, the missing ones built and audited
    concurrently (one spawned process each)."""
    return [require_audit(s)
            for s in registry.ensure_suites(suites_root, wanted, check=audit_built)]


def require_audit(suite: Suite) -> Suite:
    """The suite, if its ``audit.json`` is there and audited exactly these files, audited again
    first when older audit rules made it (:mod:`monitorbench.audit.rules`).

    The audit decides which tasks are judged, so it is part of the suite's identity: a suite
    whose audit was deleted would silently judge the tasks it excluded, under the same run key.
    """
    path = Path(suite.root) / AUDIT_FILE
    if path.is_file() and not audited_by_these_rules(suite.root):
        _reaudit(Path(suite.root))
    body = read_exclusions(suite.root)
    fix = (f"run `monitorbench audit suite={suite.name}` (writes {AUDIT_FILE}), or remove "
           f"{suite.root} so the next run rebuilds and audits it")
    if body is None:
        raise InputError(path, None, "the suite has no audit: the V4V audit decides which of "
                         "its tasks may be judged", fix)
    if body.get("suite_hash") != suite.suite_hash:
        raise InputError(path, "suite_hash", f"the audit is of suite {body.get('suite_hash')!r}, "
                         f"the manifest says {suite.suite_hash!r}", fix)
    return suite


def _reaudit(root: Path) -> None:
    with registry.suite_lock(root):
        if not audited_by_these_rules(root):   # another process may have done it meanwhile
            log.warning("the audit rules changed since %s was audited: auditing it again", root)
            audit_built(root, progress=False)


def load_built(root: Path, name: str) -> Suite:
    """A suite already built at ``root`` (the default build or a slice of source ``name``),
    checked as :func:`ensure_suite` checks it: builder version, manifest and audit."""
    registry.check_builder_version(root, name)
    return require_audit(load_suite(root))


def audit_hash(suite: Suite) -> str:
    """The sha256 of the suite's ``audit.json`` (its exclusions), part of a run's key."""
    return sha256_file(Path(suite.root) / AUDIT_FILE)
