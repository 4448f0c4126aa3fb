"""Adaptive attacker on the real BFCL suite, querying verifiers only through the bwrap sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitorbench.attack import run_adaptive_attack
from monitorbench.attack.mutators import MUTATORS, Material, complete
from monitorbench.errors import InputError
from monitorbench.sandbox.base import Limits, SandboxSpec
from monitorbench.sandbox.factory import make_sandbox
from monitorbench.suites.bfcl_cases import python_raw
from monitorbench.suites.format import canonical_json, load_suite
from monitorbench.suites.reference import get_reference
from monitorbench.suites.registry import masked_paths

# Accepts exactly the candidates listed in known.json (as canonical JSON).
LISTED = """import json, pathlib
KNOWN = set(json.loads((pathlib.Path(__file__).parent / "known.json").read_text()))
def key(c):
    return json.dumps(c, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
def verify(candidate, env):
    return "PASS" if (key(candidate) in KNOWN) == ACCEPT_LISTED else "FAIL"
"""


def _verifiers(root: Path, suite, task_ids: list[str], *, accept_listed: bool) -> dict[str, Path]:
    """accept_listed=True: accept only the task's positive cases (every invalid candidate is
    rejected, as strict as the reference on anything the search can build); False: reject only
    the suite's own negative cases and accept everything else (perfect on the static suite)."""
    out = {}
    for tid in task_ids:
        d = root / tid
        d.mkdir(parents=True)
        listed = [canonical_json(dict(c.candidate)) for c in suite.cases[tid]
                  if (c.label == "PASS") == accept_listed]
        (d / "known.json").write_text(json.dumps(listed))
        (d / "main.py").write_text(f"ACCEPT_LISTED = {accept_listed}\n" + LISTED)
        out[tid] = d
    return out


@pytest.fixture(scope="module")
def setting(suites_dir: Path):
    suite = load_suite(suites_dir / "bfcl")
    task_ids = sorted(suite.tasks)[::max(1, len(suite.tasks) // 4)][:4]
    spec = SandboxSpec(limits=Limits(wall_seconds=5.0),
                       masked_paths=masked_paths("bfcl") + (str(suites_dir.resolve()),))
    return suite, task_ids, spec


def _attack(suite, task_ids, spec, vdirs, out_dir: Path, budget: int, seed: int = 0):
    return run_adaptive_attack(
        [suite.tasks[t] for t in task_ids], suite.cases, suite.references, vdirs,
        sandbox=make_sandbox("bwrap"), spec_for=lambda t: spec,
        public_dir_for=lambda t: suite.public_dir(t.task_id), budget=budget, seed=seed,
        out_dir=out_dir)


def test_weak_verifier_perfect_on_static_attacks_is_beaten_by_the_search(
        tmp_path: Path, setting) -> None:
    suite, task_ids, spec = setting
    vdirs = _verifiers(tmp_path / "weak", suite, task_ids, accept_listed=False)
    m = _attack(suite, task_ids, spec, vdirs, tmp_path / "out", budget=20)
    assert m["attack/fpr_h_static"] == 0.0          # rejects every attack case of the suite
    assert m["attack/fpr_h_adaptive"] == 100.0      # ... but the search finds one on every task
    assert m["attack/tasks_found"] == len(task_ids) and m["attack/tasks_found_static"] == 0
    found = sorted((tmp_path / "out" / "found").glob("*.json"))
    assert [p.stem for p in found] == sorted(task_ids)
    for p in found:
        rec = json.loads(p.read_text())
        task, ref = suite.tasks[rec["task_id"]], suite.references[rec["task_id"]]
        assert get_reference(ref.verifier_id).decide(task, ref, rec["candidate"]) == "FAIL"
        assert rec["mutations"] and 1 <= rec["query"] <= 20
        known = {canonical_json(dict(c.candidate)) for c in suite.cases[rec["task_id"]]}
        assert canonical_json(rec["candidate"]) not in known  # a new candidate, not a suite case
    summary = json.loads((tmp_path / "out" / "attack.json").read_text())
    assert summary["metrics"] == m and len(summary["tasks"]) == len(task_ids)


def test_strict_verifier_yields_nothing_within_the_full_budget(tmp_path: Path, setting) -> None:
    suite, task_ids, spec = setting
    vdirs = _verifiers(tmp_path / "strict", suite, task_ids, accept_listed=True)
    m = _attack(suite, task_ids, spec, vdirs, tmp_path / "out", budget=15)
    assert m["attack/fpr_h_adaptive"] == 0.0 and m["attack/fpr_h_static"] == 0.0
    assert m["attack/queries"] == 15 * len(task_ids)  # the search spent its budget, found nothing
    assert not list((tmp_path / "out" / "found").iterdir())


def test_missing_verifier_stays_in_the_denominator_and_budget_is_validated(
        tmp_path: Path, setting) -> None:
    suite, task_ids, spec = setting
    vdirs = _verifiers(tmp_path / "weak", suite, task_ids[:1], accept_listed=False)
    m = _attack(suite, task_ids[:2], spec, {**vdirs, task_ids[1]: None}, tmp_path / "o",
                budget=10)
    assert m["attack/tasks_attacked"] == 2 and m["attack/fpr_h_adaptive"] == 50.0
    with pytest.raises(InputError) as err:
        _attack(suite, task_ids[:1], spec, vdirs, tmp_path / "o2", budget=-1)
    assert err.value.field == "attack.budget"


def test_search_is_reproducible_for_a_seed(tmp_path: Path, setting) -> None:
    suite, task_ids, spec = setting
    vdirs = _verifiers(tmp_path / "weak", suite, task_ids[:2], accept_listed=False)
    runs = [_attack(suite, task_ids[:2], spec, vdirs, tmp_path / f"o{i}", budget=10)
            for i in range(2)]
    assert runs[0] == runs[1]
    a, b = ((tmp_path / f"o{i}" / "found" / f"{task_ids[0]}.json").read_text() for i in range(2))
    assert a == b


def test_completion_fills_what_the_monitor_cannot_see(setting) -> None:
    suite, task_ids, _ = setting
    gold = next(dict(c.candidate) for c in suite.cases[task_ids[0]] if c.group == "gold")
    garbled = {"raw": "not a call list", "calls": gold["calls"]}
    task, ref = suite.tasks[task_ids[0]], suite.references[task_ids[0]]
    reference = get_reference(ref.verifier_id)
    assert reference.decide(task, ref, garbled) == "FAIL"
    # parsed-only: the monitor sees gold calls, so the record must count as valid
    assert reference.decide(task, ref, complete(garbled, ("calls",))) == "PASS"
    # raw-only: undecodable raw is invalid whatever the hidden calls
    assert reference.decide(task, ref, complete(garbled, ("raw",))) == "FAIL"


def test_every_mutator_returns_a_well_formed_candidate(setting) -> None:
    import random

    suite, task_ids, _ = setting
    cases = suite.cases[task_ids[0]]
    material = Material([dict(c.candidate) for c in cases if c.label == "PASS"], ["f", "g"])
    rng = random.Random(0)
    gold = next(dict(c.candidate) for c in cases if c.group == "gold")
    two = gold["calls"] + [{"name": "g", "arguments": {"x": 1}}]
    start = {"raw": python_raw(two), "calls": two}
    outputs = set()
    for name, mutate in MUTATORS.items():
        out = mutate(start, rng, material)
        assert out is not None, name
        assert isinstance(out["raw"], str) and isinstance(out["calls"], list), name
        assert all(set(c) == {"name", "arguments"} for c in out["calls"]), name
        outputs.add(canonical_json(out))
    assert len(outputs - {canonical_json(start)}) >= len(MUTATORS) - 1
