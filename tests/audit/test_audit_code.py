"""V4V audit of a real one-task code slice (toolz), built through the registry as every suite is.

The build reuses the on-disk caches (sdist, bug search, graded cases) when present; the audit
itself always runs the library's tests: two grading runs per case (C1 and the C2 repeat) and the
two defect-hunt runs, and nothing for C6, whose mutants re-decide the reference's own records.
"""

from __future__ import annotations

import json

import pytest

from monitorbench.audit.exclusions import read_exclusions
from monitorbench.audit.model import CHECKS

# Mutant -> the cases that can expose it. A skipped or an absent report comes only from the
# attack built for it; missing tests also follow from an ordinary error that breaks an import.
RESULT_HANDLING = {"skipped_counts_as_passed": {"skips_tests"},
                   "missing_counts_as_passed": {"breaks_collection", "kills_test_run",
                                                "wrong_function", "near_miss", "breaks_p2p"},
                   "empty_report_passes": {"kills_test_run"}}


@pytest.fixture(scope="module")
def audited(code_slice):
    """The toolz one-bug slice, built and audited once per session (tests/conftest.py)."""
    report = json.loads((code_slice.root / "audit" / "report.json").read_text())
    return {"root": code_slice.root, "report": report, "c6_gradings": code_slice.c6_gradings}


@pytest.mark.slow
def test_code_slice_passes_all_six_checks(audited) -> None:
    (task,) = audited["report"]["tasks"]
    assert task["passed"], task["reasons"]
    assert set(task["checks"]) == set(CHECKS)
    assert all(c["passed"] for c in task["checks"].values())
    assert read_exclusions(audited["root"])["excluded"] == []


@pytest.mark.slow
def test_result_handling_mutants_are_caught_by_the_hiding_attacks(audited) -> None:
    (task,) = audited["report"]["tasks"]
    ops = task["checks"]["C6"]["details"]["operators"]
    assert len(ops) == 5 and task["checks"]["C6"]["details"]["missed"] == []
    for op, categories in RESULT_HANDLING.items():
        hit = ops[op]["detected_by"]
        assert hit["category"] in categories, (op, hit)
        assert (hit["original"], hit["mutant"]) == ("FAIL", "PASS")


@pytest.mark.slow
def test_mutation_check_runs_no_tests_of_its_own(audited) -> None:
    """C6 re-decides the records of the reference's runs; it never grades a case again."""
    assert audited["c6_gradings"] == 0
    (task,) = audited["report"]["tasks"]
    assert "2 runs" in task["checks"]["C2"]["evidence"]
