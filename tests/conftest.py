"""Shared fixtures: a real BFCL suite built once per session, composed configs, free ports."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from monitorbench.config import register_configs

ROOT = Path(__file__).resolve().parents[1]
register_configs()


@pytest.fixture(scope="session")
def suites_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default BFCL suite, built from the installed bfcl-eval package (a few seconds)."""
    from monitorbench.suites.registry import build_suite

    root = tmp_path_factory.mktemp("suites")
    build_suite(root, "bfcl")
    return root


def compose_cfg(outputs: Path, suites: Path, overrides: list[str]):
    """The config a CLI run would get, with outputs and the MLflow store under ``outputs``."""
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        return compose("config", overrides=[
            f"paths.outputs={outputs}", f"paths.suites={suites}",
            f"tracking.tracking_uri=sqlite:///{outputs}/mlflow.db", *overrides])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
