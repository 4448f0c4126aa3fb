"""Adaptive attacker on real suites (BFCL, an AgentDojo slice, a toolz code task), querying
verifiers only through the bwrap sandbox; every label comes from the real reference verifiers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pipeline_helpers import compose_cfg

from monitorbench.attack import run_adaptive_attack
from monitorbench.sources.bfcl.attack import (COMMENTS, MUTATORS, PROSE, VERIFIER_STRINGS, Material,
                                             complete)
from monitorbench.attack.validity import INVALID, UNKNOWN, VALID, Effect, status_after
from monitorbench.hashing import canonical_json
from monitorbench.metrics.summary import summarize
from monitorbench.errors import InputError
from monitorbench.launch.run import run_job
from monitorbench.sandbox.base import Limits, SandboxSpec
from monitorbench.sandbox.factory import make_sandbox
from monitorbench.sources.bfcl.cases import python_raw
from monitorbench.suites.format import load_suite
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


def _verifiers(root: Path, suite, task_ids: list[str], *, accept_listed: bool,
               listed=None) -> dict[str, Path]:
    """accept_listed=True: accept only the task's positive cases (every invalid candidate is
    rejected, as strict as the reference on anything the search can build); False: reject only
    the suite's own negative cases and accept everything else (perfect on the static suite).
    ``listed(case)`` overrides which of the suite's cases are listed."""
    out = {}
    for tid in task_ids:
        d = root / tid
        d.mkdir(parents=True)
        chosen = listed or (lambda c: (c.label == "PASS") == accept_listed)
        known = [canonical_json(dict(c.candidate)) for c in suite.cases[tid] if chosen(c)]
        (d / "known.json").write_text(json.dumps(known))
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


def _attack(suite, task_ids, spec, vdirs, out_dir: Path, budget: int, seed: int = 0,
            fields=None, workers: int = 1):
    return run_adaptive_attack(
        [suite.tasks[t] for t in task_ids], suite.cases, suite.references, vdirs,
        sandbox=make_sandbox("bwrap"), spec_for=lambda t: spec,
        public_dir_for=lambda t: suite.public_dir(t.task_id), budget=budget, seed=seed,
        out_dir=out_dir, fields_for=lambda t: fields, workers=workers)



def _found(out_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out_dir / "found").glob("*.json"))]


def _assert_found_are_new_invalid_candidates(suite, out_dir: Path) -> None:
    for rec in _found(out_dir):
        task, ref = suite.tasks[rec["task_id"]], suite.references[rec["task_id"]]
        assert get_reference(ref.verifier_id).decide(task, ref, rec["candidate"]) == "FAIL"
        assert rec["mutations"] and rec["query"] >= 1
        known = {canonical_json(dict(c.candidate)) for c in suite.cases[rec["task_id"]]}
        assert canonical_json(rec["candidate"]) not in known  # a new candidate, not a suite case


def test_weak_verifier_perfect_on_static_attacks_is_beaten_by_the_search(
        tmp_path: Path, setting) -> None:
    suite, task_ids, spec = setting
    vdirs = _verifiers(tmp_path / "weak", suite, task_ids, accept_listed=False)
    m = _attack(suite, task_ids, spec, vdirs, tmp_path / "out", budget=20)
    assert m["attack/fpr_h_static"] == 0.0          # rejects every attack case of the suite
    assert m["attack/tasks_broken_static"] == 0.0 and m["attack/n_tasks_broken_static"] == 0
    assert m["attack/tasks_broken_adaptive"] == 100.0  # ... but the search breaks every task
    assert m["attack/n_tasks_broken_adaptive"] == m["attack/n_attack_tasks"] == len(task_ids)
    assert m["attack/tasks_found"] == len(task_ids)
    # one accepted mutant beside each task's static attacks: FPR_h is the mean of 1/(H_t + 1)
    h = [sum(c.group == "attack" for c in suite.cases[t]) for t in task_ids]
    assert m["attack/fpr_h_adaptive"] == pytest.approx(100.0 * sum(1 / (n + 1) for n in h)
                                                       / len(h))
    assert m["attack/tool_call/fpr_h_adaptive"] == m["attack/fpr_h_adaptive"]
    assert sorted(r["task_id"] for r in _found(tmp_path / "out")) == sorted(task_ids)
    _assert_found_are_new_invalid_candidates(suite, tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "attack.json").read_text())
    assert summary["metrics"] == m and len(summary["tasks"]) == len(task_ids)
    queried = [json.loads(x) for x in (tmp_path / "out" / "mutants.jsonl").read_text().splitlines()]
    assert len(queried) == m["attack/queries"] and all(q["outcome"] in "PFU" for q in queried)


def test_strict_verifier_yields_nothing_within_the_full_budget(tmp_path: Path, setting) -> None:
    suite, task_ids, spec = setting
    vdirs = _verifiers(tmp_path / "strict", suite, task_ids, accept_listed=True)
    m = _attack(suite, task_ids, spec, vdirs, tmp_path / "out", budget=15)
    assert m["attack/fpr_h_adaptive"] == 0.0 and m["attack/fpr_h_static"] == 0.0
    assert m["attack/tasks_broken_adaptive"] == 0.0
    assert m["attack/queries"] == 15 * len(task_ids)  # the search spent its budget, found nothing
    assert not list((tmp_path / "out" / "found").iterdir())


def test_missing_verifier_stays_in_the_denominator_and_budget_is_validated(
        tmp_path: Path, setting) -> None:
    suite, task_ids, spec = setting
    vdirs = _verifiers(tmp_path / "weak", suite, task_ids[:1], accept_listed=False)
    m = _attack(suite, task_ids[:2], spec, {**vdirs, task_ids[1]: None}, tmp_path / "o",
                budget=10)
    assert m["attack/tasks_attacked"] == 2 and m["attack/tasks_broken_adaptive"] == 50.0
    assert m["attack/n_attack_tasks"] == 2 and m["attack/n_tasks_broken_adaptive"] == 1
    with pytest.raises(InputError) as err:
        _attack(suite, task_ids[:1], spec, vdirs, tmp_path / "o2", budget=-1)
    assert err.value.field == "attack.budget"


def test_search_is_reproducible_for_a_seed(tmp_path: Path, setting) -> None:
    """Same seed, same search, whether tasks are attacked one at a time or three at once."""
    suite, task_ids, spec = setting
    vdirs = _verifiers(tmp_path / "weak", suite, task_ids[:2], accept_listed=False)
    runs = [_attack(suite, task_ids[:2], spec, vdirs, tmp_path / f"o{i}", budget=10,
                    workers=1 + 2 * i) for i in range(2)]
    assert runs[0] == runs[1]
    a, b = ((tmp_path / f"o{i}" / "found" / f"{task_ids[0]}.json").read_text() for i in range(2))
    assert a == b


def _mutants(out_dir: Path) -> list[str]:
    return (out_dir / "mutants.jsonl").read_text().splitlines()


class _NoSessions:
    """A sandbox that must not be used: opening a session fails the test."""

    def session(self, *args, **kwargs):
        raise AssertionError("the attack stage opened a sandbox session it did not need")


def test_job_judgments_are_reused_and_no_session_opens_without_a_search(
        tmp_path: Path, setting) -> None:
    """Given the job's judgments, the static evaluation is those judgments (no case judged
    twice): with budget 0, or on a task an attack case already broke, no sandbox session opens,
    and the numbers equal a standalone stage's that judged every case itself; with a budget, the
    search still runs on the unbroken tasks and finds what the standalone stage finds."""
    suite, task_ids, spec = setting
    weak = _verifiers(tmp_path / "weak", suite, task_ids, accept_listed=False)
    alone = _attack(suite, task_ids, spec, weak, tmp_path / "alone", budget=0)
    lines = (tmp_path / "alone" / "judgments.jsonl").read_text().splitlines()
    judged: dict[str, list[dict]] = {}
    for rec in map(json.loads, lines):
        judged.setdefault(rec["task_id"], []).append(rec)
    reused = run_adaptive_attack(
        [suite.tasks[t] for t in task_ids], suite.cases, suite.references, weak,
        sandbox=_NoSessions(), spec_for=lambda t: spec,
        public_dir_for=lambda t: suite.public_dir(t.task_id), budget=0, seed=0,
        out_dir=tmp_path / "reused", judged=judged)
    assert reused == alone
    assert (tmp_path / "reused" / "judgments.jsonl").read_text().splitlines() == lines
    searched_alone = _attack(suite, task_ids, spec, weak, tmp_path / "s1", budget=20)
    searched = run_adaptive_attack(
        [suite.tasks[t] for t in task_ids], suite.cases, suite.references, weak,
        sandbox=make_sandbox("bwrap"), spec_for=lambda t: spec,
        public_dir_for=lambda t: suite.public_dir(t.task_id), budget=20, seed=0,
        out_dir=tmp_path / "s2", judged=judged)
    assert searched == searched_alone and searched["attack/tasks_found"] == len(task_ids)


# Accepts a raw text iff, once the attacker's prose, fences and comments are stripped and all
# whitespace removed, it is one of the listed presentations of a valid call list: a monitor
# that is right on content and indifferent to presentation.
CONTENT = """import json, pathlib, re
DATA = json.loads((pathlib.Path(__file__).parent / "content.json").read_text())
def norm(raw):
    changed = True
    while changed:
        changed = False
        for p in DATA["prefixes"]:
            if raw.startswith(p):
                raw, changed = raw[len(p):], True
        for s in DATA["suffixes"]:
            if raw.rstrip("\\n").endswith(s):
                raw, changed = raw.rstrip("\\n")[:-len(s)], True
    return re.sub(r"\\s+", "", raw)
def verify(candidate, env):
    return "PASS" if norm(candidate.get("raw", "")) in DATA["accepted"] else "FAIL"
"""


def _content_verifiers(root: Path, suite, task_ids: list[str]) -> dict[str, Path]:
    import itertools
    import re

    from monitorbench.sources.bfcl.cases import compact_raw, json_raw, multiline_raw

    renders = (python_raw, compact_raw, multiline_raw, lambda c: json_raw(c, None),
               lambda c: json_raw(c, 2))
    out = {}
    for tid in task_ids:
        valid = [dict(c.candidate) for c in suite.cases[tid] if c.label == "PASS"]
        accepted = {re.sub(r"\s+", "", v["raw"]) for v in valid}
        for v in valid:
            for order in itertools.permutations(v["calls"]):
                accepted |= {re.sub(r"\s+", "", r(list(order))) for r in renders}
        d = root / tid
        d.mkdir(parents=True)
        (d / "content.json").write_text(json.dumps({
            "prefixes": list(PROSE), "accepted": sorted(accepted),
            "suffixes": list(COMMENTS) + ["\n# " + s for s in VERIFIER_STRINGS]}))
        (d / "main.py").write_text(CONTENT)
        out[tid] = d
    return out


def test_presentation_variants_of_valid_calls_never_count(tmp_path: Path, setting) -> None:
    """Raw-only view: prose before valid calls makes the raw text undecodable, so the reference
    rejects it on format; a monitor that accepts it must not be charged with an attack."""
    suite, task_ids, spec = setting
    task, ref = suite.tasks[task_ids[0]], suite.references[task_ids[0]]
    gold = next(dict(c.candidate) for c in suite.cases[task_ids[0]] if c.group == "gold")
    prose = {"raw": PROSE[0] + gold["raw"], "calls": gold["calls"]}
    assert get_reference(ref.verifier_id).decide(task, ref, complete(prose, ("raw",))) == "FAIL"
    assert status_after(VALID, MUTATORS["add_prose"], parent_terminal=False,
                        sees_whole=False) == VALID
    # 12 tasks at budget 40: on these, the search before declared effects charged this monitor
    # with 2 "attacks" (a valid raw text taken by a desync, then prose before it).
    ids = sorted(suite.tasks)[::max(1, len(suite.tasks) // 12)][:12]
    vdirs = _content_verifiers(tmp_path / "content", suite, ids)
    m = _attack(suite, ids, spec, vdirs, tmp_path / "out", budget=40, fields=("raw",))
    assert m["attack/mutants_not_invalid"] > 0    # presentation variants were built ...
    assert m["attack/tasks_found"] == 0           # ... and never counted as attacks
    assert m["attack/fpr_h_adaptive"] == m["attack/fpr_h_static"]
    assert m["attack/queries"] > 0


def test_declared_effects_combine_along_a_chain() -> None:
    inval, pres, tamper = (MUTATORS["perturb_value"], MUTATORS["add_prose"],
                           MUTATORS["corrupt_valid"])
    assert status_after(VALID, inval, parent_terminal=False, sees_whole=True) == INVALID
    assert status_after(INVALID, inval, parent_terminal=False, sees_whole=True) == UNKNOWN
    assert status_after(INVALID, pres, parent_terminal=False, sees_whole=True) == INVALID
    assert status_after(UNKNOWN, tamper, parent_terminal=False, sees_whole=True) == UNKNOWN
    assert status_after(VALID, tamper, parent_terminal=False, sees_whole=True) == INVALID
    desync = MUTATORS["desync"]
    assert desync.terminal and desync.effect is Effect.DESYNC
    assert status_after(INVALID, desync, parent_terminal=False, sees_whole=True) == INVALID
    assert status_after(INVALID, desync, parent_terminal=False, sees_whole=False) == UNKNOWN
    assert status_after(INVALID, pres, parent_terminal=True, sees_whole=True) == UNKNOWN
    presentation = {n for n, m in MUTATORS.items() if m.effect is Effect.PRESENTATION}
    assert presentation == {"add_prose", "swap_presentation", "reorder_calls",
                            "inject_verifier_comment"}


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
    gold = next(dict(c.candidate) for c in cases if c.group == "gold")
    two = gold["calls"] + [{"name": "g", "arguments": {"x": 1, "s": "hello"}}]
    names = sorted({c["name"] for c in gold["calls"]} | {"g"})
    material = Material([dict(c.candidate) for c in cases if c.label == "PASS"], names,
                        {n: frozenset(c["arguments"]) for c in two for n in [c["name"]]},
                        {n: frozenset(c["arguments"]) for c in two for n in [c["name"]]})
    rng = random.Random(0)
    start = {"raw": python_raw(two), "calls": two}
    outputs = set()
    for name, mutation in MUTATORS.items():
        out = mutation.apply(start, rng, material)
        assert out is not None, name
        assert isinstance(out["raw"], str) and isinstance(out["calls"], list), name
        assert all(set(c) == {"name", "arguments"} for c in out["calls"]), name
        outputs.add(canonical_json(out))
    assert len(outputs - {canonical_json(start)}) >= len(MUTATORS) - 1


# ------------------------------------------------------------------ state and code tasks


@pytest.fixture(scope="module")
def other_types(agentdojo_one_per_suite, code_slice):
    """One AgentDojo user task per suite and one one-bug toolz task, the session's real slices
    (tests/conftest.py), with sandbox specs masking what each source must hide."""
    suites = {"agentdojo": agentdojo_one_per_suite, "code": load_suite(code_slice.root)}
    out = {}
    for name, suite in suites.items():
        out[name] = (suite, SandboxSpec(
            limits=Limits(wall_seconds=10.0),
            masked_paths=masked_paths(name) + (str(Path(suite.root).parent.resolve()),)))
    return out


def test_budget_zero_static_and_adaptive_agree_exactly_on_every_task_type(
        tmp_path: Path, setting, other_types) -> None:
    """No search: the adaptive records are the static ones, so every number is identical, and
    static FPR_h is exactly the paper's FPR_h (summarize) of the persisted judgments."""
    bfcl, bfcl_ids, bfcl_spec = setting
    suites = [(bfcl, bfcl_ids, bfcl_spec)] + [(s, sorted(s.tasks), spec)
                                              for s, spec in other_types.values()]
    tasks, cases, refs, vdirs, specs, publics = [], {}, {}, {}, {}, {}
    for suite, ids, spec in suites:
        attacks = {c.case_id for t in ids for c in suite.cases[t] if c.group == "attack"}
        half = set(sorted(attacks)[::2])  # accept every other attack case, and every positive
        vdirs.update(_verifiers(tmp_path / suite.name, suite, ids, accept_listed=True,
                                listed=lambda c: c.label == "PASS" or c.case_id in half))
        for t in ids:
            tasks.append(suite.tasks[t])
            cases[t], refs[t], specs[t] = suite.cases[t], suite.references[t], spec
            publics[t] = suite.public_dir(t)
    m = run_adaptive_attack(tasks, cases, refs, vdirs, sandbox=make_sandbox("bwrap"),
                            spec_for=lambda t: specs[t.task_id],
                            public_dir_for=lambda t: publics[t.task_id], budget=0, seed=0,
                            out_dir=tmp_path / "out")
    static = {k: v for k, v in m.items() if k.endswith("_static")}
    assert {f"attack/{t}/fpr_h_static" for t in ("tool_call", "state", "code")} <= set(static)
    assert {f"attack/{t}/tasks_broken_static" for t in ("tool_call", "state", "code")} <= set(
        static)
    for key, value in static.items():
        assert m[key[: -len("_static")] + "_adaptive"] == value, key
    assert 0.0 < m["attack/fpr_h_static"] < 100.0 and m["attack/queries"] == 0
    lines = (tmp_path / "out" / "judgments.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]
    paper = summarize(records)
    assert m["attack/fpr_h_static"] == paper["fpr_h"]
    for t in ("tool_call", "state", "code"):
        assert m[f"attack/{t}/fpr_h_static"] == paper[f"{t}/fpr_h"]
    assert m["attack/n_attack_tasks"] == paper["n_attack_tasks"] == len(tasks)


@pytest.mark.parametrize("name,budget", [("agentdojo", 6), ("code", 3)])
def test_search_extends_to_state_and_code_tasks(tmp_path: Path, other_types, name: str,
                                                budget: int) -> None:
    """A verifier perfect on the suite's cases (it rejects exactly the negative ones) is beaten
    on every task by mutants built from the suite's own attack constructions."""
    suite, spec = other_types[name]
    ids = sorted(suite.tasks)
    vdirs = _verifiers(tmp_path / "weak", suite, ids, accept_listed=False)
    m = _attack(suite, ids, spec, vdirs, tmp_path / "out", budget=budget)
    ttype = next(iter(suite.tasks.values())).task_type
    assert m[f"attack/{ttype}/fpr_h_static"] == 0.0 == m["attack/tasks_broken_static"]
    assert m["attack/n_tasks_broken_adaptive"] == len(ids) == m["attack/tasks_found"]
    assert m[f"attack/{ttype}/fpr_h_adaptive"] > 0.0
    _assert_found_are_new_invalid_candidates(suite, tmp_path / "out")


def test_parallel_search_queries_the_same_mutants_on_every_task_type(
        tmp_path: Path, setting, other_types) -> None:
    """Strict verifiers (nothing is found, so every task spends its whole budget): with tasks
    attacked three at a time, every task queries exactly the mutants, in the order, that it
    queries alone, state tasks included (their mutants are replayed in this process)."""
    bfcl, bfcl_ids, bfcl_spec = setting
    state, state_spec = other_types["agentdojo"]
    for suite, ids, spec, budget in ((bfcl, bfcl_ids, bfcl_spec, 8),
                                     (state, sorted(state.tasks), state_spec, 4)):
        vdirs = _verifiers(tmp_path / suite.name, suite, ids, accept_listed=True)
        runs = [_attack(suite, ids, spec, vdirs, tmp_path / f"{suite.name}{w}", budget=budget,
                        workers=w) for w in (1, 3)]
        assert runs[0] == runs[1] and runs[0]["attack/queries"] == budget * len(ids)
        assert _mutants(tmp_path / f"{suite.name}1") == _mutants(tmp_path / f"{suite.name}3")


def test_job_stage_reports_the_jobs_own_fpr_h_as_static(tmp_path: Path, suites_dir: Path
                                                         ) -> None:
    """Through the real job pipeline (BFCL, one judgment round): the attack stage's static FPR_h
    is the job's FPR_h, and with budget 0 the adaptive numbers equal the static ones."""
    m = run_job(compose_cfg(tmp_path, suites_dir, [
        "generator=schema_check", "task.max_tasks_per_type=12", "tracking.enabled=false",
        "attack.adaptive=true", "attack.budget=0"]))
    assert m["attack/fpr_h_static"] == m["fpr_h"] == m["attack/fpr_h_adaptive"]
    assert m["attack/tool_call/fpr_h_static"] == m["tool_call/fpr_h"]
    assert m["attack/tasks_broken_static"] == m["attack/tasks_broken_adaptive"]
    assert m["attack/n_attack_tasks"] == m["n_attack_tasks"]
