"""Config composition through Hydra's compose API: what users get from the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf import OmegaConf
from omegaconf.errors import ConfigKeyError, ValidationError

from monitorbench.config import AccessMode, GeneratorKind, register_configs

CONF = str(Path(__file__).resolve().parents[1] / "conf")
register_configs()


def _compose(overrides: list[str], return_hydra: bool = False):
    with initialize_config_dir(config_dir=CONF, version_base="1.3"):
        return compose("config", overrides=overrides, return_hydra_config=return_hydra)


def test_default_config_composes_to_the_typed_schema() -> None:
    cfg = _compose([])
    assert cfg.generator.kind == GeneratorKind.scripted
    assert cfg.access.tool_call == AccessMode.raw_parsed
    assert [s.name for s in cfg.task.suites] == ["bfcl"]
    assert cfg.sandbox.backend == "bwrap"
    obj = OmegaConf.to_object(cfg)
    assert type(obj).__name__ == "MonitorbenchConfig"


@pytest.mark.parametrize("generator", ["always_accept", "always_reject", "schema_check"])
@pytest.mark.parametrize("access", ["raw_parsed", "parsed", "raw", "no_exec"])
def test_every_generator_and_access_option_composes(generator: str, access: str) -> None:
    cfg = _compose([f"generator={generator}", f"access={access}"])
    assert cfg.generator.name == generator
    assert cfg.access.name == access


def test_g4adv_experiment_is_a_multirun_over_generators_and_access() -> None:
    cfg = _compose(["+experiment=g4adv"], return_hydra=True)
    assert cfg.experiment_name == "g4adv"
    assert str(cfg.hydra.mode) == "RunMode.MULTIRUN"
    params = cfg.hydra.sweeper.params
    assert set(params.generator.split(",")) == {"always_accept", "always_reject", "schema_check"}
    assert set(params.access.split(",")) == {"raw_parsed", "parsed", "raw"}


def test_quickstart_experiment_selects_schema_check() -> None:
    cfg = _compose(["+experiment=quickstart"])
    assert cfg.generator.baseline == "schema_check"
    assert cfg.experiment_name == "quickstart"


def test_misspelt_key_names_the_full_key() -> None:
    with pytest.raises(ConfigCompositionException) as ei:
        _compose(["sandbox.limits.wall_secondz=3"])
    assert "wall_secondz" in str(ei.value.__cause__ or ei.value)


def test_wrong_enum_value_lists_the_allowed_values() -> None:
    with pytest.raises((ConfigCompositionException, ValidationError)) as ei:
        _compose(["access.tool_call=everything"])
    text = str(ei.value.__cause__ or ei.value)
    assert "everything" in text and "raw_parsed" in text


def test_wrong_type_is_rejected_at_compose_time() -> None:
    with pytest.raises((ConfigCompositionException, ValidationError, ConfigKeyError)) as ei:
        _compose(["sandbox.limits.memory_mb=lots"])
    assert "memory_mb" in str(ei.value.__cause__ or ei.value)
