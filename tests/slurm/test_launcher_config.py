"""The launcher configs compose into what submitit needs (fast: no cluster, no jobs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from monitorbench.config import register_configs
from slurm_helpers import ROOT

register_configs()  # the typed schema the root config's defaults list names


def _launcher(tmp_path: Path, overrides: list[str]) -> dict:
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose("config", overrides=[f"paths.outputs={tmp_path}", *overrides],
                      return_hydra_config=True)
    # hydra.sweep.dir uses ${now:...}, which only a running hydra app resolves
    cfg.hydra.sweep.dir = str(tmp_path / "hydra" / "sweep")
    return OmegaConf.to_container(cfg.hydra.launcher, resolve=True)


def test_slurm_launcher_requeues_and_sizes_jobs_from_the_sandbox(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MONITORBENCH_SLURM_PARTITION", "cpu")
    monkeypatch.delenv("MONITORBENCH_SLURM_ACCOUNT", raising=False)
    setup = 'hydra.launcher.setup=["module load python/3.11","source /v/bin/activate"]'
    lc = _launcher(tmp_path, ["hydra/launcher=slurm", "sandbox.workers=3", setup])
    assert lc["_target_"].endswith("SlurmLauncher")
    assert lc["partition"] == "cpu" and lc["account"] is None
    assert lc["cpus_per_task"] == 3
    assert lc["max_num_timeout"] > 0  # timeouts are requeued, not lost
    assert lc["signal_delay_s"] < lc["timeout_min"] * 60
    assert Path(lc["submitit_folder"]).is_relative_to(tmp_path)  # under outputs
    assert lc["setup"] == ["module load python/3.11", "source /v/bin/activate"]


def test_local_launcher_uses_submitit_local(tmp_path: Path) -> None:
    lc = _launcher(tmp_path, ["hydra/launcher=local", "sandbox.workers=2"])
    assert lc["_target_"].endswith("LocalLauncher")
    assert lc["cpus_per_task"] == 2
    assert Path(lc["submitit_folder"]).is_relative_to(tmp_path)
