"""V4V audit on a small real AgentDojo slice: both state operators detected, replays repeatable."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("agentdojo")

from monitorbench.audit.audit import audit_suite  # noqa: E402
from monitorbench.audit.model import CHECKS  # noqa: E402
from monitorbench.sources.agentdojo.build import build_agentdojo_suite  # noqa: E402


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("agentdojo")
    # slack/user_task_0 and travel/user_task_0: the source limits neither operator there
    # (banking's first kept task, user_task_1, is judged on its answer only).
    build_agentdojo_suite(root, seed=0, suites=("slack", "travel"), max_tasks=1)
    return audit_suite(root, repeats=2)


def test_state_tasks_pass_all_checks(audited) -> None:
    """All seven checks, C7 included: both golds answer what their instruction asks."""
    assert len(audited.tasks) == 2
    for t in audited.tasks:
        assert all(t.checks[k].passed for k in CHECKS), t.to_json()["reasons"]
        assert not t.defects
        ops = t.checks["C6"].details["operators"]
        assert set(ops) == {"ignore_injection_security", "ignore_final_state"}
        assert ops["ignore_injection_security"]["detected_by"]["original"] == "FAIL"


def test_state_runs_twice_from_reset_state(audited) -> None:
    t = audited.tasks[0]
    runs = {d["run"] for d in t.decisions}
    assert runs == {1, 2}
    assert "2 runs" in t.checks["C2"].evidence
