"""Helpers for tests that run whole jobs: the repo root and configs composed like the CLI's.

Kept out of conftest.py on purpose: several test folders have their own conftest.py, and in a
full run ``from conftest import ...`` can resolve to a sibling folder's module.
"""

from __future__ import annotations

from pathlib import Path

from hydra import compose, initialize_config_dir

from monitorbench.config import MonitorbenchConfig, register_configs
from monitorbench.pipeline.prepare import typed_config

ROOT = Path(__file__).resolve().parents[1]
register_configs()


def compose_cfg(outputs: Path, suites: Path, overrides: list[str]) -> MonitorbenchConfig:
    """The typed config a CLI run's job gets from its entry point, with outputs and the MLflow
    store under ``outputs``."""
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        return typed_config(compose("config", overrides=[
            f"paths.outputs={outputs}", f"paths.suites={suites}",
            f"tracking.tracking_uri=sqlite:///{outputs}/mlflow.db", *overrides]))
