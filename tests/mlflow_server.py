"""A real `mlflow server` on loopback for tests: started in its own process group, stopped in
teardown (SIGTERM, then SIGKILL), so no server outlives the session even when a test fails.

Import the fixture into a test module with ``from mlflow_server import mlflow_server``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

HEALTH_TIMEOUT_S = 120  # measured 6-16 s when idle; the shared test machine can be much slower


@dataclass
class MlflowServer:
    url: str
    root: Path
    proc: subprocess.Popen

    def client(self):
        from mlflow.tracking import MlflowClient

        return MlflowClient(tracking_uri=self.url)


def free_port() -> int:
    """A free loopback port (own copy: `from conftest import` can resolve to a sibling
    directory's conftest when the whole suite is collected)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


def start_server(root: Path, port: int | None = None) -> MlflowServer:
    """Start `mlflow server` with a SQLite store and proxied artifacts under ``root``, on
    ``port`` (a free one when None; a restarted server takes its old port)."""
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(root / "server.log", "w")
    env = dict(os.environ, MLFLOW_SERVER_ENABLE_JOB_EXECUTION="false")
    env.pop("MLFLOW_TRACKING_URI", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "mlflow", "server", "--backend-store-uri",
         f"sqlite:///{root}/mlflow.db", "--artifacts-destination", str(root / "artifacts"),
         "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    server = MlflowServer(url, root, proc)
    deadline = time.time() + HEALTH_TIMEOUT_S
    while not _healthy(url):
        if proc.poll() is not None or time.time() > deadline:
            stop_server(server)
            tail = (root / "server.log").read_text()[-3000:]
            raise RuntimeError(f"mlflow server on {url} not healthy (exit {proc.poll()}):\n{tail}")
        time.sleep(0.5)
    return server


def stop_server(server: MlflowServer) -> None:
    """Stop the server's whole process group (it forks uvicorn/gunicorn workers)."""
    if server.proc.poll() is None:
        try:
            os.killpg(server.proc.pid, signal.SIGTERM)
            server.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.proc.pid, signal.SIGKILL)
            server.proc.wait()
    try:  # workers left behind by a crashed server process
        os.killpg(server.proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.fixture(scope="session")
def mlflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MlflowServer]:
    server = start_server(tmp_path_factory.mktemp("mlflow-server"))
    try:
        yield server
    finally:
        stop_server(server)
