"""The τ² in-sandbox runtime: replays equal τ²'s own, budgets, and the masked task files
(a red-team probe from inside the bubblewrap sandbox finds no task file, expected database or
action list)."""

from __future__ import annotations

import gzip
import json
import textwrap
from pathlib import Path

import pytest

from monitorbench.sandbox.base import Limits, SandboxSpec
from monitorbench.sandbox.bwrap import bwrap_usable
from monitorbench.sources.tau2 import judge
from monitorbench.sources.tau2 import runtime as rt
from monitorbench.sources.tau2 import source as src
from monitorbench.sources.tau2.build import build_tau2_suite, masked_paths
from monitorbench.suites.format import load_suite
from monitorbench.suites.sandbox_image import image_recipe


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("tau2_rt") / "suite"
    build_tau2_suite(root, max_tasks=2)
    return load_suite(root)


def _with_writes(domain: str, n: int) -> list[src.Tau2Task]:
    return [t for t in src.load_tasks(domain) if src.writes(t.actions)][:n]


@pytest.mark.parametrize("domain", ["airline", "retail"])   # banking: test_tau2_banking.py
def test_replayed_gold_gives_the_database_of_tau2s_get_expected_db(domain):
    """Our copy-on-write replay and diff agree with τ²'s own ``get_expected_db`` and
    ``DB.get_hash`` (the function its ``db_match`` scorer calls) on real tasks."""
    from inspect_evals.tau2.common.scorer import get_expected_db
    from inspect_evals.tau2.data_model.tasks import Action
    for task in _with_writes(domain, 2):
        actions = [Action(action_id=f"a{i}", name=n, arguments=a)
                   for i, (n, a) in enumerate(task.actions)]
        theirs = get_expected_db(domain, actions).db.get_hash()
        kit = rt.fresh_toolkit(domain)
        rt.replay(domain, kit, [c for c in task.actions
                                if c[0] not in ("calculate", "transfer_to_human_agents")])
        assert rt.materialize(domain, kit.db).get_hash() == theirs, task.task_id
        assert rt.db_diff(domain, kit.db), "a task with writes changes the database"
        assert json.loads(judge.expected_diff(domain, task.task_id)) == rt.db_diff(domain, kit.db)


@pytest.mark.parametrize("domain", ["airline", "retail"])   # banking: test_tau2_banking.py
def test_read_tools_never_change_the_shared_initial_database(domain):
    """The scans that see shared records (flight search, user lookup, product listing) and every
    other read tool leave the initial database as parsed, and report no diff."""
    before = rt.initial_db(domain).get_hash()
    reads = {"airline": [("search_direct_flight", {"origin": "JFK", "destination": "SFO",
                                                   "date": "2024-05-20"}),
                         ("search_onestop_flight", {"origin": "JFK", "destination": "SFO",
                                                    "date": "2024-05-20"}),
                         ("list_all_airports", {}),
                         ("get_user_details", {"user_id": "raj_sanchez_7340"}),
                         ("get_reservation_details", {"reservation_id": "Q69X3R"}),
                         ("get_flight_status", {"flight_number": "HAT001", "date": "2024-05-20"}),
                         ("calculate", {"expression": "(2 + 3) * 4"}),
                         ("transfer_to_human_agents", {"summary": "x"})],
             "retail": [("find_user_id_by_name_zip", {"first_name": "Yusuf", "last_name": "Rossi",
                                                      "zip": "19122"}),
                        ("find_user_id_by_email", {"email": "nobody@example.com"}),
                        ("list_all_product_types", {}),
                        ("get_order_details", {"order_id": "#W2378156"}),
                        ("get_product_details", {"product_id": "1656367028"}),
                        ("get_user_details", {"user_id": "yusuf_rossi_9620"})]}[domain]
    assert {n for n, _ in reads} <= rt.READ_ONLY
    result = rt.run(domain, reads)
    assert result["db_diff"] == {}
    failed = [o["name"] for o in result["outputs"] if o["error"] is not None]
    assert failed == (["find_user_id_by_email"] if domain == "retail" else []), result["outputs"]
    assert rt.initial_db(domain).get_hash() == before


def test_the_sandbox_lean_import_replays_exactly_as_the_framework_does(suite):
    """Inside the sandbox the runtime skips inspect_ai's package __init__s (lean_imports); the
    same calls replayed that way give the same outputs and database diff as the framework's
    full import (the one the reference judges with), on every case of the slice."""
    import subprocess
    import sys
    records = [[c.task_id.split(".")[1],
                [[x["name"], x["arguments"]] for x in c.candidate["calls"]]]
               for cases in suite.cases.values() for c in cases]
    code = ("import json, sys\n"
            "from monitorbench.sources.tau2 import runtime as rt\n"
            "rt.lean_imports()\n"
            "assert 'inspect_ai._eval' not in sys.modules\n"
            "records = json.load(sys.stdin)\n"
            "print(json.dumps([rt.run(d, [(n, a) for n, a in calls]) for d, calls in records], "
            "sort_keys=True))\n")
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(records), text=True,
                         capture_output=True, check=True, timeout=600)
    ours = [rt.run(d, [(n, a) for n, a in calls]) for d, calls in records]
    assert json.loads(out.stdout) == json.loads(json.dumps(ours, sort_keys=True))


def test_run_public_budget_errors_and_unknown_tools():
    env = rt.make_env({"tau2": {"domain": "retail"}}, "/task", {"budget": 2})
    out = env.run_public([{"name": "initialize", "arguments": {}},
                          {"name": "_get_user", "arguments": {"user_id": "yusuf_rossi_9620"}},
                          {"name": "get_order_details", "arguments": {"order_id": "#W0"}},
                          {"name": "cancel_pending_order"}])
    errors = [o["error"] for o in out["outputs"]]
    assert errors[0] == "Tool 'initialize' not found" and errors[1] == "Tool '_get_user' not found"
    assert errors[2].startswith("Error:") and "order_id" in errors[3]
    assert out["db_diff"] == {} and env.executions == 1
    env.run_public([])
    with pytest.raises(rt.BudgetExceeded, match="2 executions"):
        env.run_public([])
    with pytest.raises(TypeError, match="must be a list"):
        env.run_public("get_user_details")
    with pytest.raises(ValueError, match="tau2.domain"):
        rt.make_env({"agentdojo": {}}, "/task", {})


def test_masked_paths_are_every_task_file_and_nothing_the_tools_need():
    masked = {Path(p).name for p in masked_paths()}
    assert {"tasks.json", "split_tasks.json", "tasks.json.gz", "tasks_small.json"} <= masked
    for p in masked_paths():
        assert Path(p).is_file() and "evaluation_criteria" in _text(Path(p)) or \
            Path(p).name.startswith("split_tasks"), p
    assert not any(p.endswith((".py", "db.json.gz", "policy.txt")) for p in masked_paths())


def _text(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8", "replace")


PROBE = '''
import gzip, json, os

def _leaks(root, env):
    found = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith((".py", ".pyc")):
                continue   # code names the fields it reads; only data can hold answers
            path = os.path.join(dirpath, f)
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
                if path.endswith(".gz"):
                    data = gzip.decompress(data)
            except Exception:
                continue
            if any(m.encode() in data for m in MARKERS):
                found.append(path)
    # through run_public: tools beyond the agent's list, and what replays return
    out = env.run_public([{"name": n, "arguments": {}} for n in
                          ("get_expected_db", "initialize", "model_dump", "_get_user",
                           "__class__", "load_tasks")])
    found += [o["name"] for o in out["outputs"] if o["error"] is None]
    text = json.dumps(out)
    found += [m for m in MARKERS if m in text]
    try:   # τ²'s own loader
        from inspect_evals.tau2.retail.dataset import read_dataset
        found.append(f"dataset loads {len(read_dataset('probe'))} tasks")
    except Exception:
        pass
    return found

def verify(candidate, env):
    if candidate.get("probe") == "secrets":
        leaks = _leaks(ROOT, env)
        print("LEAKS", leaks[:5])
        return "PASS" if not leaks else {"decision": "FAIL", "confidence": float(len(leaks))}
    real = env.run_public(candidate["calls"])
    same = all(o["output"] == c["output"] and o["error"] == c["error"]
               for o, c in zip(real["outputs"], candidate["calls"]))
    return "PASS" if same and real["db_diff"] else "FAIL"
'''


@pytest.mark.parametrize("backend", ["bwrap", "docker"])
@pytest.mark.parametrize("masked", [True, False], ids=["masked", "unmasked"])
def test_red_team_probe_from_inside_the_sandbox_finds_no_answers(suite, tmp_path, masked,
                                                                 backend, request):
    """Inside bwrap and docker, with the spec's runtime and masks, a verifier walks the whole τ² package
    for the task files' contents (the gold action lists, the facts to communicate, the
    assertions), asks run_public for tools beyond the agent's list and tries τ²'s dataset
    loader: it finds nothing, while the replay itself works. Without the masks the same probe
    finds the task files (so it can see a leak)."""
    from monitorbench.sandbox.docker import image_path
    from monitorbench.sandbox.factory import make_sandbox
    if backend == "docker":
        request.getfixturevalue("docker_image")   # the run's engine, the recipe's image
    elif not bwrap_usable():
        pytest.skip("bwrap missing or cannot create namespaces on this host")
    # where the sandbox shows τ²'s package: the host's path, or its copy in the image
    root = image_path(src.tau2_root()) if backend == "docker" else str(src.tau2_root())
    task_id = "tau2.retail.1"
    # The keys only τ²'s task files hold among its data: the evaluation criteria and their
    # gold action lists (a gold action's arguments are database values, found in db.json too).
    markers = ["evaluation_criteria", "communicate_info", "nl_assertions", '"action_id"',
               "reason_for_call"]
    vdir = tmp_path / "verifier"
    vdir.mkdir()
    (vdir / "main.py").write_text(f"ROOT = {root!r}\nMARKERS = {markers!r}\n"
                                  + textwrap.dedent(PROBE))
    spec = SandboxSpec(limits=Limits(wall_seconds=60.0, cpu_seconds=60, memory_mb=4096),
                       masked_paths=tuple(masked_paths()) if masked else (),
                       runtime="monitorbench.sources.tau2.runtime", runtime_config={"budget": 3})
    gold = next(c for c in suite.cases[task_id] if c.group == "gold").candidate
    box = make_sandbox(backend, recipe=image_recipe())
    with box.session(vdir, suite.public_dir(task_id), spec) as session:
        v_gold = session.judge(gold)
        v_secrets = session.judge({"probe": "secrets"})
    assert (v_gold.decision, v_gold.executions) == ("PASS", 1), v_gold
    assert v_secrets.decision == ("PASS" if masked else "FAIL"), v_secrets
