"""A one-node Slurm cluster for the session, started and stopped with slurm/localcluster.sh."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from slurm_helpers import Cluster, cluster_env, localcluster, skip_reason


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Start the cluster once; stop it in teardown even when a test (or the start) failed."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    directory: Path = tmp_path_factory.mktemp("slurm-local")
    try:
        started = localcluster("start", directory)
        if started.returncode != 0:
            logs = "\n".join(f"--- {p.name}\n{p.read_text()[-1500:]}"
                             for p in sorted(directory.glob("**/*.log")))
            pytest.fail(f"slurm/localcluster.sh start failed:\n{started.stderr}\n{logs}")
        yield Cluster(directory, cluster_env(started.stdout))
    finally:
        stopped = localcluster("stop", directory)
        assert stopped.returncode == 0, stopped.stderr
