"""Docker judges as bubblewrap does, on the real engine: a BFCL job's every judgment, and a code
task whose verifier runs the library's own tests inside the sandbox (``env.run_public``).

Both backends run the same worker; what differs is the filesystem the verifier sees (the host's
Python under bwrap, the recipe's image under docker) and how each is started, so any difference
in an outcome here is a defect of the image or of the docker backend's setup."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import write_verifier
from pipeline_helpers import compose_cfg

from monitorbench.config import AccessConfig
from monitorbench.launch.run import run_job
from monitorbench.pipeline.prepare import sandbox_spec
from monitorbench.sandbox.base import Limits
from monitorbench.sandbox.factory import make_sandbox
from monitorbench.suites.format import load_suite
from monitorbench.suites.sandbox_image import image_recipe

RUNS_THE_TESTS = '''
import re


def verify(candidate, env):
    # the failing tests the instruction names, run with the task's own test command
    tests = re.findall(r"`([\\w/.-]+\\.py::\\w+)`", env.task["instruction"])
    result = env.run_public([*env.task["repo"]["test_command"], *tests])
    print(result["exit_code"], result["output"][-300:])
    return "PASS" if result["applied"] and result["exit_code"] == 0 else "FAIL"
'''


def _judgments(out: Path) -> dict[tuple[str, str], tuple[str, str]]:
    run_dir = next((out / "runs").iterdir())
    rows = [json.loads(x) for x in (run_dir / "judgments.jsonl").read_text().splitlines()]
    return {(r["task_id"], r["case_id"]): (r["outcome"], r["reason"]) for r in rows}


def test_a_bfcl_job_judges_identically_under_docker_and_bwrap(tmp_path, suites_dir,
                                                              docker_image):
    # the shipped schema_check baseline: stdlib only, and it both accepts and rejects
    results = {}
    for backend in ("bwrap", "docker"):
        cfg = compose_cfg(tmp_path / backend, suites_dir, [
            "generator=schema_check", "tracking.enabled=false",
            "task.max_tasks_per_type=4", f"sandbox={backend}"])
        m = run_job(cfg)
        assert m["diag/infra_failures"] == 0
        results[backend] = _judgments(tmp_path / backend)
    assert results["docker"] == results["bwrap"]
    outcomes = {o for o, _ in results["docker"].values()}
    assert {"P", "F"} <= outcomes, outcomes   # the comparison covers both decisions


def test_a_code_verifier_runs_the_librarys_tests_in_docker_as_in_bwrap(tmp_path, code_slice,
                                                                        docker_image):
    suite = load_suite(code_slice.root)
    task = sorted(suite.tasks.values(), key=lambda t: t.task_id)[0]
    cases = suite.cases[task.task_id]
    picked = [next(c for c in cases if c.group == "gold"),
              next(c for c in cases if c.label == "FAIL")]
    spec = sandbox_spec("code", task.task_type, AccessConfig(),
                        Limits(wall_seconds=120, cpu_seconds=120, memory_mb=2048, processes=64),
                        (), executes=True)
    vdir = write_verifier(tmp_path, RUNS_THE_TESTS)
    decided, seen = {}, {}
    for backend in ("bwrap", "docker"):
        box = make_sandbox(backend, recipe=image_recipe())
        with box.session(vdir, suite.public_dir(task.task_id), spec) as s:
            verdicts = [s.judge(c.candidate) for c in picked]
            seen[backend] = [(v.reason, v.detail[-300:], v.stdout[-400:]) for v in verdicts]
            decided[backend] = [(v.decision, v.executions) for v in verdicts]
    assert decided["docker"] == decided["bwrap"], (decided, seen)
    assert decided["docker"][0] == ("PASS", 1), seen   # the gold patch makes the tests pass
