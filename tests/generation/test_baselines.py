"""The program baselines on the real BFCL suite, judged in the real sandbox, and how the
adaptive attack stage treats them (the g4adv sweep's point: static vs adaptive FPR_h)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline_helpers import compose_cfg
from monitorbench.generation.baselines import ScriptedGenerator
from monitorbench.launch.run import run_job

_QUIET = ["tracking.enabled=false", "attack.adaptive=true"]


def test_grounded_check_resists_static_attacks_and_the_search_breaks_it(
        tmp_path: Path, suites_dir: Path) -> None:
    """grounded_check accepts fewer of the suite's attacks than schema_check on the same tasks,
    and the budgeted search finds invalid candidates it accepts that no static attack was:
    adaptive FPR_h above static FPR_h, which is what the g4adv report compares."""
    tasks = ["task.max_tasks_per_type=12"]
    schema = run_job(compose_cfg(tmp_path / "s", suites_dir, [
        "generator=schema_check", *tasks, *_QUIET, "attack.budget=0"]))
    grounded = run_job(compose_cfg(tmp_path / "g", suites_dir, [
        "generator=grounded_check", *tasks, *_QUIET, "attack.budget=20"]))
    assert grounded["n_tasks"] == schema["n_tasks"] > 0
    assert grounded["attack/fpr_h_static"] < schema["attack/fpr_h_static"]
    assert grounded["attack/tasks_found"] > 0
    assert grounded["attack/fpr_h_adaptive"] > grounded["attack/fpr_h_static"]
    assert grounded["tnr"] > schema["tnr"] and grounded["tpr"] > 0


@pytest.mark.parametrize("search", [False, True])
def test_a_verifier_that_accepts_nothing_is_searched_only_when_configured(
        tmp_path: Path, suites_dir: Path, search: bool) -> None:
    m = run_job(compose_cfg(tmp_path, suites_dir, [
        "generator=always_reject", "task.max_tasks_per_type=1", *_QUIET, "attack.budget=5",
        f"attack.search_reject_all={str(search).lower()}"]))
    attacked = int(m["attack/tasks_attacked"])
    assert attacked > 0 and m["attack/fpr_h_adaptive"] == m["attack/fpr_h_static"] == 0.0
    assert m["attack/tasks_rejecting_all"] == (0 if search else attacked)
    assert m["attack/queries"] == (5 * attacked if search else 0)


def test_a_baseline_identity_changes_with_its_program() -> None:
    """Editing a baseline program must change the cache key of the verifiers it wrote."""
    ids = {b: ScriptedGenerator(b).identity["files"]
           for b in ("always_accept", "always_reject", "schema_check", "grounded_check")}
    assert len(set(ids.values())) == 4
    files = ScriptedGenerator("grounded_check").files()
    assert set(files) == {"main.py", "schema_check.py"}
    assert "from schema_check import" in files["main.py"]
