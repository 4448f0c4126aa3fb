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
from monitorbench.sandbox.runtimes import agentdojo as rt
from monitorbench.suites import agentdojo_source as src
from monitorbench.suites.agentdojo import build_agentdojo_suite
from monitorbench.suites.format import GROUPS, load_suite
from monitorbench.suites.reference import get_reference

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory):
    """One user task per AgentDojo suite, built for real (about 10 s)."""
    root = tmp_path_factory.mktemp("agentdojo") / "suite"
    build_agentdojo_suite(root, seed=0, max_tasks=1)
    return load_suite(root)


def test_slice_has_every_group_and_both_labels_per_task(small):
    assert sorted(small.tasks) == [f"agentdojo.{s}.user_task_0"
                                   for s in ("banking", "slack", "travel", "workspace")]
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
    task = small.tasks["agentdojo.banking.user_task_0"]
    assert "bill-december-2023.txt" in task.public["instruction"]
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
    data = small.references["agentdojo.banking.user_task_0"].data
    assert data["injection_vectors"]
    env_text = (small.public_dir("agentdojo.banking.user_task_0") / "environment.json").read_text()
    assert "<INFORMATION>" in env_text


@pytest.mark.slow
def test_same_seed_gives_byte_identical_manifest_across_processes(tmp_path):
    """Two fresh interpreters (different hash seeds, different wall-clock times) build the same
    bytes; workspace tasks stamp datetime.now() into e-mails, so this also checks the frozen clock."""
    code = ("import sys; from pathlib import Path; "
            "from monitorbench.suites.agentdojo import build_agentdojo_suite; "
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
