"""Shared fixtures: a real BFCL suite built (and audited) once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def suites_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default BFCL suite, built from the installed bfcl-eval package (seconds)."""
    from monitorbench.audit.prepare import build_suite

    root = tmp_path_factory.mktemp("suites")
    build_suite(root, "bfcl")
    return root
