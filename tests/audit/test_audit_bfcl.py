"""V4V audit on the real BFCL suite: checks, exclusions, and the defects it must catch."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from monitorbench.audit.audit import audit_suite
from monitorbench.audit.exclusions import AUDIT_FILE, apply_exclusions, write_exclusions
from monitorbench.audit.model import CHECKS
from monitorbench.sources.bfcl.mutants import MUTANTS as BFCL_MUTANTS
from monitorbench.audit.report import write_report
from monitorbench.errors import InputError
from monitorbench.sources.bfcl.build import task_and_reference
from monitorbench.sources.bfcl.cases import candidate
from monitorbench.sources.bfcl.reference import BfclAstReference
from monitorbench.sources.bfcl.source import gold_calls, load_category
from monitorbench.suites.format import Case, Reference, load_suite, write_suite
from monitorbench.suites.reference import register_reference

SLICE = 16  # tasks audited in the default-suite tests (about 4 s)


@pytest.fixture(scope="module")
def bfcl_root(suites_dir: Path) -> Path:
    return suites_dir / "bfcl"


@pytest.fixture(scope="module")
def slice_ids(bfcl_root: Path) -> list[str]:
    ids = sorted(load_suite(bfcl_root).tasks)
    return ids[:: max(1, len(ids) // SLICE)][:SLICE]


@pytest.fixture(scope="module")
def sliced(bfcl_root: Path, slice_ids: list[str]):
    return audit_suite(bfcl_root, task_ids=slice_ids)


def _rewrite(src: Path, dst: Path, *, cases=None, references=None, tasks=None) -> Path:
    """A copy of a suite rewritten with write_suite (fresh manifest hashes)."""
    s = load_suite(src)
    keep = tasks or sorted(s.tasks)
    write_suite(dst, name=s.name, tasks=[s.tasks[t] for t in keep],
                cases={t: (cases or {}).get(t, s.cases[t]) for t in keep},
                references={t: (references or {}).get(t, s.references[t]) for t in keep},
                meta={k: v for k, v in s.manifest.items() if k not in ("tasks", "files")},
                build_report=s.build_report)
    return dst


def test_retained_tasks_pass_all_six_checks(sliced) -> None:
    assert len(sliced.tasks) == SLICE
    for t in sliced.tasks:
        for k in ("C1", "C2", "C3", "C4", "C5"):
            assert t.checks[k].passed, (t.task_id, k, t.checks[k].evidence)
        assert not t.defects, t.task_id
    retained = [t for t in sliced.tasks if t.passed]
    assert retained, "no task of the slice survived the audit"
    for t in retained:
        assert all(t.checks[k].passed for k in CHECKS)
        c6 = t.checks["C6"].details
        assert c6["configurations"] >= 7 and not c6["missed"]
        for op in c6["operators"].values():
            hit = op["detected_by"]
            assert {hit["original"], hit["mutant"]} == {"PASS", "FAIL"}
    for t in sliced.failed():
        assert t.reasons() and all(r["code"] and r["evidence"] for r in t.reasons())


def test_decision_records_link_case_hash_and_reference_version(sliced, bfcl_root) -> None:
    suite = load_suite(bfcl_root)
    t = sliced.tasks[0]
    cases = {c.case_id: c for c in suite.cases[t.task_id]}
    assert len(t.decisions) == 2 * len(cases)          # two reruns from the reset state
    version = BfclAstReference().version
    for d in t.decisions:
        case = cases[d["case_id"]]
        assert d["candidate_sha256"] == case.candidate_hash
        assert d["reference_version"] == version and d["decision"] == case.label


def test_parsed_only_collisions_are_set_aside_not_failed(sliced) -> None:
    noted = [t for t in sliced.tasks if t.checks["C4"].details["set_aside"].get("parsed")]
    assert noted, "raw_parsed_mismatch cases collide with gold under parsed-only access"
    assert all(t.checks["C4"].passed for t in noted)
    assert "set aside under access parsed" in noted[0].checks["C4"].evidence


def test_report_files(sliced, tmp_path: Path) -> None:
    paths = write_report(sliced, tmp_path)
    body = json.loads(paths["json"].read_text())
    assert [t["task_id"] for t in body["tasks"]] == [t.task_id for t in sliced.tasks]
    md = paths["md"].read_text()
    assert "| C1 replay |" in md and "## Excluded tasks" in md
    assert md.count("\n| bfcl.") >= SLICE
    lines = paths["decisions"].read_text().splitlines()
    assert len(lines) == sum(len(t.decisions) for t in sliced.tasks)


def test_exclusions_written_and_applied(bfcl_root: Path, tmp_path: Path) -> None:
    root = _rewrite(bfcl_root, tmp_path / "s", tasks=sorted(load_suite(bfcl_root).tasks)[:6])
    audit = audit_suite(root)
    path = write_exclusions(audit)
    body = json.loads(path.read_text())
    excluded = {e["task_id"] for e in body["excluded"]}
    assert excluded == {t.task_id for t in audit.failed()}
    shipped = apply_exclusions(load_suite(root))
    assert set(shipped.tasks) == {t.task_id for t in audit.tasks if t.passed}
    assert set(shipped.cases) == set(shipped.tasks)
    # An audit of other files is refused, not silently applied.
    body["suite_hash"] = "0" * 64
    path.write_text(json.dumps(body))
    with pytest.raises(InputError) as e:
        apply_exclusions(load_suite(root))
    assert e.value.field == "suite_hash" and AUDIT_FILE in e.value.file


def test_inconsistent_cases_are_caught(bfcl_root: Path, tmp_path: Path) -> None:
    suite = load_suite(bfcl_root)
    tid = sorted(suite.tasks)[0]
    gold = next(c for c in suite.cases[tid] if c.group == "gold")
    twin = Case(f"{tid}.c99", tid, "ordinary_error", "wrong_value", "FAIL",
                copy.deepcopy(dict(gold.candidate)))
    root = _rewrite(bfcl_root, tmp_path / "s", tasks=[tid],
                    cases={tid: [*suite.cases[tid], twin]})
    t = audit_suite(root).tasks[0]
    assert not t.checks["C4"].passed
    assert set(t.checks["C4"].details["colliding"]) == {gold.case_id, twin.case_id}
    assert not t.checks["C1"].passed and twin.case_id in t.checks["C1"].evidence
    assert not t.passed


class _IgnoresRequired(BfclAstReference):
    """A broken BFCL reference: the presence checks of required arguments are removed."""

    verifier_id = "test.bfcl_ignores_required"

    def decide(self, task, reference, candidate):
        op = next(o for o in BFCL_MUTANTS.operators if o.name == "ignore_missing_arguments")
        case = Case("x.c00", task.task_id, "gold", "gold", "PASS", candidate)
        return BFCL_MUTANTS.decide(op, task, reference, [case])[0]


def test_broken_reference_is_caught(bfcl_root: Path, tmp_path: Path) -> None:
    register_reference(_IgnoresRequired.verifier_id, _IgnoresRequired)
    suite = load_suite(bfcl_root)
    tids = [t for t in sorted(suite.tasks)
            if any(c.category == "missing_required" for c in suite.cases[t])][:3]
    refs = {t: Reference(_IgnoresRequired.verifier_id, suite.references[t].version,
                         suite.references[t].data) for t in tids}
    root = _rewrite(bfcl_root, tmp_path / "s", tasks=tids, references=refs)
    for t in audit_suite(root).tasks:
        assert not t.checks["C1"].passed
        wrong = t.checks["C1"].details["disagreements"]
        assert wrong and all(d["label"] == "FAIL" and d["decision"] == "PASS" for d in wrong)
        assert "missing_required" in t.checks["C1"].evidence
        assert not t.checks["C6"].passed  # no operator set is known for this reference


def test_tampered_file_fails_provenance_of_its_task_only(bfcl_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "s"
    shutil.copytree(bfcl_root, root)
    tids = sorted(load_suite(root).tasks)[:2]
    cases = root / "hidden" / tids[0] / "cases.jsonl"
    cases.write_text(cases.read_text().replace('"label":"FAIL"', '"label":"FAIL" ', 1))
    audit = audit_suite(root, task_ids=tids)
    assert not audit.tasks[0].checks["C3"].passed
    assert "cases.jsonl sha256 differs" in audit.tasks[0].checks["C3"].evidence
    assert audit.tasks[1].checks["C3"].passed


def test_required_argument_marked_omittable_is_found(tmp_path: Path) -> None:
    """The builder skips parallel_multiple_87 (reason D); the audit must find it on its own."""
    entry = next(e for e in load_category("parallel_multiple") if e.bfcl_id ==
                 "parallel_multiple_87")
    task, ref = task_and_reference(entry, BfclAstReference().version)
    gold = gold_calls(entry)
    assert not isinstance(gold, str)
    cases = [Case(f"{task.task_id}.c00", task.task_id, "gold", "gold", "PASS", candidate(gold)),
             Case(f"{task.task_id}.c01", task.task_id, "ordinary_error", "missing_call", "FAIL",
                  candidate(gold[1:]))]
    write_suite(tmp_path, name="bfcl", tasks=[task], cases={task.task_id: cases},
                references={task.task_id: ref}, meta={}, build_report={})
    t = audit_suite(tmp_path).tasks[0]
    assert [f.code for f in t.defects] == ["D"]
    assert "kinematics.distance.initial_velocity" in t.defects[0].evidence
    assert any(r["code"] == "D" for r in t.reasons())


def test_type_operator_is_detected_by_the_wrong_type_cases(bfcl_root: Path, tmp_path: Path,
                                                           sliced) -> None:
    """skip_type_check is caught by the suite's wrong_type case (an equal value of a type the
    schema forbids); without that case the audit reports the operator as undetected."""
    suite = load_suite(bfcl_root)
    t = next(t for t in sliced.tasks
             if (t.checks["C6"].details["operators"].get("skip_type_check") or {})
             .get("detected_by"))
    hit = t.checks["C6"].details["operators"]["skip_type_check"]["detected_by"]
    assert hit["category"] == "wrong_type"
    assert (hit["original"], hit["mutant"]) == ("FAIL", "PASS")
    stripped = [c for c in suite.cases[t.task_id] if c.category != "wrong_type"]
    root = _rewrite(bfcl_root, tmp_path / "s", tasks=[t.task_id], cases={t.task_id: stripped})
    again = audit_suite(root).tasks[0]
    assert not again.checks["C6"].passed
    assert "skip_type_check" in again.checks["C6"].details["missed"]


def test_initial_outcome_case_catches_a_reference_that_ignores_missing_calls(
        bfcl_root: Path, tmp_path: Path, sliced) -> None:
    """On a one-call task the initial-outcome case (no call at all) is what tells the
    ignore_missing_calls mutant apart from the reference; without it the audit misses it."""
    suite = load_suite(bfcl_root)
    t = next(t for t in sliced.tasks
             if len(suite.cases[t.task_id][0].candidate["calls"]) == 1)
    hit = t.checks["C6"].details["operators"]["ignore_missing_calls"]["detected_by"]
    assert hit["category"] == "initial_state"
    assert (hit["original"], hit["mutant"]) == ("FAIL", "PASS")
    stripped = [c for c in suite.cases[t.task_id] if c.category != "initial_state"]
    root = _rewrite(bfcl_root, tmp_path / "s", tasks=[t.task_id], cases={t.task_id: stripped})
    again = audit_suite(root).tasks[0]
    assert "ignore_missing_calls" in again.checks["C6"].details["missed"]
