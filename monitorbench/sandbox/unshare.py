"""Fallback backend for hosts without bubblewrap: ``unshare`` namespaces plus the worker's rlimits.

The worker runs in its own user, network, System V IPC, PID and mount namespaces (so no network,
no shared-memory segment or semaphore of the host's, and after each case every leftover process
and IPC object can be removed), with the same per-case fork, PID namespace for the cases,
rlimits and wall clock as under bwrap. What it cannot do is hide files: the verifier sees the
host filesystem with the framework's permissions, so hidden cases and answer keys may be
readable. Creating this sandbox therefore warns loudly; use it for development only.
"""

from __future__ import annotations

import logging
import shutil
import sys
import tempfile
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from monitorbench.sandbox.base import SandboxSpec
from monitorbench.sandbox.session_cgroups import SessionCgroups
from monitorbench.sandbox.client import (WORKER_PATH, WorkerSession, check_inputs,
                                         default_runtimes_dir, minimal_env, resolve_runtime,
                                         worker_config)

log = logging.getLogger(__name__)

UNSHARE = ["unshare", "--user", "--map-root-user", "--net", "--ipc", "--pid", "--fork",
           "--mount", "--mount-proc"]
PIDS_SLACK = 4  # unshare and the worker, beyond the verifier's own allowance
WARNING = ("sandbox backend 'unshare' cannot hide files: a verifier can read anything the "
           "framework user can, including hidden test cases and answer keys. Results are not "
           "trustworthy against adversarial verifiers; install bubblewrap (apt-get install "
           "bubblewrap) and use sandbox.backend=bwrap")


class UnshareSandbox:
    """Namespaces and rlimits without filesystem isolation (loud warning on creation)."""

    name = "unshare"

    def __init__(self, runtimes_dir: Path | None = None) -> None:
        self.runtimes_dir = default_runtimes_dir(runtimes_dir)
        self.cgroups = SessionCgroups()
        warnings.warn(WARNING, RuntimeWarning, stacklevel=2)
        log.warning(WARNING)

    @contextmanager
    def session(self, verifier_dir: Path, public_dir: Path, spec: SandboxSpec
                ) -> Iterator[WorkerSession]:
        check_inputs(Path(public_dir), spec, self.runtimes_dir)
        runtime = resolve_runtime(spec.runtime, self.runtimes_dir)
        scratch = Path(tempfile.mkdtemp(prefix="mb-unshare-"))
        argv = [*UNSHARE, str(Path(sys.executable).resolve()), "-I", "-S", "-B",
                str(WORKER_PATH),
                worker_config(spec, verifier_dir=str(Path(verifier_dir).resolve()),
                              task_dir=str(Path(public_dir).resolve()),
                              runtimes_dir=str(self.runtimes_dir),
                              runtime_path=None if runtime is None else str(runtime),
                              scratch_root=str(scratch),
                              own_pid_namespace=True, own_ipc_namespace=True,
                              case_pid_namespace=True)]
        with self.cgroups.lease(spec.limits.processes + PIDS_SLACK) as launch, \
                WorkerSession(launch.wrap(argv), minimal_env(), spec, popen=launch.popen,
                              on_close=lambda: shutil.rmtree(scratch, ignore_errors=True)) as s:
            yield s
