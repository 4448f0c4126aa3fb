"""What changes judgments is declared per config field, and the run key hashes exactly that.

Every config dataclass whose fields reach a run key or a generator identity declares each field
in ``IDENTITY`` (changes judgments) or ``NOT_IDENTITY`` (does not); adding a field without
deciding fails here instead of silently invalidating every resume and cache entry."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from monitorbench import config as config_module
from monitorbench.compose import compose_config
from monitorbench.config import (AccessConfig, ConditionConfig, HarnessConfig, HarnessLimits,
                                 LimitsConfig, SandboxConfig, ScaffoldConfig, TaskConfig,
                                 identity, undeclared_fields)
from monitorbench.launch.run_identity import earlier_keys, key_material, run_key
from monitorbench.pipeline.prepare import typed_config

# The config sections hashed into run keys (launch/run_identity) and generator identities
# (generation/model_generator, generation/harnesses/generator).
IDENTITY_BEARING = {TaskConfig, AccessConfig, SandboxConfig, LimitsConfig, ConditionConfig,
                    ScaffoldConfig, HarnessConfig, HarnessLimits}


def test_every_identity_bearing_config_declares_each_field_one_way() -> None:
    declaring = {c for _, c in inspect.getmembers(config_module, inspect.isclass)
                 if dataclasses.is_dataclass(c) and hasattr(c, "IDENTITY")}
    assert declaring == IDENTITY_BEARING
    for cls in IDENTITY_BEARING:
        assert undeclared_fields(cls) == [], cls.__name__
        assert not set(cls.IDENTITY) & set(cls.NOT_IDENTITY), cls.__name__


def test_a_planted_field_is_caught_until_it_is_declared() -> None:
    planted = dataclasses.make_dataclass("PlantedTask", [("new_knob", int, 0)],
                                         bases=(TaskConfig,))
    assert undeclared_fields(planted) == ["new_knob"]
    planted.NOT_IDENTITY = (*TaskConfig.NOT_IDENTITY, "new_knob")
    assert undeclared_fields(planted) == []


def _key(overrides: list[str]) -> str:
    return run_key(key_material(typed_config(compose_config(overrides)), {"g": 1}, []))


@pytest.mark.parametrize("override,changes", [
    ("task.infra_retries=5", False), ("task.max_infra_failure_pct=10", False),
    ("sandbox.workers=1", False), ("sandbox.image=other:1", False),
    ("sandbox.limits.wall_seconds=3", True), ("task.rounds.state=1", True),
    ("access=parsed", True), ("task.max_tasks_per_type=4", True),
])
def test_the_run_key_changes_exactly_with_declared_identity(override: str,
                                                            changes: bool) -> None:
    assert (_key([override]) != _key([])) is changes


def test_the_docker_image_is_part_of_a_docker_run_only() -> None:
    base = ["sandbox=docker"]
    assert _key(base + ["sandbox.image=other:1"]) != _key(base)


def test_each_earlier_version_gives_a_distinct_key_to_adopt_from() -> None:
    material = key_material(typed_config(compose_config([])), {"g": 1}, [])
    keys = [run_key(material), *earlier_keys(material)]
    assert len(keys) == 4 == len(set(keys))


def test_other_sandbox_code_gives_another_run_key_and_verdict_setting(tmp_path,
                                                                      monkeypatch) -> None:
    """A changed worker can change a verdict (docker's cases once saw /proc): the run key and
    the verdict cache's setting hash the sandbox package's code, so a run of other sandbox code
    neither resumes nor reuses this one's verdicts; only runs from before the code joined the
    key (version 3) are adopted across it."""
    import shutil

    from monitorbench.judging import verdict_cache
    from monitorbench.sandbox.base import SandboxSpec
    from monitorbench.sandbox.code_identity import SANDBOX_DIR, sandbox_code_hash

    same, copy = tmp_path / "same", tmp_path / "edited"
    for d in (same, copy):
        shutil.copytree(SANDBOX_DIR, d, ignore=shutil.ignore_patterns("__pycache__"))
    worker = copy / "worker.py"
    worker.write_text(worker.read_text() + "\n# one more line\n")
    assert sandbox_code_hash(same) == sandbox_code_hash() != sandbox_code_hash(copy)

    material = key_material(typed_config(compose_config([])), {"g": 1}, [])
    assert material["sandbox_code"] == sandbox_code_hash()
    other = {**material, "sandbox_code": sandbox_code_hash(copy)}
    assert run_key(other) != run_key(material)
    assert run_key(other) not in earlier_keys(material)
    assert earlier_keys(other)[0] == earlier_keys(material)[0]  # version 3: both adopt it

    spec = SandboxSpec()
    setting = verdict_cache.setting_hash(spec, "bwrap", None)
    # the framework as it would run from the edited copy of the package
    monkeypatch.setattr(verdict_cache, "sandbox_code_hash", lambda: sandbox_code_hash(copy))
    assert verdict_cache.setting_hash(spec, "bwrap", None) != setting


def test_identity_is_plain_data_with_enums_as_values() -> None:
    data = identity(typed_config(compose_config([])).access)
    assert data["monitor"] == "code" and data["tool_call"] == "raw_parsed"
