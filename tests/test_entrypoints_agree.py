"""``score``, ``run`` and ``audit`` see one pipeline: same verifier, task and access → same result.

Everything here is real: the BFCL suite built from the installed package, the bubblewrap sandbox,
a sweep job through :func:`run_job` (the function ``python -m monitorbench`` calls) and
``monitorbench score`` as a separate process. The run's per-case outcomes are read back from the
judgment store it leaves on disk; the score command's from its ``--json`` lines.

The audit runs no generated verifier (it judges each task's trusted reference, in process), so
what it shares with the others is the prepare stage: the seeded task sample and the rounds. The
last test runs the audit entry point on a slice and checks it audits exactly the tasks the run
judges.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline_helpers import ROOT, compose_cfg
from monitorbench.audit.exclusions import apply_exclusions
from monitorbench.judging.store import JudgmentStore
from monitorbench.launch.run import run_job, select_tasks
from monitorbench.pipeline.prepare import Specs
from monitorbench.sandbox.bwrap import bwrap_usable
from monitorbench.suites.format import load_suite

pytestmark = pytest.mark.skipif(not bwrap_usable(), reason="needs a working bubblewrap")

# Accepts a candidate whose calls all name a tool the task offers: right on valid solutions,
# wrong on most errors and attacks, so the outcomes are a mix of P and F per task.
NAMES_ONLY = '''def verify(candidate, env):
    names = {t["name"] for t in env.task["tools"]}
    calls = candidate.get("calls") or []
    return "PASS" if calls and all(c["name"] in names for c in calls) else "FAIL"
'''
TASKS = 2  # per type; BFCL has one type (tool_call)


def _selection(suites_dir: Path, cfg):
    return select_tasks(cfg, [("bfcl", apply_exclusions(load_suite(suites_dir / "bfcl")))])


def _run_outcomes(out: Path) -> dict[str, dict[str, str]]:
    """task id → case id → outcome, from the one run directory's judgment store."""
    (run_dir,) = list((out / "runs").iterdir())
    got: dict[str, dict[str, str]] = {}
    for j in JudgmentStore(run_dir / "judgments.jsonl").records():
        assert j.round == 1
        got.setdefault(j.task_id, {})[j.case_id] = j.outcome.value
    return got


def _score_outcomes(verifier: Path, task_id: str, access: str, suites_dir: Path,
                    out: Path) -> dict[str, str]:
    """case id → outcome, from ``monitorbench score --json`` run as its own process."""
    r = subprocess.run([sys.executable, "-m", "monitorbench.score", str(verifier), "--task",
                        task_id, "--access", access, "--suites-dir", str(suites_dir),
                        "--outputs-dir", str(out), "--json"], cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    return {row["case_id"]: row["outcome"] for row in rows[:-1]}


@pytest.mark.parametrize("verifier,access", [("names_only", "raw_parsed"),
                                             ("names_only", "parsed"),
                                             ("always_accept", "raw_parsed")])
def test_score_and_run_give_the_same_outcome_on_every_case(
        tmp_path: Path, suites_dir: Path, verifier: str, access: str) -> None:
    out = tmp_path / "out"
    if verifier == "always_accept":  # the real baseline generator writes the verifier
        generator = ["generator=always_accept"]
    else:  # a hand-written verifier file, replayed per task
        generator = ["generator=replay", f"generator.dir={tmp_path / 'v'}"]
    cfg = compose_cfg(out, suites_dir, generator + [
        f"access={access}", f"task.max_tasks_per_type={TASKS}", "tracking.enabled=false"])
    sel = _selection(suites_dir, cfg)
    if verifier == "names_only":
        for t in sel.tasks:
            (tmp_path / "v" / t.task_id).mkdir(parents=True)
            (tmp_path / "v" / t.task_id / "main.py").write_text(NAMES_ONLY)
    metrics = run_job(cfg)
    run = _run_outcomes(out)
    assert sorted(run) == sorted(t.task_id for t in sel.tasks)
    generated = {json.loads(f.read_text())["task_id"]: f.parent / "verifier"
                 for f in (out / "cache" / "generations").glob("*/result.json")}
    for t in sel.tasks:
        vdir = tmp_path / "v" / t.task_id if verifier == "names_only" else generated[t.task_id]
        shell = _score_outcomes(vdir, t.task_id, access, suites_dir, out)
        assert shell == run[t.task_id], t.task_id  # same cases judged, same outcome each
    outcomes = {o for per_task in run.values() for o in per_task.values()}
    assert outcomes == ({"P"} if verifier == "always_accept" else {"P", "F"})
    if access == "parsed":  # both set aside the cases that parsed-only access cannot tell apart
        assert metrics["cases_indistinguishable"] > 0


@pytest.mark.parametrize("access", ["raw_parsed", "parsed"])
def test_score_builds_the_sandbox_spec_a_run_builds(tmp_path: Path, suites_dir: Path,
                                                   access: str) -> None:
    """Same masked paths (the source's answer packages, the suites and outputs directories),
    same per-type limits, same runtime: the shell and the sweep run a verifier identically."""
    from monitorbench.score import _prepare, build_parser

    out = tmp_path / "out"
    cfg = compose_cfg(out, suites_dir, [f"access={access}", f"task.max_tasks_per_type={TASKS}"])
    sel = _selection(suites_dir, cfg)
    specs = Specs(cfg, sel)
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "main.py").write_text(NAMES_ONLY)
    for t in sel.tasks:
        args: argparse.Namespace = build_parser().parse_args([
            str(tmp_path / "v"), "--task", t.task_id, "--access", access,
            "--suites-dir", str(suites_dir), "--outputs-dir", str(out)])
        shell = _prepare(args).spec
        assert shell == specs(t)
        assert str(out.resolve()) in shell.masked_paths  # the outputs are hidden from both
        assert str(suites_dir.resolve()) in shell.masked_paths


def test_an_audit_slice_audits_exactly_the_tasks_a_run_judges(tmp_path: Path,
                                                              suites_dir: Path) -> None:
    from monitorbench.audit.run import run_audit

    out = tmp_path / "out"
    overrides = [f"task.max_tasks_per_type={TASKS}", "task.sample_seed=7",
                 "tracking.enabled=false"]
    run_sel = _selection(suites_dir, compose_cfg(out, suites_dir, overrides))
    metrics = run_audit(compose_cfg(out, suites_dir, overrides))
    assert metrics["tasks"] == TASKS
    (report,) = list((out / "audit").glob("*/*/report.json"))
    audited = [t["task_id"] for t in json.loads(report.read_text())["tasks"]]
    # the run drops no task of this suite here, so the two samples must be the same tasks
    assert sorted(audited) == sorted(t.task_id for t in run_sel.tasks)
