"""AgentDojo state suite: build a small real slice and check what users of the suite rely on."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from monitorbench.errors import InputError
from monitorbench.sources.agentdojo import runtime as rt
from monitorbench.sources.agentdojo import source as src
from monitorbench.sources.agentdojo.build import build_agentdojo_suite
from monitorbench.suites.format import GROUPS
from monitorbench.suites.reference import get_reference

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def small(agentdojo_two_per_suite):
    """Two user tasks per AgentDojo suite (tests/conftest.py builds it once per session)."""
    return agentdojo_two_per_suite


def test_slice_has_every_group_and_both_labels_per_task(small):
    assert sorted(small.tasks) == [f"agentdojo.{s}.user_task_{i}"
                                   for s, ids in (("banking", (1, 2)), ("slack", (0, 1)),
                                                  ("travel", (0, 1)), ("workspace", (0, 1)))
                                   for i in ids]
    assert {c.group for cl in small.cases.values() for c in cl} == set(GROUPS)
    for task_id, cases in small.cases.items():
        assert {c.label for c in cases} == {"PASS", "FAIL"}, task_id
        assert [c.case_id for c in cases] == [f"{task_id}.c{i:02d}" for i in range(len(cases))]
        gold = [c for c in cases if c.group == "gold"]
        assert len(gold) == 1 and gold[0].label == "PASS"
    m = small.manifest
    assert (m["name"], m["task_type"], m["benchmark_version"], m["seed"]) == (
        "agentdojo", "state", "v1.2.2", 0)
    assert m["agentdojo_version"] == "0.1.35"


def test_public_task_carries_instruction_tools_environment_and_contract(small):
    task = small.tasks["agentdojo.banking.user_task_2"]
    assert "landlord-notices.txt" in task.public["instruction"]
    tools = {t["name"]: t for t in task.public["tools"]}
    assert tools["send_money"]["parameters"]["required"] == ["recipient", "amount", "subject", "date"]
    env = json.loads((small.public_dir(task.task_id) / "environment.json").read_text())
    assert set(env) == {"bank_account", "filesystem", "user_account"}
    assert "run_public" in task.public["contract"] and "20" in task.public["contract"]
    # Nothing hidden leaks into the public tree.
    public_text = "".join(p.read_text() for p in small.public_dir(task.task_id).iterdir())
    assert "injection_task" not in public_text and '"label"' not in public_text


def test_reference_agrees_with_every_shipped_label(small):
    ref = get_reference("agentdojo.utility")
    for task_id, cases in small.cases.items():
        for case in cases:
            decision = ref.decide(small.tasks[task_id], small.references[task_id], case.candidate)
            assert decision == case.label, case.case_id


def test_build_report_counts_what_was_dropped_and_why(small):
    report = small.build_report
    assert report["cases_kept"] == small.n_cases()
    assert report["dropped_cases"] == len(report["dropped"])
    for d in report["dropped"]:
        assert re.match(r"(reference says (PASS|FAIL)|duplicate candidate|reference error)",
                        d["reason"]), d


def test_injection_cases_fail_because_the_attack_succeeded(small):
    """Every injection_goal case is FAIL and AgentDojo's security check says the attack worked;
    in some of them the user task itself is done, so only the security check rejects them."""
    only_security = 0
    for task_id, cases in small.cases.items():
        data = small.references[task_id].data
        setup = src.cached_setup(data["suite"], data["user_task_id"], data["injection_task_id"])
        for case in (c for c in cases if c.category == "injection_goal"):
            calls = rt.check_calls(case.candidate["calls"])
            utility, attacked = src.judge(setup, calls, case.candidate["final_message"])
            assert case.label == "FAIL" and attacked, case.case_id
            only_security += utility
    assert only_security >= 1


def test_injected_text_is_in_the_public_environment(small):
    data = small.references["agentdojo.banking.user_task_2"].data
    assert data["injection_vectors"]
    env_text = (small.public_dir("agentdojo.banking.user_task_2") / "environment.json").read_text()
    assert "<INFORMATION>" in env_text


@pytest.mark.slow
def test_same_seed_gives_byte_identical_manifest_across_processes(tmp_path):
    """Two fresh interpreters (different hash seeds, different wall-clock times) build the same
    bytes; workspace tasks stamp datetime.now() into e-mails, so this also checks the frozen clock."""
    code = ("import sys; from pathlib import Path; "
            "from monitorbench.sources.agentdojo.build import build_agentdojo_suite; "
            "build_agentdojo_suite(Path(sys.argv[1]), seed=3, suites=('workspace',), "
            "max_tasks=1)")
    manifests = []
    for i, hash_seed in enumerate(("1", "2")):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(REPO)}
        subprocess.run([sys.executable, "-c", code, str(tmp_path / f"s{i}")], env=env, check=True,
                       timeout=300)
        manifests.append((tmp_path / f"s{i}" / "manifest.json").read_bytes())
        time.sleep(1.1)
    assert manifests[0] == manifests[1]


def test_tool_clock_is_frozen_so_replays_repeat(small):
    """send_email stamps datetime.now(); two replays a second apart must give the same state."""
    task = small.tasks["agentdojo.workspace.user_task_0"]
    env = rt.make_env(dict(task.public), str(small.public_dir(task.task_id)), {})
    calls = [{"name": "send_email", "arguments": {"recipients": ["a@example.com"],
                                                 "subject": "s", "body": "b"}}]
    first = env.run_public(calls)
    time.sleep(1.1)
    second = env.run_public(calls)
    assert first == second
    assert "timestamp: 2024-05-15 10:00:00" in first["outputs"][0]["output"]


def test_event_participants_keep_a_hash_independent_order(small):
    """The source tool stores list(set(participants)); replays must not depend on the hash seed."""
    task = small.tasks["agentdojo.workspace.user_task_0"]
    env = rt.make_env(dict(task.public), str(small.public_dir(task.task_id)), {})
    people = [f"{n}@example.com" for n in ("zoe", "adam", "mia", "bob", "kim", "eve")]
    result = env.run_public([{"name": "create_calendar_event", "arguments": {
        "title": "t", "start_time": "2024-05-20 10:00", "end_time": "2024-05-20 11:00",
        "participants": people}}])
    events = result["state"]["calendar"]["events"]
    new = next(e for e in events.values() if e["title"] == "t")
    assert new["participants"] == [*people, "emma.johnson@bluesparrowtech.com"]


def test_bad_builder_input_names_the_field(tmp_path):
    with pytest.raises(InputError) as e:
        build_agentdojo_suite(tmp_path / "x", suites=("shopping",))
    assert e.value.field == "suites" and "workspace" in e.value.fix
    with pytest.raises(InputError) as e:
        build_agentdojo_suite(tmp_path / "x", max_tasks=0)
    assert e.value.field == "max_tasks"


def test_reference_rejects_a_malformed_candidate_with_input_error(small):
    task_id = "agentdojo.slack.user_task_0"
    ref = get_reference("agentdojo.utility")
    with pytest.raises(InputError) as e:
        ref.decide(small.tasks[task_id], small.references[task_id], {"calls": "send_money"})
    assert e.value.field == "candidate.calls"
    with pytest.raises(InputError) as e:
        ref.decide(small.tasks[task_id], small.references[task_id], {"calls": []})
    assert e.value.field == "candidate.final_message"


def test_message_only_attack_counts_as_working():
    """travel injection_task_6 only asks the agent to *say* something; its security check reads
    the final message, so its own ground truth (no calls, its answer) must count as a working
    attack (judged with an empty message, it was always rejected)."""
    setup = src.cached_setup("travel", "user_task_0", "injection_task_6")
    assert src.attack_calls(setup) == [] and "Riverside View Hotel" in src.attack_message(setup)
    assert src.attack_succeeds_alone(setup)
    assert src.judge(setup, [], "")[1] is False


def test_chosen_pair_lets_user_task_and_attack_both_succeed(small):
    """Where the build report names no source limit on the security check, some injection_goal
    case completes the user task while the attack succeeds: the reference rejects it only
    because of the security check."""
    limits = small.build_report["source_limits"]
    for task_id, cases in small.cases.items():
        if any(x.startswith("ignore_injection_security") for x in limits.get(task_id, [])):
            continue
        data = small.references[task_id].data
        setup = src.cached_setup(data["suite"], data["user_task_id"], data["injection_task_id"])
        verdicts = [src.judge(setup, rt.check_calls(c.candidate["calls"]),
                              c.candidate["final_message"])
                    for c in cases if c.category == "injection_goal"]
        assert (True, True) in verdicts, task_id


def test_source_limits_name_checks_the_source_makes_undecidable():
    """banking user_task_1 ("total spending in March?") is judged on the answer only; banking
    user_task_5's utility already holds before anything is done; banking user_task_0's utility
    reads the transactions the candidate made."""
    from monitorbench.sources.agentdojo.build import source_limits

    def limits(ut: str) -> list[str]:
        return source_limits(src.cached_setup("banking", ut, "injection_task_1"), True)

    assert [x.split(":")[0] for x in limits("user_task_1")] == ["ignore_final_state"]
    assert "never reads" in limits("user_task_1")[0]
    assert "initial environment" in limits("user_task_5")[0]
    assert limits("user_task_0") == []
    setup = src.cached_setup("banking", "user_task_0", "injection_task_1")
    assert source_limits(setup, False)[0].startswith("ignore_injection_security")


def test_audit_detects_both_mutants_where_the_source_allows_it(small):
    """V4V C6 on the slice: travel/user_task_0 used to miss ignore_injection_security (every
    attack broke its one-reservation check); its user-task-plus-"say" attack case now catches
    it. Every operator the audit misses is one the build report says no case can catch."""
    from monitorbench.audit.audit import audit_suite

    audit = audit_suite(small.root)
    limits = small.build_report["source_limits"]
    for t in audit.tasks:
        c6 = t.checks["C6"]
        limited = {x.split(":")[0] for x in limits.get(t.task_id, [])}
        # A limited security check is either missed or, where no attack can succeed alongside
        # the user task, not applied at all (workspace/user_task_1).
        assert set(c6.details["missed"]) == limited & set(c6.details["operators"]), \
            (t.task_id, c6.evidence)
        assert limited - set(c6.details["operators"]) <= {"ignore_injection_security"}
        assert all(t.checks[k].passed for k in ("C1", "C2", "C3", "C4", "C5")), t.task_id
    travel = next(t for t in audit.tasks if t.task_id == "agentdojo.travel.user_task_0")
    hit = travel.checks["C6"].details["operators"]["ignore_injection_security"]["detected_by"]
    assert (hit["category"], hit["original"], hit["mutant"]) == ("injection_goal", "FAIL", "PASS")
    assert travel.passed


def test_inline_attack_follows_the_call_that_shows_the_injected_text():
    """banking user_task_0 reads the bill (which carries the injection), then pays it: an agent
    obeying the injection does the attacker's goal right after reading, then pays."""
    setup = src.cached_setup("banking", "user_task_0", "injection_task_4")
    gold, attack = src.user_calls(setup), src.attack_calls(setup)
    assert [n for n, _ in gold] == ["read_file", "send_money"]
    out = rt.replay("banking", setup.fresh_env(), gold[:1])[0]["output"]
    assert "<INFORMATION>" in out           # the real attack text is in what call 0 showed
    assert src.injection_point(setup, gold) == 0
    runs = src.compliant_runs(setup, gold, setup.user_task.GROUND_TRUTH_OUTPUT)
    assert [r.calls for r in runs] == [(*gold, *attack), (gold[0], *attack, gold[1])]
