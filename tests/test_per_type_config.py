"""Per-type settings are mappings keyed by task type (``task.rounds``, ``sandbox.type_limits``),
not task-type-named fields; the old keys fail at compose time and name their replacement."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from monitorbench.compose import compose_config
from monitorbench.errors import InputError
from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.launch.run_identity import earlier_keys, key_material, run_key
from monitorbench.pipeline.prepare import limits_for, rounds_for, typed_config


@pytest.mark.parametrize("override,new", [
    ("task.rounds_state_code=1", "task.rounds.state and task.rounds.code"),
    ("+task.rounds_state_code=1", "task.rounds.state and task.rounds.code"),
    ("task.rounds_tool_call=2", "task.rounds.tool_call"),
    ("sandbox.code_limits.wall_seconds=5", "sandbox.type_limits.code"),
])
def test_an_old_task_type_named_key_names_the_new_key(override: str, new: str) -> None:
    with pytest.raises(InputError) as e:
        compose_config([override])
    assert "was renamed" in e.value.fix and new in e.value.fix


def test_rounds_and_limits_come_from_the_per_type_mappings() -> None:
    conf = typed_config(compose_config(["task.rounds.state=1",
                                        "sandbox.type_limits.code.wall_seconds=7",
                                        "sandbox.limits.wall_seconds=4"]))
    assert [rounds_for(conf.task, t) for t in ("tool_call", "state", "code")] == [1, 1, 3]
    assert limits_for(conf.sandbox, "code").wall_seconds == 7.0
    assert limits_for(conf.sandbox, "code").memory_mb == 2048  # the rest of the code defaults
    assert limits_for(conf.sandbox, "state").wall_seconds == 4.0   # no entry: sandbox.limits
    assert limits_for(conf.sandbox, "tool_call").wall_seconds == 4.0


def test_a_mapping_key_that_names_no_task_type_is_refused() -> None:
    with pytest.raises(InputError) as e:
        typed_config(compose_config(["+task.rounds.stat=1"]))
    assert e.value.field == "task.rounds.stat" and "tool_call" in e.value.fix


def test_the_run_key_of_the_version_before_the_mappings_is_still_found() -> None:
    """Where the old fields could say the same (state and code rounds equal, only code limits
    set per type), the earlier version's key (launch/run_identity.MIGRATIONS) is exactly what
    that version hashed, so a run directory it wrote is found again and its judgments adopted."""
    conf = typed_config(compose_config([]))
    identity = {"name": "always_accept"}
    task = {k: v for k, v in asdict(conf.task).items()
            if k not in ("infra_retries", "max_infra_failure_pct", "rounds")}
    task.update(rounds_state_code=3, rounds_tool_call=1)
    before = sha256_text(canonical_json({
        # the display alias (issue 34) came later and is no part of any key
        "generator": identity, "access": {k: v for k, v in asdict(conf.access).items()
                                          if k != "alias"}, "task": task,
        "limits": asdict(conf.sandbox.limits),
        "code_limits": asdict(conf.sandbox.type_limits["code"]),
        "backend": conf.sandbox.backend, "suites": ["h"]}))[:20]
    material = {**key_material(conf, identity, []), "suites": ["h"], "audits": ["a"]}
    assert earlier_keys(material)[-1] == before      # version 1: no audits, the flat shape
    assert run_key(material) not in earlier_keys(material)
    # a setting the old fields could not express gets a key of its own
    other = typed_config(compose_config(["task.rounds.state=1"]))
    assert before not in earlier_keys({**key_material(other, identity, []), "suites": ["h"],
                                       "audits": ["a"]})