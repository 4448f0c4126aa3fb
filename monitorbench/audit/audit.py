"""Audit one frozen suite: the six V4V checks, instruction fidelity (C7), environment fidelity
(C8) and the defect hunts for every task.

The suite is loaded without the loader's all-or-nothing hash check so that provenance (C3) can
be judged, and reported, per task. Reference verifiers come from the registry by the id in each
task's ``reference.json``, so a suite rewritten with another (for example deliberately broken)
reference is audited against that one.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from monitorbench.audit import checks, defects
from monitorbench.audit.environment_fidelity import check_environment_fidelity
from monitorbench.audit.fidelity import check_fidelity
from monitorbench.audit.model import CHECKS, TaskAudit
from monitorbench.audit.mutation import check_mutation
from monitorbench.errors import InputError
from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.progress import Progress
from monitorbench.suites.format import Suite, load_suite
from monitorbench.suites.reference import get_reference

MIN_REPEATS = 2


@dataclass
class SuiteAudit:
    """The audit of one suite: per-task results and the totals reports and MLflow need."""

    name: str
    root: Path
    suite_hash: str
    repeats: int
    tasks: list[TaskAudit] = field(default_factory=list)
    seconds: float = 0.0

    def failed(self) -> list[TaskAudit]:
        return [t for t in self.tasks if not t.passed]

    def metrics(self) -> dict[str, float]:
        """Flat numbers: task counts, passes per check, mutation configurations, exclusions."""
        n = len(self.tasks)
        out: dict[str, float] = {"tasks": n, "tasks_passed": n - len(self.failed()),
                                 "tasks_excluded": len(self.failed()),
                                 "cases": sum(t.checks["C1"].details.get("cases", 0)
                                              for t in self.tasks),
                                 "seconds": round(self.seconds, 3)}
        for k in CHECKS:
            out[f"{k}_passed"] = sum(t.checks[k].passed for t in self.tasks if k in t.checks)
        out["mutation_configurations"] = sum(
            t.checks["C6"].details.get("configurations", 0) for t in self.tasks if "C6" in t.checks)
        out["mutation_undetected"] = sum(len(t.checks["C6"].details.get("missed", []))
                                         for t in self.tasks if "C6" in t.checks)
        for code, count in Counter(r["code"] for t in self.failed() for r in t.reasons()).items():
            out[f"excluded_reason_{code}"] = count
        return out

    def to_json(self) -> dict[str, Any]:
        return {"suite": self.name, "root": str(self.root), "suite_hash": self.suite_hash,
                "repeats": self.repeats, "metrics": self.metrics(),
                "tasks": [t.to_json() for t in self.tasks]}


def _suite_hash_problem(suite: Suite) -> str | None:
    expect = sha256_text(canonical_json(sorted(suite.manifest["files"].items())))
    if expect != suite.manifest["suite_hash"]:
        return "manifest.json suite_hash does not match its own file list (edited by hand)"
    return None


def audit_task(suite: Suite, task_id: str, repeats: int) -> TaskAudit:
    """All eight checks and the defect hunt for one task."""
    t0 = time.perf_counter()
    task = suite.tasks[task_id]
    reference = suite.references[task_id]
    cases = suite.cases[task_id]
    result = TaskAudit(task_id, task.source, task.task_type)
    try:
        verifier = get_reference(reference.verifier_id)
    except KeyError as e:
        raise InputError(suite.root / "hidden" / task_id / "reference.json", "verifier_id",
                         str(e), "install the source's extra or register the reference") from None
    runs = checks.run_reference(verifier, task, reference, cases, repeats)
    result.decisions = checks.decision_records(task, reference, verifier, cases, runs)
    result.checks["C1"] = checks.check_replay(cases, runs[0])
    result.checks["C1"].details["cases"] = len(cases)
    result.checks["C2"] = checks.check_repeatability(cases, runs)
    c3 = checks.check_provenance(suite, task, reference, verifier)
    problem = _suite_hash_problem(suite)
    if problem:
        c3.passed, c3.evidence = False, f"{problem}; {c3.evidence}"
    result.checks["C3"] = c3
    result.checks["C4"] = checks.check_consistency(task, cases)
    result.checks["C5"] = checks.check_baselines(task, cases)
    result.checks["C6"] = check_mutation(task, reference, cases, runs[0])
    result.checks["C7"] = check_fidelity(task, reference, cases)
    result.checks["C8"] = check_environment_fidelity(
        task, Path(suite.root) / "public" / task_id, cases,
        acceptance=reference.data.get("acceptance"))
    result.defects = defects.hunt(task, reference, verifier, cases)
    result.seconds = time.perf_counter() - t0
    return result


def audit_suite(root: Path | str, *, repeats: int = MIN_REPEATS,
                task_ids: Sequence[str] | None = None, progress: bool = False) -> SuiteAudit:
    """Audit the suite at ``root`` (every task, or ``task_ids``); reruns are at least two."""
    t0 = time.perf_counter()
    suite = load_suite(root, verify_hashes=False)
    repeats = max(MIN_REPEATS, int(repeats))
    ids = list(suite.tasks) if task_ids is None else list(task_ids)
    unknown = [t for t in ids if t not in suite.tasks]
    if unknown:
        raise InputError(Path(root) / "manifest.json", "tasks", f"unknown task ids {unknown[:5]}",
                         "pass task ids listed in the suite's manifest")
    out = SuiteAudit(suite.name, Path(root), suite.suite_hash, repeats)
    bar = Progress(len(ids), f"audit {suite.name}", unit="tasks") if progress else None
    for task_id in ids:
        out.tasks.append(audit_task(suite, task_id, repeats))
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()
    out.seconds = time.perf_counter() - t0
    return out
