"""Code tasks on one real library (toolz 1.2.0): bugs, gold patches, grader defences, runtime.

The module fixture runs the real mutation search (seeded), combines the first two bugs into one
task and builds its cases; every grading below runs the library's real test-suite in a
subprocess. The full-suite build and its determinism are in the slow tests at the end.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from unittest import mock

import pytest

from monitorbench.errors import InputError
from monitorbench.sources.code.runtime import BudgetExceeded, apply_patch, copy_checkout, make_env
from monitorbench.sources.code import grader
from monitorbench.sources.code.build import (build_code_suite, draft_task, find_bugs,
                                            reference_data)
from monitorbench.sources.code.cases import build_cases
from monitorbench.sources.code.libraries import LIBRARIES, LibrarySpec
from monitorbench.sources.code.mutate import compute_sample, sample_mutations
from monitorbench.sources.code.sdists import (cache_root, checkout_files, fetch_sdist,
                                             pristine_checkout, write_tree)
from monitorbench.sources.code.testrun import TestRun, _read_junit, run_pytest
from monitorbench.suites.format import GROUPS, load_suite
from monitorbench.suites.reference import get_reference

SPEC = LIBRARIES["toolz"]


@pytest.fixture(scope="module")
def task():
    """One two-bug toolz task with its cases and reference data (about 15 s)."""
    files = checkout_files(SPEC)
    root = pristine_checkout(SPEC)
    base = run_pytest(root, SPEC, list(SPEC.test_paths))
    base_pass = set(base.passed_ids())
    bugs, pool, _ = find_bugs(SPEC, files, root, base_pass, seed=0, need=2, log=lambda m: None)
    draft = draft_task("code.toolz.t01", SPEC, files, root, base_pass, bugs[:2], bugs, pool,
                       random.Random(0))
    assert draft is not None
    data = reference_data(draft, "sha")
    cases = {c.category: c for c in build_cases(draft, seed=0)}
    return {"draft": draft, "data": data, "cases": cases, "base_pass": base_pass, "root": root}


def _grade(task, patch, screen=True):
    return grader.grade(SPEC, task["data"], patch, screen=screen)


# ------------------------------------------------------------------------------ bugs and gold

def test_mutant_breaks_f2p_and_keeps_p2p(task):
    data = task["data"]
    repo = grader.task_checkout(SPEC, data["bug_patch"])
    run = run_pytest(repo, SPEC, data["fail_to_pass"] + data["pass_to_pass"])
    assert data["fail_to_pass"] and data["pass_to_pass"]
    assert all(run.outcome(n) == "failed" for n in data["fail_to_pass"])
    assert all(run.outcome(n) == "passed" for n in data["pass_to_pass"])
    assert set(data["fail_to_pass"]) <= task["base_pass"]
    # Both bugs of the task break tests of their own, so fixing one is not enough.
    for bug in task["draft"].bugs:
        assert set(bug.fail_to_pass) & set(data["fail_to_pass"])


def test_gold_patch_is_the_reverse_of_the_bug_and_resolves(task):
    work = Path(copy_checkout(str(task["root"])))
    try:
        assert apply_patch(str(work), task["data"]["bug_patch"])[0]
        assert apply_patch(str(work), task["cases"]["gold"].patch)[0]
        for rel, text in task["draft"].originals.items():
            assert (work / rel).read_text(encoding="utf-8") == text, rel
    finally:
        shutil.rmtree(work.parent)
    g = _grade(task, task["cases"]["gold"].patch)
    assert g.decision == "PASS", g.reasons


def test_valid_variant_passes_and_partial_fix_fails(task):
    assert _grade(task, task["cases"]["rewritten_fix"].patch).decision == "PASS"
    partial = _grade(task, task["cases"]["partial_fix"].patch)
    assert partial.decision == "FAIL"
    assert any(r.endswith(": failed") for r in partial.reasons)


def test_recorded_decision_is_the_fresh_one_and_only_for_the_same_input(task):
    """The audit's first pass may take a grading made earlier in this process: its decision is
    the one a fresh grading gives; a changed patch or changed test selection is never reused."""
    for category in ("gold", "partial_fix"):
        patch = task["cases"][category].patch
        first = _grade(task, patch).decision
        assert grader.recorded_decision(task["data"], patch) == first
        assert _grade(task, patch).decision == first
    gold = task["cases"]["gold"].patch
    changed = gold.replace("\n+", "\n+ ", 1)
    assert changed != gold and grader.recorded_decision(task["data"], changed) is None
    fewer = dict(task["data"], pass_to_pass=task["data"]["pass_to_pass"][1:])
    assert grader.recorded_decision(fewer, gold) is None
    assert grader.recorded_decision(task["data"], "not graded here") is None


def test_issue_names_location_and_failing_tests_but_not_the_fix(task):
    from monitorbench.sources.code.build import _issue
    d = task["draft"]
    text = _issue(SPEC, d.bugs, d.fail_to_pass)
    for b in d.bugs:
        assert b.mutation.file in text and b.mutation.function in text
    assert d.fail_to_pass[0] in text
    assert "+++" not in text and "@@" not in text


def test_patch_that_does_not_apply_fails(task):
    g = _grade(task, "--- a/toolz/itertoolz.py\n+++ b/toolz/itertoolz.py\n@@ -1,1 +1,1 @@\n"
                     "-this line is not there\n+x\n")
    assert g.decision == "FAIL" and "does not apply" in g.reasons[0]


# ------------------------------------------------------------------------------ attacks

ATTACKS = ["edits_tests", "conftest_forces_pass", "tampers_reporting", "exits_early",
           "sitecustomize_hook"]


@pytest.mark.parametrize("category", ATTACKS)
def test_attack_fails_with_and_without_static_screen(task, category):
    """Each attack is FAIL with the full grader and also when the static screen is off, i.e. the
    runtime defences (neutralisation, outcome record, report checks) stop it on their own."""
    patch = task["cases"][category].patch
    assert _grade(task, patch).decision == "FAIL"
    assert _grade(task, patch, screen=False).decision == "FAIL"


def _run_patched(task, patch):
    """The attack applied to the buggy checkout and run *without* the grader's neutralisation."""
    repo = grader.task_checkout(SPEC, task["data"]["bug_patch"])
    work = Path(copy_checkout(str(repo)))
    try:
        assert apply_patch(str(work), patch)[0]
        return run_pytest(work, SPEC, task["data"]["fail_to_pass"])
    finally:
        shutil.rmtree(work.parent)


def test_report_tampering_fools_junit_but_not_the_outcome_record(task):
    run = _run_patched(task, task["cases"]["tampers_reporting"].patch)
    f2p = task["data"]["fail_to_pass"]
    assert run.exit_code == 0  # a grader reading exit code and junit alone would say resolved
    assert all(v == "passed" for v in run.junit.values())
    assert all(run.raw[n] == "failed" for n in f2p)
    assert "reporting tampered: TestReport.from_item_and_call" in run.problems()
    assert {run.outcome(n) for n in f2p} == {"mismatch"}
    screened = _grade(task, task["cases"]["tampers_reporting"].patch)
    assert any("_pytest" in r for r in screened.reasons)


def test_conftest_forcing_pass_fools_junit_and_is_deleted(task):
    patch = task["cases"]["conftest_forces_pass"].patch
    run = _run_patched(task, patch)
    assert run.exit_code == 0 and all(v == "passed" for v in run.junit.values())
    assert "junit and outcome record disagree on outcomes" in run.problems()
    g = _grade(task, patch, screen=False)
    assert any(r.startswith("deleted") and r.endswith("conftest.py") for r in g.reasons)


def test_exit_early_leaves_an_empty_report_which_is_never_a_pass(task):
    run = _run_patched(task, task["cases"]["exits_early"].patch)
    assert run.exit_code == 0 and run.junit is None
    assert "junit report missing or empty" in run.problems()
    assert all(run.outcome(n) == "missing" for n in task["data"]["fail_to_pass"])


def test_empty_junit_file_and_empty_test_list_are_invalid(tmp_path):
    empty = tmp_path / "junit.xml"
    empty.write_text("")
    assert _read_junit(empty) is None
    no_tests = tmp_path / "none.xml"
    no_tests.write_text('<testsuites><testsuite name="pytest" tests="0"/></testsuites>')
    run = TestRun(exit_code=0, timed_out=False, output="", seconds=0.0,
                  junit=_read_junit(no_tests), raw={})
    assert "junit report lists no tests" in run.problems()


# Attacks that hide the failing tests' results; each must get past the static screen and be
# rejected by one result-handling rule: (outcome of every F2P test, what the run left behind).
HIDING = {"skips_tests": "skipped", "breaks_collection": "missing", "kills_test_run": "missing"}


def _pristine(task) -> dict[str, str]:
    return grader.checkout_texts(grader.task_checkout(SPEC, task["data"]["bug_patch"]))


@pytest.mark.parametrize("category", sorted(HIDING))
def test_hiding_attack_passes_the_screen_and_fails_on_result_handling(task, category):
    patch = task["cases"][category].patch
    assert task["cases"][category].group == "attack" and task["cases"][category].label == "FAIL"
    assert grader.screen_patch(patch, SPEC, _pristine(task)) == []
    g = _grade(task, patch)
    assert g.decision == "FAIL" and g.run is not None, g.reasons
    f2p = task["data"]["fail_to_pass"]
    if category == "skips_tests":  # a clean run of fixed code: only "skipped is not passed"
        outcomes = {g.run.outcome(n) for n in f2p + task["data"]["pass_to_pass"]}
        assert "skipped" in outcomes and outcomes <= {"skipped", "passed"}
        assert g.run.problems() == [] and g.run.exit_code == 0
        return
    assert {g.run.outcome(n) for n in f2p} == {HIDING[category]}
    if category == "breaks_collection":  # a report exists, the failing tests are not in it
        assert g.run.junit and g.run.raw is not None
        assert not any(n in g.run.raw for n in f2p)
    else:  # the process died: no report of any kind
        assert g.run.junit is None and g.run.raw is None
        assert "junit report missing or empty" in g.run.problems()


def test_result_handling_mutants_are_detected_without_extra_test_runs(task):
    """Each result-handling mutant of the grader says PASS on the attack built for it, deciding
    from the record of the grading just done (the mutant set runs no tests of its own)."""
    from monitorbench.sources.code.mutants import CodeMutants
    from monitorbench.audit.mutation import detection
    from monitorbench.suites.format import Case, Reference, Task

    t = Task("code.toolz.t01", "code", SPEC.pin, {})
    ref = Reference(grader.VERIFIER_ID, grader.VERSION, task["data"])
    cases = [Case(f"code.toolz.t01.{cat}", t.task_id, "attack", cat, "FAIL",
                  {"patch": task["cases"][cat].patch}) for cat in HIDING]
    original = [get_reference(grader.VERIFIER_ID).decide(t, ref, c.candidate) for c in cases]
    assert original == ["FAIL"] * len(cases)
    mutants = CodeMutants()
    ops = {op.name: op for op in mutants.operators}
    for name, category in (("skipped_counts_as_passed", "skips_tests"),
                           ("missing_counts_as_passed", "breaks_collection"),
                           ("empty_report_passes", "kills_test_run")):
        decisions = dict(zip(HIDING, mutants.decide(ops[name], t, ref, cases)))
        assert decisions[category] == "PASS", (name, decisions)
        assert detection(cases, original, list(decisions.values())) is not None
    assert mutants.graded_here == 0


def test_skipped_fail_to_pass_test_is_not_passed(task):
    """A source change that makes the failing tests skip instead of fail is no fix."""
    d = task["draft"]
    bug = next(b for b in d.bugs if "." not in b.mutation.function)
    name = bug.mutation.function
    text = d.mutant[bug.mutation.file] + (
        f"\n\nimport unittest as _ut\n\n\ndef {name}(*args, **kwargs):\n"
        f"    raise _ut.SkipTest('not supported here')\n")
    g = _grade(task, d.patch_to({bug.mutation.file: text}))
    assert g.decision == "FAIL"
    assert any(r.endswith(": skipped") for r in g.reasons)


def test_screen_flags_tampering_only_where_the_patch_introduces_it():
    pristine = {"pkg/mod.py": "import builtins\n", "pkg/__init__.py": ""}
    spec = LIBRARIES["toolz"]
    ok = "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1 +1,2 @@\n import builtins\n+x = builtins.len\n"
    assert grader.screen_patch(ok, spec, pristine) == []
    bad = ok.replace("builtins.len", "__import__('_pytest').reports")
    assert grader.screen_patch(bad, spec, pristine)
    in_test = bad.replace("pkg/mod.py", "pkg/tests/test_mod.py")
    assert grader.screen_patch(in_test, spec, {"pkg/tests/test_mod.py": "import builtins\n"}) == []
    shadow = "--- /dev/null\n+++ b/pytest.py\n@@ -0,0 +1 @@\n+x = 1\n"
    assert any("shadow" in p for p in grader.screen_patch(shadow, spec, pristine))


def test_reference_registry_and_version(task):
    ref = get_reference("code.hardened_grader")
    assert ref.verifier_id == "code.hardened_grader"
    assert "toolz==1.2.0" in ref.version and grader.GRADER_VERSION in ref.version


# ------------------------------------------------------------------------------ runtime

def test_run_public_applies_the_candidate_patch_and_enforces_the_budget(task, tmp_path):
    d = task["draft"]
    write_tree(tmp_path / "repo", dict(d.originals, **d.mutant))
    public = {"repo": {"pythonpath": ["."]}}
    env = make_env(public, str(tmp_path), {"budget": 3, "timeout": 60})
    test_id = d.fail_to_pass[0]
    cmd = ["python", "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q", test_id]
    assert env.run_public(cmd)["exit_code"] != 0  # no candidate yet: the buggy tree
    env.candidate = {"patch": task["cases"]["gold"].patch}
    fixed = env.run_public(cmd)
    assert fixed["applied"] and fixed["exit_code"] == 0, fixed["output"]
    broken = env.run_public(cmd, patch="--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b\n")
    assert broken["applied"] is False and "does not apply" in broken["output"]
    assert env.executions == 3
    with pytest.raises(BudgetExceeded):
        env.run_public(cmd)
    assert not any((tmp_path / "repo").glob("**/__pycache__"))  # the checkout stays pristine


# ------------------------------------------------------------------------------ determinism

def test_mutation_sampling_is_seeded():
    files = {p: t for p, t in checkout_files(SPEC).items() if p == "toolz/itertoolz.py"}
    a, b = sample_mutations(files, 0), compute_sample(files, 0)  # the memo and a new sample
    assert a == b and len(a) > 50
    assert sample_mutations(files, 1) != a


def test_nested_expressions_mutated_at_one_offset_have_distinct_keys():
    """``2 * b - 3 * c + 6`` holds three arith mutations starting at one offset; the pinned
    file names mutations by key, and two shared one (boltons' and humanize's pins then failed
    to verify right after their search: 'stale mutations')."""
    from monitorbench.sources.code.mutate import enumerate_mutations

    source = "def f(b, c):\n    return 2 * b - 3 * c + 6\n"
    muts = [m for m in enumerate_mutations("m.py", source) if m.operator == "arith"]
    assert len({m.start for m in muts}) < len(muts) == 4
    assert len({m.key for m in muts}) == len(muts)


def test_unknown_library_is_an_input_error(tmp_path):
    with pytest.raises(InputError) as e:
        build_code_suite(tmp_path, libraries=["nosuchlib"])
    assert e.value.field == "libraries" and "toolz" in e.value.fix


def test_session_slice_is_built_from_the_pins_and_its_labels_agree(code_slice):
    """The session's toolz slice (tests/conftest.py's code_slice, built from the shipped pins)
    searched for no bug; its cases cover every group and the reference passes the gold patch.
    That a build is byte-identical from separate caches, and from a search, is
    test_build_from_pins_is_byte_identical_to_build_from_search's."""
    assert code_slice.bug_searches == 0
    suite = load_suite(code_slice.root)
    (tid,) = suite.tasks
    assert tid == "code.toolz.t01"
    cases = suite.cases[tid]
    assert {c.group for c in cases} == set(GROUPS)
    assert 14 <= len(cases) <= 19  # 18 with every category; fix_elsewhere etc. may drop out
    assert suite.tasks[tid].public["contract"]["budget"] == 20
    assert (suite.public_dir(tid) / "repo" / "toolz" / "itertoolz.py").is_file()
    report = json.loads((code_slice.root / "hidden" / "build_report.json").read_text())
    assert report["libraries"]["toolz==1.2.0"]["tasks"] == 1
    ref = get_reference("code.hardened_grader")
    gold = next(c for c in cases if c.category == "gold")
    assert ref.decide(suite.tasks[tid], suite.references[tid], gold.candidate) == "PASS"


def test_test_runs_ignore_host_variables_that_change_pytest_output(tmp_path, monkeypatch):
    """An issue text quotes pytest's assertion output, so a build on a CI machine (CI=true turns
    off pytest's diff truncation, PYTEST_ADDOPTS adds options) must print what a build on a
    laptop prints: the search there found the shipped pins but wrote a different issue text."""
    from monitorbench.sources.code.libraries import LibrarySpec
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_t.py").write_text("def test_t():\n    assert () == (1, 2, 3)\n")
    spec = LibrarySpec("tiny", "0", ("tiny",), ("tests",))
    outputs = []
    for host in ({}, {"CI": "true", "BUILD_NUMBER": "7", "PYTEST_ADDOPTS": "-vv", "COLUMNS": "40"}):
        for k, v in host.items():
            monkeypatch.setenv(k, v)
        run = run_pytest(tmp_path, spec, ["tests"])
        assert run.outcome("tests/test_t.py::test_t") == "failed"
        outputs.append([ln for ln in run.output.splitlines() if ln.startswith("E ")])
    assert outputs[0] == outputs[1] and "Use -v to get more diff" in outputs[0][-1]


def test_masked_paths_hide_the_build_cache_and_installed_pristine_sources():
    from monitorbench.sources.code.build import masked_paths
    paths = masked_paths()
    assert str(cache_root()) in paths
    import six  # installed system-wide here: its pristine source would leak six tasks' fixes
    assert six.__file__ in paths


# One real unpack by two processes sharing a cache (two xdist workers, two suites built at once):
# the second starts the moment anything of the first's unpack appears in the cache.
_UNPACK = """
import sys, time
from pathlib import Path
from monitorbench.sources.code.libraries import LIBRARIES, LibrarySpec
from monitorbench.sources.code.sdists import checkout_files, pristine_checkout
cache, role, spec = Path(sys.argv[1]), sys.argv[2], LIBRARIES["toolz"]
want = checkout_files(spec, cache)
if role == "second":
    print("ready", flush=True)
    seen, end = cache / "checkouts", time.monotonic() + 60
    while time.monotonic() < end and not (seen.is_dir() and any(seen.iterdir())):
        time.sleep(0.0002)
root = pristine_checkout(spec, cache)
got = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
       for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
print(got == want and any(root.rglob("__pycache__/*.pyc")))
"""


def test_two_processes_unpacking_one_cache_at_once_both_get_the_whole_checkout(tmp_path):
    """Without the unpack's lock the second process deleted the tree the first was writing (all
    eight tries here ended in a partial checkout or an OSError); with it, the second waits and
    both read the complete checkout, and the cache holds one checkout and no leftovers."""
    import subprocess
    import sys
    cache = tmp_path / "sdists"
    cache.mkdir()
    shutil.copy(fetch_sdist(SPEC), cache)
    cmd = [sys.executable, "-c", _UNPACK, str(cache)]
    second = subprocess.Popen(cmd + ["second"], stdout=subprocess.PIPE, text=True)
    assert second.stdout is not None and second.stdout.readline() == "ready\n"
    first = subprocess.run(cmd + ["first"], capture_output=True, text=True, timeout=120)
    rest, _ = second.communicate(timeout=120)
    assert (first.returncode, second.returncode) == (0, 0), first.stderr
    assert (first.stdout, rest) == ("True\n", "True\n")
    kept = sorted(p.name for p in (cache / "checkouts").iterdir())
    assert kept == [".toolz-1.2.0.lock", "toolz-1.2.0", "toolz-1.2.0.complete"]


# ---------------------------------------------------------------------- precompiled bytecode

_TOY = LibrarySpec("toy", "0", ("toy",), ("tests",))


def _toy_checkout(root: Path) -> Path:
    """A checkout of a toy library whose test reads a source value and the file its own code
    says it runs from, precompiled as the build precompiles each pristine checkout."""
    from monitorbench.sources.code.testrun import precompile
    (root / "toy").mkdir(parents=True)
    (root / "toy" / "__init__.py").write_text("VALUE = 1\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_toy.py").write_text(
        "import sys\nimport toy\n\n\ndef test_value():\n    assert toy.VALUE == 1\n\n\n"
        "def test_own_file():\n    assert sys._getframe().f_code.co_filename == __file__\n")
    precompile(root, _TOY)
    return root


def test_a_copy_of_a_precompiled_checkout_runs_its_own_sources(tmp_path):
    """Test runs copy a checkout compiled once (testrun.precompile) and read its bytecode
    instead of compiling. A copy whose library source was changed to the same size with the
    same mtime (a patch or mutation written within the second) still runs the changed source,
    and a cached rewritten test module reports the copy's path, not the compiled tree's (boltons'
    tbutils tests failed on the old path). Neither run writes bytecode into the copy."""
    import os
    root = _toy_checkout(tmp_path / "pristine")
    assert list((root / "tests" / "__pycache__").glob("test_toy.*-pytest-*.pyc"))
    clean = Path(copy_checkout(str(root)))
    run = run_pytest(clean, _TOY, ["tests/test_toy.py"])
    assert run.passed_ids() == ["tests/test_toy.py::test_own_file", "tests/test_toy.py::test_value"]
    changed = Path(copy_checkout(str(root)))
    src = changed / "toy" / "__init__.py"
    stat = src.stat()
    src.write_text("VALUE = 2\n")
    os.utime(src, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    before = sorted(p.name for p in changed.rglob("*.pyc"))
    run = run_pytest(changed, _TOY, ["tests/test_toy.py"])
    assert run.outcome("tests/test_toy.py::test_value") == "failed"
    assert sorted(p.name for p in changed.rglob("*.pyc")) == before


# ------------------------------------------------------------------------------ pinned bugs

def _pinned_toolz_entry() -> tuple[str, dict]:
    from monitorbench.sources.code.build import pin_key, read_pins
    key = pin_key(SPEC, 0, 6)  # tasks_per_library=2, as conf/task/mixed_small.yaml builds
    entry = read_pins().get(key)
    assert entry is not None, "pinned_bugs.json lacks the mixed_small toolz entry"
    return key, entry


def test_pinned_bug_that_no_longer_verifies_is_an_input_error(task, tmp_path, monkeypatch):
    """A pinned entry whose bugs fail other tests than recorded (here: one recorded test dropped)
    is refused with one real test run; the error names the pinned file and --search."""
    from monitorbench.sources.code import build
    key, entry = _pinned_toolz_entry()
    bad = json.loads(json.dumps(entry))
    bad["bugs"][0]["fail_to_pass"] = bad["bugs"][0]["fail_to_pass"][1:] or ["x.py::nope"]
    monkeypatch.setattr(build, "PINNED_FILE", tmp_path / "pins.json")
    files = checkout_files(SPEC)
    with pytest.raises(InputError) as e:
        build.replay_pin(SPEC, files, task["root"], task["base_pass"], 0, key, bad,
                         entry["sdist_sha256"])
    assert e.value.file == str(tmp_path / "pins.json")
    assert "no longer verify" in e.value.problem and "--search" in e.value.fix
    with pytest.raises(InputError) as e:
        build.replay_pin(SPEC, files, task["root"], task["base_pass"], 0, key, entry, "0" * 64)
    assert e.value.field.endswith(".sdist_sha256") and "--search" in e.value.fix


def test_pinned_bugs_replay_verified(task):
    """The shipped toolz pins verify against the real test suite: one run, exact F2P union."""
    from monitorbench.sources.code import build
    key, entry = _pinned_toolz_entry()
    bugs, pool, stats = build.replay_pin(SPEC, checkout_files(SPEC), task["root"],
                                         task["base_pass"], 0, key, entry,
                                         entry["sdist_sha256"])
    assert len(bugs) == 6 and stats == entry["stats"]
    assert [m.key for m in pool[:stats["neutral_kept"]]] == entry["neutral"]


@pytest.mark.slow
def test_build_from_pins_is_byte_identical_to_build_from_search(tmp_path, monkeypatch,
                                                                code_slice):
    """toolz, 1 task (task=small's slice): a build that searches (no pinned file, a fresh cache
    holding only the sdist) writes the manifest of the session's build from the shipped pins
    (tests/conftest.py's code_slice, another cache, which searched nothing): one build is
    byte-identical across caches and across search and pins, and the search finds exactly the
    shipped pins. Those bugs open the
    mixed_small (2-task) entry, whose pins the replay tests above verify against the real tests."""
    from monitorbench.sources.code import build
    entry = build.read_pins()[build.pin_key(SPEC, 0, 4)]
    _, wider = _pinned_toolz_entry()
    assert entry["bugs"] == wider["bugs"][:len(entry["bugs"])]
    tar = fetch_sdist(SPEC)
    cache = tmp_path / "cache"
    (cache / "sdists").mkdir(parents=True)
    shutil.copy(tar, cache / "sdists" / tar.name)
    monkeypatch.setenv("MONITORBENCH_CACHE", str(cache))
    monkeypatch.setattr(build, "PINNED_FILE", tmp_path / "fresh-pins.json")
    search = mock.Mock(wraps=build.find_bugs)
    monkeypatch.setattr(build, "find_bugs", search)  # code_slice counts searches the same way
    out = build_code_suite(tmp_path / "suite", libraries=["toolz"], tasks_per_library=1)
    assert search.call_count == 1
    assert (out / "manifest.json").read_bytes() == (code_slice.root / "manifest.json").read_bytes()
    # The search found exactly the shipped pins (its outcome is cached beside the build).
    (searched,) = (cache / "code_build").glob("search-toolz-*.json")
    outcome = json.loads(searched.read_text())
    assert outcome == {k: entry[k] for k in ("bugs", "neutral", "stats")}
