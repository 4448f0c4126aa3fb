"""Exclusions: tasks that failed the audit are dropped from the shipped suite, with reasons.

The audit writes ``audit.json`` next to the suite's ``manifest.json``: the suite hash it audited,
and every excluded task with its reason codes and evidence (paper Table 7). The file is outside
the manifest, so writing it never changes the suite's hashes; the suite hash inside it ties the
exclusions to exactly the files that were audited. ``apply_exclusions`` is what the run pipeline
calls after ``load_suite``.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from monitorbench.audit.audit import SuiteAudit
from monitorbench.audit.rules import write_rules
from monitorbench.errors import InputError
from monitorbench.suites.format import Suite

AUDIT_FILE = "audit.json"
FORMAT = "monitorbench-audit/1"


def write_exclusions(audit: SuiteAudit) -> Path:
    """Write ``audit.json`` for a whole-suite audit, and which rules made it; returns its
    path."""
    path = Path(audit.root) / AUDIT_FILE
    body = {"format": FORMAT, "suite": audit.name, "suite_hash": audit.suite_hash,
            "tasks_audited": len(audit.tasks),
            "excluded": [{"task_id": t.task_id, "source": t.source, "reasons": t.reasons()}
                         for t in audit.failed()]}
    path.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    write_rules(audit.root)
    return path


def read_exclusions(root: Path | str) -> dict[str, Any] | None:
    """The parsed ``audit.json`` of a suite, or None when the suite was never audited."""
    path = Path(root) / AUDIT_FILE
    if not path.is_file():
        return None
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(path, f"line {e.lineno}", f"invalid JSON ({e.msg})",
                         "rerun `python -m monitorbench.audit` on the suite") from None
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise InputError(path, "format", f"expected {FORMAT!r}",
                         "rerun `python -m monitorbench.audit` on the suite")
    if not isinstance(body.get("excluded"), list) or not all(
            isinstance(e, dict) and isinstance(e.get("task_id"), str) for e in body["excluded"]):
        raise InputError(path, "excluded", "must be a list of {task_id, reasons} objects",
                         "rerun `python -m monitorbench.audit` on the suite")
    return body


def apply_exclusions(suite: Suite) -> Suite:
    """The suite without the tasks its audit excluded (unchanged when it has no audit.json).

    An audit of other files (a suite rebuilt since) is refused rather than silently applied.
    """
    body = read_exclusions(suite.root)
    if body is None:
        return suite
    if body.get("suite_hash") != suite.suite_hash:
        raise InputError(Path(suite.root) / AUDIT_FILE, "suite_hash",
                         f"audit was of suite {body.get('suite_hash')!r}, this suite is "
                         f"{suite.suite_hash!r}", "rerun `python -m monitorbench.audit` on it")
    gone = {e["task_id"] for e in body["excluded"]}
    return dataclasses.replace(
        suite,
        tasks={k: v for k, v in suite.tasks.items() if k not in gone},
        cases={k: v for k, v in suite.cases.items() if k not in gone},
        references={k: v for k, v in suite.references.items() if k not in gone})
