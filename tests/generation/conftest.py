"""Fixtures for generation tests (helpers live in gen_helpers.py, a unique module name)."""

from __future__ import annotations

import json
import os
import shutil
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


@pytest.fixture(scope="session")
def install_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One install directory per test run: each harness program installs once (Pi ~30 s,
    mini-swe-agent 1-3 min) and is shared by every harness test. Under xdist every worker uses
    the same one (installs are atomic, under a file lock per harness: the second worker waits
    for the first's install and reuses it)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return tmp_path_factory.mktemp("harnesses")
    root = tmp_path_factory.getbasetemp().parent / "harnesses"
    root.mkdir(exist_ok=True)
    return root


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
