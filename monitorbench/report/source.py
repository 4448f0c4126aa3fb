"""Where a report's numbers come from: a sweep's parent run in MLflow and its finished jobs.

The report reads only what the jobs logged: each child run's tags (generator, scaffold, access,
task, run key), its params (the flattened config, for the generation condition) and its
selected judgment records. Records come from the run's artifact ``judgments/judgments.csv``
(the rows the job scored, after median-round selection), falling back to
``outputs/runs/<run_key>/judgments.csv`` when the artifact store is not reachable from here; a
job that ran the adaptive attacker also gives the tasks its search broke (``attack/attack.json``,
same fallback), so the report computes adaptive FPR_h on the same tasks as everything else.
Re-deriving every number from records, not from logged metrics, is what lets the report put
bootstrap intervals on them and pair two configurations task by task.

Public API::

    find_sweep(client, experiment: str, sweep: str = "latest") -> Run
    load_configurations(client, parent, *, experiment: str, outputs: Path) -> list[Configuration]
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monitorbench.errors import InputError
from monitorbench.tracking.judgments_csv import parse_csv_records
from monitorbench.tracking.sweep_report import run_found

# Axes that tell configurations apart, in display order: (name, where it is read from).
AXES = (("generator", "tag:monitorbench.generator"), ("model", "param:generator.model"),
        ("scaffold", "tag:monitorbench.scaffold"), ("effort", "param:generator.condition.effort"),
        ("access", "tag:monitorbench.access"), ("task", "tag:monitorbench.task"))


@dataclass
class Configuration:
    """One finished job of the sweep: its axes, logged metrics and selected judgment records."""

    run_id: str
    axes: dict[str, str]
    metrics: dict[str, float]
    records: list[dict[str, Any]] = field(default_factory=list)
    label: str = ""
    found: frozenset[str] | None = None  # tasks the adaptive search broke; None: not attacked
    run_name: str = ""   # the MLflow run name: orders ties as the sweep's leaderboard does


def _run_hint(experiment: str) -> str:
    return (f"run the sweep first: `python -m monitorbench +experiment={experiment}` "
            "(with the same MLFLOW_TRACKING_URI / MONITORBENCH_OUTPUTS)")


def find_sweep(client: Any, experiment: str, sweep: str = "latest") -> Any:
    """The sweep's parent run: the newest one with finished jobs, or the given run id."""
    exp = client.get_experiment_by_name(experiment)
    if exp is None:
        raise InputError(client.tracking_uri, "--experiment",
                         f"no MLflow experiment named {experiment!r}", _run_hint(experiment))
    if sweep != "latest":
        try:
            run = client.get_run(sweep)
        except Exception:
            raise InputError(client.tracking_uri, "--sweep", f"no run with id {sweep!r}",
                             "pass `latest` or the id of a sweep parent run (MLflow UI, tag "
                             "monitorbench.role=sweep)") from None
        if run.info.experiment_id != exp.experiment_id or \
                run.data.tags.get("monitorbench.role") != "sweep":
            raise InputError(client.tracking_uri, "--sweep",
                             f"run {sweep!r} is not a sweep parent run of experiment "
                             f"{experiment!r}", "pass `latest` or a parent run id of this "
                             "experiment")
        return run
    parents = client.search_runs([exp.experiment_id],
                                 filter_string="tags.`monitorbench.role` = 'sweep'",
                                 order_by=["attributes.start_time DESC"], max_results=200)
    for parent in parents:
        if _children(client, parent, finished_only=True):
            return parent
    if not parents and client.search_runs([exp.experiment_id], max_results=1):
        # single jobs only (quickstart): re-running the same command cannot make a sweep
        raise InputError(client.tracking_uri, "--experiment",
                         f"experiment {experiment!r} holds single jobs, no sweep; a report "
                         "compares a sweep's configurations",
                         "read a single job's results in its run directory (metrics.json, "
                         "judgments.csv) or its MLflow run, or sweep something, e.g. "
                         f"`python -m monitorbench -m +experiment={experiment} "
                         "generator=always_accept,schema_check`")
    raise InputError(client.tracking_uri, "--experiment",
                     f"experiment {experiment!r} has no sweep with a finished job",
                     _run_hint(experiment))


def _children(client: Any, parent: Any, *, finished_only: bool) -> list[Any]:
    flt = f"tags.mlflow.parentRunId = '{parent.info.run_id}'"
    if finished_only:
        flt += " and attributes.status = 'FINISHED'"
    return client.search_runs([parent.info.experiment_id], filter_string=flt,
                              order_by=["attributes.start_time ASC"], max_results=5000)


_ENUM_TEXT = re.compile(r"^[A-Z]\w*\.(\w+)$")  # a param logged as str(Effort.LOW)


def _axis(run: Any, where: str) -> str:
    kind, key = where.split(":", 1)
    source = run.data.tags if kind == "tag" else run.data.params
    value = source.get(key)
    if value in (None, "None"):
        return ""
    m = _ENUM_TEXT.match(str(value))
    return m.group(1) if m else str(value)


def _records_for(client: Any, run: Any, outputs: Path) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        try:
            local = client.download_artifacts(run.info.run_id, "judgments/judgments.csv", tmp)
            return parse_csv_records(Path(local))
        except InputError:
            raise
        except Exception:  # artifact store unreachable from here: use the job's run directory
            pass
    key = run.data.tags.get("monitorbench.run_key", "")
    fallback = outputs / "runs" / key / "judgments.csv"
    if not key or not fallback.is_file():
        raise InputError(fallback, "judgments/judgments.csv",
                         f"run {run.info.run_id} has neither the judgments artifact nor a local "
                         "judgments table", "re-run the job (it is resumable and reuses every "
                         "judgment) or point MONITORBENCH_OUTPUTS at its outputs")
    return parse_csv_records(fallback)


def load_configurations(client: Any, parent: Any, *, experiment: str,
                        outputs: Path) -> list[Configuration]:
    """Every finished job of the sweep, labelled by the axes that vary across the sweep."""
    runs = _children(client, parent, finished_only=True)
    if not runs:
        raise InputError(client.tracking_uri, "--sweep",
                         f"sweep {parent.info.run_id} of {experiment!r} has no finished job",
                         _run_hint(experiment))
    configs = [Configuration(r.info.run_id, {name: _axis(r, where) for name, where in AXES},
                             dict(r.data.metrics), _records_for(client, r, outputs),
                             found=run_found(client, r, outputs / "runs"),
                             run_name=r.data.tags.get("mlflow.runName", r.info.run_id))
               for r in runs]
    varying = [name for name, _ in AXES if len({c.axes[name] for c in configs}) > 1]
    shown = varying or ["generator"]
    seen: dict[str, int] = {}
    for c in configs:
        # a model generator's generator axis is its model: name it once
        label = " | ".join(dict.fromkeys(c.axes[a] for a in shown if c.axes[a])) or c.run_id[:8]
        seen[label] = seen.get(label, 0) + 1
        c.label = label if seen[label] == 1 else f"{label} #{seen[label]}"
    return configs


def varying_axes(configs: list[Configuration]) -> list[str]:
    """Axes whose value differs between at least two configurations, in display order."""
    return [name for name, _ in AXES if len({c.axes[name] for c in configs}) > 1]


def axis_values(configs: list[Configuration], axis: str) -> list[str]:
    """Values of one axis in first-seen (sweep) order."""
    return list(dict.fromkeys(c.axes[axis] for c in configs))
