"""A task's rounds are judged in one sandbox session, each judgment still in a fresh child.

Real bwrap sessions on the real BFCL slice. Sharing the session across rounds is only sound if
nothing a verifier does in one judgment is seen by the next, in another round as in the same
one: the verifier here counts its own runs in module state and in the sandbox's scratch, and
must find both fresh every time.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from monitorbench.audit.exclusions import apply_exclusions
from monitorbench.config import AccessConfig
from monitorbench.judging.judge import TaskJob, judge_all
from monitorbench.judging.records import Outcome
from monitorbench.judging.store import JudgmentStore
from monitorbench.sandbox.base import Limits, SandboxSpec
from monitorbench.sandbox.factory import make_sandbox
from monitorbench.suites.access import view_for
from monitorbench.suites.format import load_suite
from monitorbench.suites.registry import masked_paths

COUNTING = '''
import os
RUNS = []


def verify(candidate, env):
    RUNS.append(1)
    seen = os.path.exists("/tmp/ran")
    open("/tmp/ran", "w").close()
    return "PASS" if len(RUNS) == 1 and not seen else "FAIL"
'''


def test_the_rounds_of_a_task_share_a_session_and_no_judgment_sees_another(
        tmp_path: Path, suites_dir: Path) -> None:
    suite = apply_exclusions(load_suite(suites_dir / "bfcl"))
    tasks = [suite.tasks[t] for t in sorted(suite.tasks)[:2]]
    vdir = tmp_path / "v"
    vdir.mkdir()
    (vdir / "main.py").write_text(COUNTING)
    sandbox = make_sandbox("bwrap")
    spec = SandboxSpec(limits=Limits(), masked_paths=masked_paths("bfcl"))
    opened: list[str] = []

    @contextmanager
    def open_session(job: TaskJob) -> Iterator[Any]:
        opened.append(job.task.task_id)
        with sandbox.session(job.verifier_dir, job.public_dir, spec) as session:
            yield session

    view = view_for(AccessConfig(), "tool_call")
    jobs = [TaskJob(t, suite.cases[t.task_id], suite.public_dir(t.task_id), vdir, "vhash", view,
                    suite.suite_hash, rnd, "raw_parsed") for t in tasks for rnd in (1, 2, 3)]
    store = JudgmentStore(tmp_path / "judgments.jsonl")
    rounds_seen: list[int] = []
    n = judge_all(jobs, store, open_session, workers=2, progress=rounds_seen.append)
    records = store.records()
    store.close()
    assert sorted(opened) == sorted(t.task_id for t in tasks)   # one session per task
    assert n == len(records) == 3 * sum(len(suite.cases[t.task_id]) for t in tasks)
    assert len(rounds_seen) == len(jobs)                         # progress per task-round
    assert {(r.task_id, r.round) for r in records} == {(t.task_id, rnd) for t in tasks
                                                        for rnd in (1, 2, 3)}
    assert {r.outcome for r in records} == {Outcome.P}              # every run was the first
