"""Below the entry point a job holds only the typed config (``monitorbench/__main__.py`` converts
Hydra's once). What the job writes and logs from it must be what Hydra's config gave: the
config.yaml beside its judgments, the MLflow params (and so the job key that finds a re-run's
MLflow run) and its run name. A field the conversion dropped or printed differently would
change all three; these tests compare them with Hydra's composed config for every generator and
experiment the repository ships."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf

from monitorbench.compose import compose_config, group_options
from monitorbench.launch.run import config_yaml
from monitorbench.pipeline.prepare import typed_config
from monitorbench.tracking.job import axis_labels, job_params
from monitorbench.tracking.mlflow_logger import flatten

CONFIGS = ([[f"generator={g}"] for g in group_options("generator")]
           + [[f"+experiment={e}"] for e in group_options("experiment")]
           + [["task=mixed_small", "scaffold=mini_swe", "access=parsed"]])


@pytest.mark.parametrize("overrides", CONFIGS, ids=" ".join)
def test_the_typed_config_writes_and_logs_what_hydras_config_gave(overrides: list[str]) -> None:
    cfg = compose_config(overrides)
    conf = typed_config(cfg)
    assert config_yaml(conf) == OmegaConf.to_yaml(cfg, resolve=True)
    hydra_params = flatten(OmegaConf.to_container(cfg, resolve=True, enum_to_str=True))
    assert job_params(conf) == {k: v for k, v in hydra_params.items()
                                if not k.startswith("paths.")}


def test_a_swept_key_is_labelled_as_hydras_config_printed_it() -> None:
    """A sweep over a list or an enum names its runs by the value as the YAML shows it, not as
    a dataclass repr: ``suites=[{'name': 'bfcl', ...}]``, ``effort=Effort.HIGH``."""
    cfg = compose_config(["task=mixed_small", "generator.condition.effort=HIGH"])
    axes = ("task.suites", "generator.condition.effort", "sandbox.backend", "scaffold")
    labels = axis_labels(typed_config(cfg), axes, {"scaffold": "oneshot"})
    assert labels == (f"suites={OmegaConf.select(cfg, 'task.suites')}",
                      f"effort={OmegaConf.select(cfg, 'generator.condition.effort')}",
                      "backend=bwrap", "oneshot")
    assert labels[0].startswith("suites=[{'name': 'bfcl'")
