"""The sweep's own record: what its launching process tells every job of the sweep.

The sweep callback writes it into the sweep directory before any job starts; each job reads it
by the sweep directory its own config names. Nothing travels through the environment or other
process-global state, so in-process, submitit-local and Slurm jobs all read the same thing the
same way, and a job's run name depends only on its config and this record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

RECORD_FILE = "sweep.json"


@dataclass(frozen=True)
class SweepRecord:
    """The MLflow parent run of the sweep (None: untracked, or the store was down) and the
    settings the sweep varies (``generator``, ``task.max_tasks_per_type``), which name its runs."""

    parent_run_id: str | None = None
    axes: tuple[str, ...] = ()


def write_record(sweep_dir: Path, record: SweepRecord) -> None:
    """Write (or replace: a re-run of the sweep writes its own) the record into ``sweep_dir``."""
    sweep_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"parent_run_id": record.parent_run_id, "axes": list(record.axes)})
    tmp = sweep_dir / (RECORD_FILE + ".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(sweep_dir / RECORD_FILE)   # a job never reads half a record


def read_record(sweep_dir: Path) -> SweepRecord:
    """The record in ``sweep_dir``; an empty one when there is none (a single run, or a sweep
    launched without the callback)."""
    path = Path(sweep_dir) / RECORD_FILE
    if not path.is_file():
        return SweepRecord()
    data = json.loads(path.read_text(encoding="utf-8"))
    return SweepRecord(data.get("parent_run_id"), tuple(data.get("axes", ())))


@dataclass(frozen=True)
class SweepPlace:
    """Where a job sits in its sweep: the sweep's MLflow parent run (None: a single run, or
    untracked) and this job's value of each other setting the sweep varies, as its run name
    shows them (``workers=2``), in the sweep's order. Built once by the entry point
    (``monitorbench.__main__.sweep_place``) from the sweep's :class:`SweepRecord`, the options
    Hydra chose and the job's typed config (``tracking.job.axis_labels``); the job below reads
    only this value, never Hydra's global state."""

    parent_run_id: str | None = None
    labels: tuple[str, ...] = ()
