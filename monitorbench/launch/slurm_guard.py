"""Fail fast on Slurm requests that can never run, instead of pending silently for ever.

Two guards, both used by :class:`SlurmGuardCallback` only when the sweep's launcher is Slurm:

- :func:`check_request` compares the launcher's request (CPUs per task, memory, time limit,
  partition) with what ``sinfo`` reports *before* anything is submitted, and refuses with the
  numbers and the override that fixes it. A typo in a partition name is caught here too.
- :class:`PendingWatch` polls ``squeue`` for the sweep's own jobs while the launching process
  waits on them. Slurm keeps a job whose request exceeds a partition's limits PENDING with a
  reason such as ``PartitionConfig`` indefinitely; the watch cancels the sweep's jobs on such a
  reason and logs it, so submitit's wait ends with an error instead of never.

The pure parts (:func:`parse_sinfo`, :func:`violations`, :func:`slurm_minutes`,
:func:`fatal_pending`) take plain text and values so they are testable without a cluster.
"""

from __future__ import annotations

import logging
import re
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from monitorbench.errors import InputError

log = logging.getLogger(__name__)

LAUNCHER_FILE = "conf/hydra/launcher/slurm.yaml"
SINFO_FORMAT = "%P|%c|%m|%l|%a"
# Pending reasons that no amount of waiting clears: the request itself does not fit, or the
# nodes it needs are gone. (Resources, Priority, Dependency, BeginTime ... do clear.)
FATAL_REASONS = frozenset({
    "PartitionConfig", "PartitionNodeLimit", "PartitionTimeLimit", "PartitionDown",
    "PartitionInactive", "ReqNodeNotAvail", "BadConstraints", "InvalidAccount", "InvalidQOS",
    "AssocMaxCpuPerJobLimit", "AssocMaxWallDurationPerJobLimit", "QOSMaxCpuPerJobLimit",
    "QOSMaxWallDurationPerJobLimit", "NodeDown", "DependencyNeverSatisfied",
})


@dataclass(frozen=True)
class Partition:
    """One partition as ``sinfo`` reports it (largest node when nodes differ)."""

    name: str
    default: bool
    cpus: int
    memory_mb: int
    time_limit_min: float | None   # None: infinite
    up: bool


def slurm_minutes(text: str) -> float | None:
    """Slurm's time formats (``MM``, ``MM:SS``, ``HH:MM:SS``, ``D-HH[:MM[:SS]]``) in minutes;
    None for ``infinite``/``UNLIMITED``."""
    text = text.strip()
    if text.lower() in ("infinite", "unlimited", "n/a"):
        return None
    days, _, rest = text.rpartition("-")
    parts = [int(p) for p in rest.split(":")]
    if days:
        hms = (parts + [0, 0])[:3]            # D-HH, D-HH:MM, D-HH:MM:SS
    elif len(parts) == 1:
        hms = [0, parts[0], 0]                # MM
    elif len(parts) == 2:
        hms = [0, parts[0], parts[1]]         # MM:SS
    else:
        hms = parts                           # HH:MM:SS
    return (int(days or 0) * 24 + hms[0]) * 60 + hms[1] + hms[2] / 60


def parse_sinfo(text: str) -> dict[str, Partition]:
    """Rows of ``sinfo -h -o '%P|%c|%m|%l|%a'`` by partition; several rows of one partition
    (nodes of different sizes) keep the largest, since a job fits if it fits any node."""
    out: dict[str, Partition] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, cpus, mem, limit, avail = line.split("|")[:5]
        default = name.endswith("*")
        name = name.rstrip("*")
        row = Partition(name, default, int(re.sub(r"\D", "", cpus) or 0),
                        int(re.sub(r"\D", "", mem) or 0), slurm_minutes(limit), avail == "up")
        old = out.get(name)
        if old is not None:
            row = Partition(name, default or old.default, max(row.cpus, old.cpus),
                            max(row.memory_mb, old.memory_mb), row.time_limit_min, row.up)
        out[name] = row
    return out


def violations(request: Mapping[str, Any], partitions: Mapping[str, Partition]) -> list[str]:
    """Why ``request`` (launcher keys ``partition``, ``cpus_per_task``, ``mem_gb``,
    ``timeout_min``) can never run on ``partitions``; empty when it can."""
    name = request.get("partition")
    if name:
        part = partitions.get(name)
        if part is None:
            return [f"partition '{name}' does not exist (this cluster has: "
                    f"{', '.join(sorted(partitions)) or 'none'}); fix: "
                    f"hydra.launcher.partition=<one of them> or unset MONITORBENCH_SLURM_PARTITION"]
    else:
        part = next((p for p in partitions.values() if p.default), None)
        if part is None:
            return ["no partition given and the cluster has no default partition; fix: "
                    "hydra.launcher.partition=NAME or export MONITORBENCH_SLURM_PARTITION=NAME"]
    problems = []
    if not part.up:
        problems.append(f"partition '{part.name}' is not up")
    cpus = request.get("cpus_per_task")
    if cpus and part.cpus and int(cpus) > part.cpus:
        problems.append(f"cpus_per_task={cpus} but the largest node of partition '{part.name}' "
                        f"has {part.cpus} CPUs; fix: hydra.launcher.cpus_per_task={part.cpus}")
    mem_gb = request.get("mem_gb")
    if mem_gb and part.memory_mb and int(mem_gb) * 1024 > part.memory_mb:
        problems.append(f"mem_gb={mem_gb} but the largest node of partition '{part.name}' has "
                        f"{part.memory_mb} MB; fix: hydra.launcher.mem_gb="
                        f"{max(part.memory_mb // 1024, 1)}")
    minutes = request.get("timeout_min")
    if minutes and part.time_limit_min is not None and float(minutes) > part.time_limit_min:
        problems.append(f"timeout_min={minutes} exceeds partition '{part.name}''s time limit of "
                        f"{part.time_limit_min:g} min; fix: hydra.launcher.timeout_min="
                        f"{int(part.time_limit_min)}")
    return problems


def check_request(request: Mapping[str, Any]) -> None:
    """Refuse a Slurm request that cannot run on this cluster (InputError naming the fix)."""
    try:
        out = subprocess.run(["sinfo", "-h", "-o", SINFO_FORMAT], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise InputError(LAUNCHER_FILE, "hydra/launcher", f"sinfo could not be run ({e})",
                         "run the sweep where Slurm's client commands reach the cluster, or "
                         "use hydra/launcher=local") from e
    if out.returncode != 0:
        raise InputError(LAUNCHER_FILE, "hydra/launcher",
                         f"sinfo failed: {out.stderr.strip()}",
                         "check that the cluster is up (SLURM_CONF, slurmctld)")
    problems = violations(request, parse_sinfo(out.stdout))
    if problems:
        raise InputError(LAUNCHER_FILE, "hydra.launcher",
                         "this Slurm request can never start: " + "; ".join(problems),
                         "pass the override named above (or a smaller sandbox.workers)")


def fatal_pending(squeue: str) -> list[tuple[str, str]]:
    """(job id, reason) for lines of ``squeue -h -o '%i|%T|%r'`` that will never start."""
    out = []
    for line in squeue.splitlines():
        fields = line.strip().split("|")
        if len(fields) >= 3 and fields[1] == "PENDING" and fields[2] in FATAL_REASONS:
            out.append((fields[0], fields[2]))
    return out


class PendingWatch:
    """Background poll of the sweep's jobs (found as submitit's per-job folders under
    ``submitit_root``); on a never-clearing pending reason it logs the reason, records it in
    ``submitit_root/../slurm_failure.txt`` and cancels the sweep's jobs."""

    def __init__(self, submitit_root: Path, interval: float = 3.0) -> None:
        self.root = submitit_root
        self.interval = interval
        self.failure: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="slurm-pending-watch",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def job_ids(self) -> list[str]:
        """Array or plain job ids this sweep submitted (submitit names folders by them)."""
        if not self.root.is_dir():
            return []
        return sorted({p.name.split("_")[0] for p in self.root.iterdir()
                       if p.is_dir() and p.name.split("_")[0].isdigit()})

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            ids = self.job_ids()
            if not ids:
                continue
            out = subprocess.run(["squeue", "-h", "-o", "%i|%T|%r", "-j", ",".join(ids)],
                                 capture_output=True, text=True, timeout=30)
            stuck = fatal_pending(out.stdout)
            if stuck:
                self._fail(ids, stuck)
                return

    def _fail(self, ids: Sequence[str], stuck: Sequence[tuple[str, str]]) -> None:
        job, reason = stuck[0]
        self.failure = (f"Slurm job {job} can never start: pending with reason {reason} (the "
                        f"request exceeds what the partition allows, or its nodes are gone). "
                        f"Cancelled the sweep's jobs {', '.join(ids)}. Check the request "
                        f"against `sinfo -o '{SINFO_FORMAT}'` and override "
                        f"hydra.launcher.cpus_per_task / mem_gb / timeout_min / partition")
        log.error(self.failure)
        (self.root.parent / "slurm_failure.txt").write_text(self.failure + "\n")
        subprocess.run(["scancel", *ids], capture_output=True, text=True, timeout=30)
