"""A real `mlflow server` on loopback for tests: started in its own process group, stopped in
teardown (SIGTERM, then SIGKILL), so no server outlives the session even when a test fails.

Import the fixture into a test module with ``from mlflow_server import mlflow_server``.

A new SQLite store costs MLflow ~4 CPU-seconds of schema migrations (68 alembic scripts), paid by
whichever process opens it first. Tests that are not about creating a store start from a copy of
one store MLflow created once per test run (:func:`seed_store`; conftest's ``store_template``):
a real, empty MLflow store at the schema's head, which MLflow opens without migrating. Creating
a store from nothing stays tested (tests/test_mlflow_down.py's twin jobs, and every test that
does not seed).
"""

from __future__ import annotations

import os
import shutil
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
HEALTH_POLL_S = 0.1     # a probe is one loopback request: polling often costs nothing
STORE = "mlflow.db"     # the SQLite file a job (``outputs/mlflow.db``) or server here uses


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


def make_store_template(directory: Path) -> Path:
    """An empty MLflow SQLite store created (schema migrated to head) by MLflow itself."""
    from mlflow.tracking import MlflowClient

    db = directory / STORE
    MlflowClient(tracking_uri=f"sqlite:///{db}").search_experiments()
    return db


def seed_store(template: Path, directory: Path) -> Path:
    """Copy the empty store ``template`` to ``directory/mlflow.db`` (where a job with no
    tracking URI, or :func:`start_server`, opens its store), unless a store is there already."""
    directory.mkdir(parents=True, exist_ok=True)
    db = directory / STORE
    if not db.exists():
        shutil.copyfile(template, db)
        # MLflow's Default experiment (jobs without +experiment log there) keeps its artifacts
        # beside the copy, as monitorbench.tracking.mlflow_logger.client_for creates a store
        import sqlite3

        with sqlite3.connect(db) as con:
            con.execute("UPDATE experiments SET artifact_location = ? WHERE experiment_id = 0",
                        ((directory / "mlartifacts" / "0").resolve().as_uri(),))
    return db


def start_server(root: Path, port: int | None = None) -> MlflowServer:
    """Start `mlflow server` with a SQLite store and proxied artifacts under ``root``, on
    ``port`` (a free one when None; a restarted server takes its old port). A store already at
    ``root`` (:func:`seed_store`'s copy) is opened without migrations."""
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(root / "server.log", "w")
    env = dict(os.environ, MLFLOW_SERVER_ENABLE_JOB_EXECUTION="false")
    env.pop("MLFLOW_TRACKING_URI", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "mlflow", "server", "--backend-store-uri",
         f"sqlite:///{root}/{STORE}", "--artifacts-destination", str(root / "artifacts"),
         "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    server = MlflowServer(url, root, proc)
    deadline = time.time() + HEALTH_TIMEOUT_S
    while not _healthy(url):
        if proc.poll() is not None or time.time() > deadline:
            stop_server(server)
            tail = (root / "server.log").read_text()[-3000:]
            raise RuntimeError(f"mlflow server on {url} not healthy (exit {proc.poll()}):\n{tail}")
        time.sleep(HEALTH_POLL_S)
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


@pytest.fixture
def job_in_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """For a job run in the test's process: no ``$MLFLOW_TRACKING_URI`` (the job picks its store
    as the CLI jobs of these tests do), and the HTTP limits a tracked job puts in
    ``os.environ`` (``tracking.connection.configure_http``) taken back after the test."""
    from monitorbench.tracking.connection import _HTTP_ENV

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    saved = {k: os.environ.get(k) for k in _HTTP_ENV}
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def mlflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MlflowServer]:
    server = start_server(tmp_path_factory.mktemp("mlflow-server"))
    try:
        yield server
    finally:
        stop_server(server)
