"""Shared fixtures: real suites built (and audited) once per test session.

Several test files need the same real slice; building it once here instead of once per module is
what keeps the whole suite within its time budget (each build is tens of seconds on 2 cores).
A fixture's suite is read-only for its users: a test that changes a suite builds its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def suites_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default BFCL suite, built from the installed bfcl-eval package (seconds)."""
    from monitorbench.audit.prepare import build_suite

    root = tmp_path_factory.mktemp("suites")
    build_suite(root, "bfcl")
    return root


@dataclass(frozen=True)
class CodeSlice:
    """The one-bug toolz code slice, built and audited in this process by the fixture."""

    root: Path
    c6_gradings: int  # cases the mutation check (C6) graded during the build and audit


@pytest.fixture(scope="session")
def code_slice(tmp_path_factory: pytest.TempPathFactory) -> CodeSlice:
    """`task=small`'s code slice (toolz, one task) with its V4V audit (about 70 s)."""
    from monitorbench.audit.prepare import build_suite
    from monitorbench.sources.code.mutants import MUTANTS

    before = MUTANTS.graded_here
    root = build_suite(tmp_path_factory.mktemp("code_slice"), "code",
                       {"libraries": ["toolz"], "tasks_per_library": 1})
    return CodeSlice(root, MUTANTS.graded_here - before)


@pytest.fixture(scope="session")
def agentdojo_two_per_suite(tmp_path_factory: pytest.TempPathFactory):
    """Two user tasks per AgentDojo suite, seed 0, built for real (about 40 s); banking's first
    task is excluded as unsolvable, so banking contributes user tasks 1 and 2."""
    from monitorbench.sources.agentdojo.build import build_agentdojo_suite
    from monitorbench.suites.format import load_suite

    root = tmp_path_factory.mktemp("agentdojo") / "suite"
    build_agentdojo_suite(root, seed=0, max_tasks=2)
    return load_suite(root)
