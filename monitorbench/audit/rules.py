"""The identity of the audit's rules, so a suite audited by older rules is audited again.

An audit that adds a check (C8's ``unanswered`` found seven τ² tasks whose gold answers nothing)
must reach suites built before it: otherwise a user's cached suite keeps judging the tasks the
new rule excludes, under the same run key. The rules are the code of the modules that decide
findings; their sha256 is written beside ``audit.json`` and compared on every load
(:func:`monitorbench.audit.prepare.require_audit`). It lives in a side file, not in
``audit.json``, so a new rule that excludes nothing leaves ``audit.json`` (and every run key that
hashes it) byte-identical.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

RULES_FILE = Path("audit") / "rules.sha256"
# Modules of this package that only run, log or present an audit: they decide no finding.
_NOT_RULES = frozenset({"__init__.py", "__main__.py", "run.py", "report.py", "prepare.py",
                        "rules.py"})


@lru_cache(maxsize=1)
def rules_hash() -> str:
    """sha256 over the names and bytes of the audit modules that decide findings."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        if path.name not in _NOT_RULES:
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def write_rules(root: Path) -> None:
    """Record that the suite at ``root`` was audited by these rules."""
    path = Path(root) / RULES_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(rules_hash() + "\n", encoding="utf-8")


def audited_by_these_rules(root: Path) -> bool:
    """Whether the suite's audit was made by the rules of this monitorbench."""
    path = Path(root) / RULES_FILE
    return path.is_file() and path.read_text(encoding="utf-8").strip() == rules_hash()
