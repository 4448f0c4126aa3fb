"""The tests' own docker engine keeps its sockets at a short path, whatever the checkout's path
(issue 49): containerd puts ``containerd-debug.sock`` under dockerd's exec root, and a Unix
socket path over 104-108 bytes failed the engine's start, and with it the whole test run, from a
checkout at a 94-character path."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from docker_engine import engine_dirs

SOCKETS = ("docker.sock", "exec/containerd/containerd-debug.sock",
           "exec/containerd/containerd.sock.ttrpc")


@pytest.mark.parametrize("length", [20, 150, 400])
def test_engine_sockets_fit_a_unix_socket_path_from_any_checkout(
        length: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deep = tmp_path / ("c" * max(1, length - len(str(tmp_path)) - 1))
    monkeypatch.setenv("MONITORBENCH_CACHE", str(deep))
    data, run = engine_dirs()
    assert data == deep / "docker-engine"  # the images stay in the checkout's cache
    for name in SOCKETS:
        path = run / name
        assert len(str(path).encode()) < 100, path
        path.parent.mkdir(parents=True, exist_ok=True)
        with socket.socket(socket.AF_UNIX) as s:  # the kernel accepts it as a socket address
            s.bind(str(path))
    assert engine_dirs()[1] == run  # one checkout, one engine state, run after run
    shutil.rmtree(run)  # this test's own, named by its tmp path
