"""The records an audit produces: per-check outcomes, defect findings, decision records.

Kept free of any source-specific import so the report writer, the exclusion file and the MLflow
logger can read them without pulling in BFCL, AgentDojo or the code grader.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

CHECKS = ("C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8")
CHECK_NAMES = {"C1": "replay", "C2": "repeatability", "C3": "provenance",
               "C4": "input-label consistency", "C5": "trivial baselines", "C6": "mutation testing",
               "C7": "instruction fidelity", "C8": "environment fidelity"}
# Exclusion reason codes (paper Table 7 plus one per failed check): D default-argument conflict,
# S empty-report/parsing error, R inconsistent decisions; C1..C8 a failed check.
DEFECT_CODES = {"D": "default-argument conflict between answer key and schema",
                "S": "grader passes without test evidence (empty report)",
                "R": "replay or decisions not repeatable"}
# Decisions from a mutant or reference that are not a valid PASS/FAIL (a crash is no detection).
INVALID = "INVALID"


@dataclass
class CheckResult:
    """One task-check outcome with the evidence a reader needs to confirm it."""

    check: str
    passed: bool
    evidence: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Finding:
    """A source defect found by a hunt (reason code D, S or R) with its evidence."""

    code: str
    evidence: str


@dataclass
class TaskAudit:
    """Everything the audit established about one task."""

    task_id: str
    source: str
    task_type: str
    checks: dict[str, CheckResult] = field(default_factory=dict)
    defects: list[Finding] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks.values()) and not self.defects

    def reasons(self) -> list[dict[str, Any]]:
        """Exclusion reasons, Table 7 style: a code and the evidence behind it, plus the kinds
        of finding for a check that sorts its findings by kind (C8)."""
        out: list[dict[str, Any]] = [{"code": f.code, "evidence": f.evidence}
                                     for f in self.defects]
        for k, c in sorted(self.checks.items()):
            if not c.passed:
                reason: dict[str, Any] = {"code": k, "evidence": f"{CHECK_NAMES[k]}: {c.evidence}"}
                if c.details.get("kinds"):
                    reason["kinds"] = sorted(c.details["kinds"])
                out.append(reason)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "source": self.source, "task_type": self.task_type,
                "passed": self.passed, "seconds": round(self.seconds, 4),
                "checks": {k: asdict(v) for k, v in sorted(self.checks.items())},
                "defects": [asdict(f) for f in self.defects], "reasons": self.reasons()}
