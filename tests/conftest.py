"""Shared fixtures: real suites built (and audited) once per test run, and the plan that runs
the suite on every core (README line 2: ``-n 2 --dist loadgroup``, pytest-xdist).

Several test files need the same real slice; building it once here instead of once per module is
what keeps the whole suite within its time budget (each build is tens of seconds on 2 cores).
Under xdist each worker is its own process with its own session fixtures, so a build-once
fixture builds into a directory all workers share (``shared_dir``) under a file lock with a done
marker (``build_once``): the first worker builds, the other waits and reuses it.
A fixture's suite is read-only for its users: a test that changes a suite builds its own.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest
from docker_engine import (docker_image, finish, needs_docker,  # noqa: F401
                           start_build_in_background)
from filelock import FileLock

ROOT = Path(__file__).resolve().parents[1]
WORKER = os.environ.get("PYTEST_XDIST_WORKER")  # "gw0", "gw1", ... under xdist, else None
# Both workers share the code sources' cache (outputs/cache by default): its downloads, unpacks
# and library builds are each done once under a file lock, the other worker waiting and reusing.


# Session fixtures that must run once per test run, not once per worker: their users share a group.
SINGLETONS = {"slurm_cluster": "slurm"}  # one local Slurm cluster (2 CPUs) is enough
GROUP_SECONDS = "monitorbench/xdist_group_seconds"  # pytest cache key: the last run's seconds
_SLOW_GUESS_S = 60  # a group's weight per `slow` test when no earlier run was timed


def _group(item: pytest.Item) -> str:
    return str(item.get_closest_marker("xdist_group").args[0])


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook appends each group to the node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup``, keep each module on one worker (its module-scoped fixtures
    build real slices: split across workers they would be built twice) unless its tests name an
    ``xdist_group`` of their own (the users of a fixture in SINGLETONS share its group), and
    hand out the longest groups first (by the last run's seconds in the pytest cache, else by
    the measured seconds committed in tests/xdist_group_seconds.json, else by their `slow`
    tests) so that no long group starts last and runs alone (on a fresh clone the 309 s OpenClaw
    module once started last)."""
    if not WORKER or not config.getoption("loadgroup", False):
        return
    for item in items:
        if needs_docker(item) and item.nodeid.startswith("tests/sandbox/"):
            # one light group, so it starts late: the image builds meanwhile (docker tests of
            # other modules stay with their module's fixtures and wait on the build if early)
            item.add_marker(pytest.mark.xdist_group("docker"))
        for fixture, group in SINGLETONS.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
    cache = getattr(config, "cache", None)
    timed: dict[str, float] = cache.get(GROUP_SECONDS, {}) if cache is not None else {}
    weight: dict[str, float] = {}
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        g = _group(item)
        first.setdefault(g, i)
        weight[g] = weight.get(g, 0.0) + (_SLOW_GUESS_S if item.get_closest_marker("slow") else 1)
    measured = json.loads((ROOT / "tests" / "xdist_group_seconds.json").read_text())
    weight.update({g: float(s) for g, s in {**measured, **timed}.items() if g in weight})
    order = {id(item): i for i, item in enumerate(items)}
    items.sort(key=lambda it: (-weight[_group(it)], first[_group(it)], order[id(it)]))


def pytest_configure(config: pytest.Config) -> None:
    """Keep the order pytest_collection_modifyitems gives. pytest-xdist 3.8's loadscope and
    loadgroup schedulers re-sort the groups by their number of tests unless told not to: the
    146 quick config tests then went first and the 37 s SmolLM2 group last, alone for its last
    17 s (measured on a fresh clone at stop 22)."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


_seconds: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """On the xdist controller: add up each group's seconds (setup, call and teardown)."""
    if not WORKER and "@" in report.nodeid:
        group = report.nodeid.rsplit("@", 1)[1]
        _seconds[group] = _seconds.get(group, 0.0) + report.duration


def pytest_collection_finish(session: pytest.Session) -> None:
    start_build_in_background(session)   # the docker engine and image, if a test needs them


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    finish(exitstatus, controller=not WORKER)   # the docker build, then the engine
    if _seconds and getattr(session.config, "cache", None) is not None:
        session.config.cache.set(GROUP_SECONDS, {g: round(s, 1) for g, s in _seconds.items()})


def shared_dir(factory: pytest.TempPathFactory, name: str) -> Path:
    """A session directory: under xdist the same one for every worker of this run (beside the
    workers' own base temp directories), else a fresh one as ``mktemp`` gives."""
    if not WORKER:
        return factory.mktemp(name)
    path = factory.getbasetemp().parent / name
    path.mkdir(exist_ok=True)
    return path


def build_once(factory: pytest.TempPathFactory, name: str,
               build: Callable[[Path], dict[str, Any]]) -> tuple[Path, dict[str, Any]]:
    """``build(directory)`` run once per test run, by whichever worker asks first, the others
    waiting on the lock; its JSON result (what only the building process could measure) is
    kept in the done marker and handed to every worker."""
    path = shared_dir(factory, name)
    done = path.with_name(f"{path.name}.done.json")
    with FileLock(str(path.with_name(f"{path.name}.lock"))):
        if done.is_file():
            return path, json.loads(done.read_text())
        result = build(path)
        done.write_text(json.dumps(result))
    return path, result


@pytest.fixture
def one_torch_thread():
    """torch on one thread for a test that runs a real model in this process. Under xdist the
    other worker is busy, and torch's two threads then spin waiting for each other: SmolLM2's
    16-token decode took 14.2 CPU-s on 2 threads and 2.3 on 1, a 1000-token prefill 10.4 and 5.5,
    and one thread was faster in wall time too (machine load ~7). The replies' path is the same."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def suites_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default BFCL suite, built from the installed bfcl-eval package (seconds); the
    registry's own build lock makes the second worker wait for the first and reuse its build."""
    from monitorbench.audit.prepare import build_suite

    root = shared_dir(tmp_path_factory, "suites")
    build_suite(root, "bfcl")
    return root


@dataclass(frozen=True)
class CodeSlice:
    """The one-bug toolz code slice, built and audited by the fixture."""

    root: Path
    c6_gradings: int  # cases the mutation check (C6) graded in the process that built it
    bug_searches: int  # mutation searches (build.find_bugs) its build ran: 0 when replaying pins


SMALL_CODE = {"libraries": ["toolz"], "tasks_per_library": 1}  # conf/task/small.yaml's


@pytest.fixture(scope="session")
def small_suites_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A suites directory for `task=small` sweeps (`paths.suites=`): the fixtures below build
    their slices into it, so a sweep there rebuilds none of them. Kept apart from `suites_dir`,
    whose listing tests/test_cli.py checks."""
    return shared_dir(tmp_path_factory, "small_suites")


@pytest.fixture(scope="session")
def code_slice(tmp_path_factory: pytest.TempPathFactory, small_suites_dir: Path) -> CodeSlice:
    """`task=small`'s code slice (toolz, one task) with its V4V audit (about 70 s), built once
    per run before any sweep could build it; `c6_gradings` and `bug_searches` are counted in
    the building process and handed on to the other workers."""
    from unittest import mock

    from monitorbench.audit.prepare import build_suite
    from monitorbench.sources.code import build as code_build
    from monitorbench.sources.code.mutants import MUTANTS

    def build(_: Path) -> dict[str, Any]:
        before = MUTANTS.graded_here
        with mock.patch.object(code_build, "find_bugs", wraps=code_build.find_bugs) as search:
            root = build_suite(small_suites_dir, "code", SMALL_CODE)
        return {"root": str(root), "c6_gradings": MUTANTS.graded_here - before,
                "bug_searches": search.call_count}

    _, built = build_once(tmp_path_factory, "code_slice", build)
    return CodeSlice(Path(built["root"]), built["c6_gradings"], built["bug_searches"])


@pytest.fixture(scope="session")
def agentdojo_one_per_suite(small_suites_dir: Path):
    """`task=small`'s AgentDojo slice (the first solvable user task of each suite, seed 0),
    built and audited once per run (the registry's build lock serialises the workers)."""
    from monitorbench.audit.prepare import ensure_suite

    return ensure_suite(small_suites_dir, "agentdojo", {"max_tasks": 1})


@pytest.fixture(scope="session")
def agentdojo_two_per_suite(tmp_path_factory: pytest.TempPathFactory):
    """Two user tasks per AgentDojo suite, seed 0, built for real once per run (about 40 s);
    banking's first task is excluded as unsolvable, so banking contributes user tasks 1 and 2."""
    from monitorbench.sources.agentdojo.build import build_agentdojo_suite
    from monitorbench.suites.format import load_suite

    def build(path: Path) -> dict[str, Any]:
        build_agentdojo_suite(path / "suite", seed=0, max_tasks=2)
        return {}

    path, _ = build_once(tmp_path_factory, "agentdojo", build)
    return load_suite(path / "suite")


@pytest.fixture(scope="session")
def store_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty MLflow SQLite store that MLflow created (schema migrated to head) once per test
    run: tests that are not about creating a store copy it (tests/mlflow_server.py's
    ``seed_store``) instead of paying ~4 CPU-seconds of migrations each."""
    from mlflow_server import STORE, make_store_template

    def build(path: Path) -> dict[str, Any]:
        make_store_template(path)
        return {}

    path, _ = build_once(tmp_path_factory, "mlflow_store_template", build)
    return path / STORE
