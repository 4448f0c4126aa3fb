"""Helpers for tests that run whole jobs: the repo root and configs composed like the CLI's.

Kept out of conftest.py on purpose: several test folders have their own conftest.py, and in a
full run ``from conftest import ...`` can resolve to a sibling folder's module.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

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
    return f"signal {signal.Signals(signum).name} sent; the job's main thread had it {state}"
