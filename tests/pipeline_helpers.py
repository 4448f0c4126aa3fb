"""Helpers for tests that run whole jobs: the repo root and configs composed like the CLI's.

Kept out of conftest.py on purpose: several test folders have their own conftest.py, and in a
full run ``from conftest import ...`` can resolve to a sibling folder's module.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from hydra import compose, initialize_config_dir

from monitorbench.config import MonitorbenchConfig, register_configs
from monitorbench.pipeline.prepare import typed_config

ROOT = Path(__file__).resolve().parents[1]
register_configs()


def compose_cfg(outputs: Path, suites: Path, overrides: list[str]) -> MonitorbenchConfig:
    """The typed config a CLI run's job gets from its entry point, with outputs and the MLflow
    store under ``outputs``."""
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        return typed_config(compose("config", overrides=[
            f"paths.outputs={outputs}", f"paths.suites={suites}",
            f"tracking.tracking_uri=sqlite:///{outputs}/mlflow.db", *overrides]))


def _sigint_ignored(pid: int | str = "self") -> bool:
    """Whether process ``pid`` ignores SIGINT (its /proc SigIgn bit)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        ign = next(int(line.split()[1], 16) for line in fh if line.startswith("SigIgn:"))
    return bool(ign & (1 << (signal.SIGINT - 1)))


# Exec's the command with SIGINT at its default (thread-safe, unlike a preexec_fn); same pid.
_SIGINT_AT_DEFAULT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                      "os.execv(sys.argv[1], sys.argv[1:])")


def start_job(args: list[str], **popen: Any) -> subprocess.Popen[str]:
    """Start a job as a terminal starts a foreground command: SIGINT at its default in the job,
    whatever this test process has. An ignored SIGINT is inherited through exec (a shell's
    background job gets one on purpose, and the job rightly keeps it); two full two-worker runs
    saw the Ctrl-C tests' jobs start with SIGINT ignored and end 0. Those tests test the job's
    Ctrl-C handling, so the job starts as it would at a prompt. ``interrupt`` still says what
    the job and this process had, should a job end 0 again."""
    proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", _SIGINT_AT_DEFAULT, *args],
                            text=True, **popen)
    proc.test_process_ignored_sigint = _sigint_ignored()  # type: ignore[attr-defined]
    return proc


def interrupt(proc: subprocess.Popen[str], signum: int = signal.SIGINT) -> str:
    """Send ``signum`` to a running job, as Ctrl-C or ``kill`` does, and say what the job's
    main thread did with that signal at that moment (its ``/proc`` masks). A test that finds
    the job ended 0 after the signal prints this: it tells a job that had already ended, or
    one that started with the signal ignored or blocked (inherited from the test process), from
    a job that caught and swallowed it."""
    if proc.poll() is not None:
        return f"the job had already ended (status {proc.returncode}) before the signal"
    try:
        with open(f"/proc/{proc.pid}/status", encoding="ascii") as fh:
            masks = {k: int(v, 16) for k, _, v in (line.partition(":") for line in fh)
                     if k in ("SigBlk", "SigIgn", "SigCgt")}
    except OSError as e:
        masks = {}
        state = f"no /proc status ({e})"
    else:
        bit = 1 << (signum - 1)
        state = ", ".join(f"{k}={'yes' if v & bit else 'no'}" for k, v in masks.items())
    proc.send_signal(signum)
    here = getattr(proc, "test_process_ignored_sigint", None)
    return (f"signal {signal.Signals(signum).name} sent; the job's main thread had it {state}; "
            f"this test process ignored SIGINT when it started the job: {here}, now: "
            f"{_sigint_ignored()}")
