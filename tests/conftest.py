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


SMALL_CODE = {"libraries": ["toolz"], "tasks_per_library": 1}  # conf/task/small.yaml's


@pytest.fixture(scope="session")
def small_suites_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A suites directory for `task=small` sweeps (`paths.suites=`): the fixtures below build
    their slices into it, so a sweep there rebuilds none of them. Kept apart from `suites_dir`,
    whose listing tests/test_cli.py checks."""
    return tmp_path_factory.mktemp("small_suites")


@pytest.fixture(scope="session")
def code_slice(small_suites_dir: Path) -> CodeSlice:
    """`task=small`'s code slice (toolz, one task) with its V4V audit (about 70 s), built in
    this process (so `c6_gradings` counts this build) before any sweep could build it."""
    from monitorbench.audit.prepare import build_suite
    from monitorbench.sources.code.mutants import MUTANTS

    before = MUTANTS.graded_here
    root = build_suite(small_suites_dir, "code", SMALL_CODE)
    return CodeSlice(root, MUTANTS.graded_here - before)


@pytest.fixture(scope="session")
def agentdojo_one_per_suite(small_suites_dir: Path):
    """`task=small`'s AgentDojo slice (the first solvable user task of each suite, seed 0),
    built and audited once per session."""
    from monitorbench.audit.prepare import ensure_suite

    return ensure_suite(small_suites_dir, "agentdojo", {"max_tasks": 1})


@pytest.fixture(scope="session")
def agentdojo_two_per_suite(tmp_path_factory: pytest.TempPathFactory):
    """Two user tasks per AgentDojo suite, seed 0, built for real (about 40 s); banking's first
    task is excluded as unsolvable, so banking contributes user tasks 1 and 2."""
    from monitorbench.sources.agentdojo.build import build_agentdojo_suite
    from monitorbench.suites.format import load_suite

    root = tmp_path_factory.mktemp("agentdojo") / "suite"
    build_agentdojo_suite(root, seed=0, max_tasks=2)
    return load_suite(root)
