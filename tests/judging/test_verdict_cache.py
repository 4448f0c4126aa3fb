"""The shared verdict cache: a verifier is executed once per input it can see, per round.

Real jobs on the real AgentDojo slice in the real bubblewrap sandbox. The g4adv sweep's access
settings differ only for tool-call monitors, so a state task's verdicts under ``access=raw`` are
the ones ``access=parsed`` needs: the second job must execute nothing and still write its own
complete, identical judgments; a setting that changes what the verifier can do (``no_exec``: no
``run_public``) must execute everything again.
"""

from __future__ import annotations

import json
from pathlib import Path

from pipeline_helpers import compose_cfg

from monitorbench.config import AccessConfig
from monitorbench.judging.judge import TaskJob, judge_task
from monitorbench.judging.store import JudgmentStore
from monitorbench.judging.verdict_cache import VerdictCache
from monitorbench.launch.run import run_job
from monitorbench.sandbox.base import Verdict
from monitorbench.suites.access import view_for
from monitorbench.suites.format import Case, Task

STATE_ONLY = ["task=small", "task.suites=[{name:agentdojo,options:{max_tasks:1}}]",
              "task.task_types=[state]", "generator=grounded_check", "tracking.enabled=false"]


def _outcomes(outputs: Path) -> list[dict[tuple[str, str, int], str]]:
    """Each run directory's (task, case, round) -> outcome, oldest run first."""
    runs = sorted((outputs / "runs").glob("*/judgments.jsonl"), key=lambda p: p.stat().st_mtime)
    return [{(r["task_id"], r["case_id"], r["round"]): r["outcome"]
             for r in map(json.loads, run.read_text().splitlines())} for run in runs]


def test_an_access_setting_that_shows_state_verifiers_the_same_input_executes_nothing_again(
        tmp_path: Path, small_suites_dir: Path, agentdojo_one_per_suite) -> None:
    def job(access: str) -> dict[str, float]:
        return run_job(compose_cfg(tmp_path, small_suites_dir, STATE_ONLY + [f"access={access}"]))

    first, second = job("raw"), job("parsed")
    assert first["cache/judgments_new"] > 0 and first["cache/judgments_shared"] == 0
    # Every judgment of the second job came from the cache, and it still wrote all of them
    # into its own run directory.
    assert (second["cache/judgments_shared"] == second["cache/judgments_new"]
            == first["cache/judgments_new"])
    raw, parsed = _outcomes(tmp_path)
    assert parsed == raw and len(raw) == first["cache/judgments_new"]
    assert {k: second[k] for k in ("ba_norm", "tpr", "tnr")} == \
        {k: first[k] for k in ("ba_norm", "tpr", "tnr")}
    # Without run_public the verifier runs in another setting: nothing is shared.
    third = job("no_exec")
    assert (third["cache/judgments_shared"] == 0
            and third["cache/judgments_new"] == first["cache/judgments_new"])


class _FailingSandbox:
    """A sandbox whose worker dies on every case. A test double: the real sandbox does not fail
    on demand, and this test is about what the cache keeps when it does."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def judge(self, candidate) -> Verdict:
        raise ConnectionError("worker died")


def test_sandbox_errors_are_never_shared(tmp_path: Path) -> None:
    task = Task(task_id="t1", task_type="state", source="s", public={})
    case = Case(case_id="c1", task_id="t1", label="PASS", group="gold", category="gold",
                candidate={"record": []})
    access = AccessConfig()
    job = TaskJob(task, [case], tmp_path, tmp_path, "vhash", view_for(access, "state"),
                  "suite", 1, "raw", setting="s1")
    cache = VerdictCache(tmp_path / "verdicts")
    store = JudgmentStore(tmp_path / "judgments.jsonl")
    judge_task(job, store, lambda j: _FailingSandbox(), retries=1, cache=cache)
    store.close()
    assert [r.reason.value for r in store.records()] == ["sandbox_error"]
    assert cache.stored == 0 and not list((tmp_path / "verdicts").rglob("*.json"))


def test_a_shared_verdict_keeps_what_the_verifier_printed_and_old_entries_stay_hits(
        tmp_path: Path) -> None:
    """The viewer shows what a verifier printed on each case, also for a verdict another run
    made; an entry written before output was kept is still a hit (its output is empty)."""
    cache = VerdictCache(tmp_path / "verdicts")
    key = "ab" + "0" * 62
    cache.put(key, Verdict("FAIL", detail="d", stdout="saw <b>\n"))
    assert cache.get(key) == Verdict("FAIL", detail="d", stdout="saw <b>\n")
    entry = tmp_path / "verdicts" / "ab" / f"{key}.json"
    old = {k: v for k, v in json.loads(entry.read_text()).items() if k != "stdout"}
    entry.write_text(json.dumps(old))
    assert cache.get(key) == Verdict("FAIL", detail="d")
