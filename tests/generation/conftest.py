"""Fixtures for generation tests (helpers live in gen_helpers.py, a unique module name)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest

from gen_helpers import TASK_PUBLIC, ChatServer, Script
from monitorbench.suites.format import Task


@pytest.fixture
def chat_server() -> Iterator[Callable[..., ChatServer]]:
    servers: list[ChatServer] = []

    def start(script: Script, delay: float = 0.0) -> ChatServer:
        servers.append(ChatServer(script, delay))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


@pytest.fixture
def task_dir(tmp_path: Path) -> tuple[Task, Path]:
    public = tmp_path / "suite" / "public" / "t1"
    public.mkdir(parents=True)
    (public / "task.json").write_text(json.dumps(
        {"task_id": "t1", "task_type": "tool_call", "source": "test", **TASK_PUBLIC}, indent=1))
    (public / "notes.md").write_text("City names are case-insensitive.\n")
    (tmp_path / "suite" / "hidden").mkdir()
    (tmp_path / "suite" / "hidden" / "secret.txt").write_text("LABELS")
    return Task("t1", "tool_call", "test", TASK_PUBLIC), public


INSTALL_ROOT = pytest.StashKey[Path]()
# Installs one harness program where the tests will look for it (argv: harness, root).
_PREFETCH = ("import sys\nfrom pathlib import Path\n"
             "from monitorbench.generation.harnesses.install import ensure_installed\n"
             "from monitorbench.generation.harnesses.registry import HARNESSES\n"
             "ensure_installed(sys.argv[1], HARNESSES[sys.argv[1]].package, Path(sys.argv[2]))\n")
_prefetching: list[subprocess.Popen[bytes]] = []


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "installs(*harnesses): the harness programs a test "
                            "installs under install_root (prefetched from collection on)")


def _install_root(config: pytest.Config) -> Path:
    """One install directory per test run: each harness program installs once (Pi ~30 s,
    mini-swe-agent 1-3 min) and is shared by every harness test. Under xdist every worker uses
    the same one (installs are atomic, under a file lock per harness: the second worker waits
    for the first's install and reuses it)."""
    if INSTALL_ROOT not in config.stash:
        factory: pytest.TempPathFactory = config._tmp_path_factory  # type: ignore[attr-defined]
        if not os.environ.get("PYTEST_XDIST_WORKER"):
            config.stash[INSTALL_ROOT] = factory.mktemp("harnesses")
        else:
            root = factory.getbasetemp().parent / "harnesses"
            root.mkdir(exist_ok=True)
            config.stash[INSTALL_ROOT] = root
    return config.stash[INSTALL_ROOT]


def _harnesses_of(item: pytest.Item) -> set[str]:
    """The harness programs ``item`` installs: its ``installs`` marker, else its ``name``
    parameter when that names a registered harness."""
    from monitorbench.generation.harnesses.registry import HARNESSES

    if "install_root" not in getattr(item, "fixturenames", ()):
        return set()
    marker = item.get_closest_marker("installs")
    if marker is not None:
        return set(marker.args)
    callspec = getattr(item, "callspec", None)
    name = callspec.params.get("name") if callspec is not None else None
    return {name} if name in HARNESSES and not HARNESSES[name].unsupported else set()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start installing every harness program the selected tests need, each in its own
    background process, as soon as collection ends. An install mostly waits on the network
    (mini-swe-agent: ~250 s wall for ~80 s CPU), and the tests used to run them one after the
    other, each when first needed; now they overlap with each other and with the tests before
    them. A test still calls ``ensure_installed``, which waits on the same per-harness lock and
    reuses the result (or installs and raises itself if the prefetch failed)."""
    if session.config.option.collectonly or os.environ.get("PYTEST_XDIST_WORKER",
                                                             "gw0") != "gw0":
        return  # every xdist worker collects every test: the first one starts the installs
    needed = set().union(*(_harnesses_of(item) for item in session.items))
    if not needed:
        return
    root = _install_root(session.config)
    for name in sorted(needed):
        with open(root / f".prefetch-{name}.log", "ab") as log:
            _prefetching.append(subprocess.Popen(
                [sys.executable, "-c", _PREFETCH, name, str(root)], stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A passing run waits for its prefetches (the other worker may still need them); a failed
    or interrupted one ends them, so no install outlives the run."""
    for proc in _prefetching:
        if proc.poll() is None and exitstatus != 0:
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()


@pytest.fixture(scope="session")
def install_root(pytestconfig: pytest.Config) -> Path:
    """The run's harness install directory (see ``_install_root``)."""
    return _install_root(pytestconfig)


@pytest.fixture(scope="session")
def runtimes_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A runtimes package with an ``echo`` runtime whose run_public echoes its arguments and
    enforces the per-judgment budget the scaffold passes in runtime_config."""
    from monitorbench.sandbox.runtimes import RUNTIMES_DIR

    runtimes = tmp_path_factory.mktemp("rt") / "runtimes"
    runtimes.mkdir()
    shutil.copy(RUNTIMES_DIR / "__init__.py", runtimes / "__init__.py")
    (runtimes / "echo.py").write_text(
        "class EchoEnv:\n"
        "    def __init__(self, budget):\n"
        "        self.executions = 0\n"
        "        self.budget = budget\n"
        "    def run_public(self, calls):\n"
        "        if self.executions >= self.budget:\n"
        "            raise RuntimeError('BudgetExceeded: run_public')\n"
        "        self.executions += 1\n"
        "        return {'echo': calls, 'n': len(calls)}\n"
        "def make_env(task, public_dir, config):\n"
        "    return EchoEnv(config.get('budget', 20))\n")
    return runtimes


@pytest.fixture(scope="session")
def sandbox(runtimes_dir: Path):
    """The project's real sandbox (bwrap, unshare fallback) with the echo runtime available."""
    factory = pytest.importorskip("monitorbench.sandbox.factory")
    return factory.make_sandbox("bwrap", runtimes_dir=runtimes_dir)
