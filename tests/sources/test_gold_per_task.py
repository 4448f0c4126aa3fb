"""Every task of every source keeps its gold case: the writer leaves out, and says so, any task
whose gold did not survive its build; the loader refuses a suite with a gold-less task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitorbench.errors import InputError
from monitorbench.sources.bfcl.build import task_and_reference
from monitorbench.sources.bfcl.cases import candidate
from monitorbench.sources.bfcl.reference import BfclAstReference
from monitorbench.sources.bfcl.source import gold_calls, load_category
from monitorbench.sources.code.build import _unusable
from monitorbench.suites.format import Case, load_suite, write_suite


def _task_with_cases(bfcl_id: str, with_gold: bool):
    """A real BFCL task and cases graded by its real reference; the gold case only on request."""
    entry = next(e for e in load_category("simple_python") if e.bfcl_id == bfcl_id)
    ref = BfclAstReference()
    task, reference = task_and_reference(entry, ref.version)
    gold = gold_calls(entry)
    assert not isinstance(gold, str)
    tid = task.task_id
    cases = [Case(f"{tid}.c01", tid, "valid_variant", "raw_json", "PASS",
                  {"raw": json.dumps(gold), "calls": gold}),
             Case(f"{tid}.c02", tid, "ordinary_error", "initial_state", "FAIL",
                  {"raw": "", "calls": []})]
    if with_gold:
        cases.insert(0, Case(f"{tid}.c00", tid, "gold", "gold", "PASS", candidate(gold)))
    for c in cases:  # the labels are the real reference's, so only the gold rule is at stake
        assert ref.decide(task, reference, c.candidate) == c.label, c.case_id
    return task, reference, cases


def test_a_task_without_gold_is_left_out_and_reported(tmp_path: Path) -> None:
    kept_task, kept_ref, kept_cases = _task_with_cases("simple_python_0", with_gold=True)
    lost_task, lost_ref, lost_cases = _task_with_cases("simple_python_1", with_gold=False)
    write_suite(tmp_path, name="bfcl", tasks=[kept_task, lost_task],
                cases={kept_task.task_id: kept_cases, lost_task.task_id: lost_cases},
                references={kept_task.task_id: kept_ref, lost_task.task_id: lost_ref},
                meta={}, build_report={"tasks": 2})
    suite = load_suite(tmp_path)
    assert list(suite.tasks) == [kept_task.task_id]
    assert not (tmp_path / "hidden" / lost_task.task_id).exists()
    assert not (tmp_path / "public" / lost_task.task_id).exists()
    [entry] = suite.build_report["tasks_without_gold"]
    assert entry["task_id"] == lost_task.task_id
    assert "gold" in entry["reason"]
    assert suite.build_report["tasks"] == 2  # the builder's own count is kept as it was


def test_a_suite_whose_task_lost_its_gold_does_not_load(tmp_path: Path) -> None:
    task, ref, cases = _task_with_cases("simple_python_0", with_gold=True)
    write_suite(tmp_path, name="bfcl", tasks=[task], cases={task.task_id: cases},
                references={task.task_id: ref}, meta={}, build_report={})
    assert "tasks_without_gold" not in load_suite(tmp_path).build_report
    path = tmp_path / "hidden" / task.task_id / "cases.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(line for line in lines if '"group":"gold"' not in line) + "\n")
    with pytest.raises(InputError) as err:
        load_suite(tmp_path, verify_hashes=False)  # past provenance: the gold rule itself
    assert err.value.field == "group" and "no gold case" in str(err.value)


def test_code_tasks_whose_gold_patch_was_rejected_are_dropped_with_the_reason() -> None:
    case = {"group": "valid_variant", "label": "PASS"}
    fail = {"group": "ordinary_error", "label": "FAIL"}
    assert _unusable([case, fail]) == "the grader rejected the gold patch"
    assert _unusable([{"group": "gold", "label": "PASS"}, fail]) is None
    assert _unusable([fail]) == "only ['FAIL'] cases left"
