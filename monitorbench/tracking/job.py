"""One job's MLflow run: opened when the job starts, progress while it works, results at the end.

Params, metrics, config, judgments, verifiers, plots and traces are logged to it; its name is
short and tells the runs of a sweep apart; every axis is also a tag to group by.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Mapping

from omegaconf import DictConfig, OmegaConf

from monitorbench.generation.base import GenerationResult
from monitorbench.tracking.mlflow_logger import (client_for, experiment_id, flatten,
                                                 log_params_metrics, start_run, tracking_uri,
                                                 ui_hint)

log = logging.getLogger(__name__)


SWEEP_AXES_ENV = "MONITORBENCH_SWEEP_AXES"   # set by the sweep callback, read in every job
AXES = ("generator", "scaffold", "access", "task")
HEADLINE = ("ba_norm", "tpr", "tnr", "fpr_h")


def _axis_value(cfg: DictConfig, key: str) -> str:
    """A config group -> the option this job chose (``parsed``); a key -> ``leaf=value``
    (``max_tasks_per_type=5``)."""
    from hydra.core.hydra_config import HydraConfig

    choices = HydraConfig.get().runtime.choices if HydraConfig.initialized() else {}
    if key in choices:
        return str(choices[key])
    if key in AXES:
        return str(cfg[key].name)
    return f"{key.rsplit('.', 1)[-1]}={OmegaConf.select(cfg, key, default=None)}"


def run_name(cfg: DictConfig) -> str:
    """A short name that tells the runs of one sweep apart in MLflow's runs table.

    In a sweep it is the values of the settings the sweep varies (the callback exports them in
    ``$MONITORBENCH_SWEEP_AXES``), e.g. ``schema_check · parsed``; a single run names its
    generator, access and task setting. A task sample is always named (``5/type``), so a
    5-task run never looks like a full one.
    """
    axes = [a for a in os.environ.get(SWEEP_AXES_ENV, "").split(",") if a]
    if axes:
        parts = [_axis_value(cfg, a) for a in axes]
    else:
        parts = [str(cfg.generator.name), str(cfg.access.name), str(cfg.task.name)]
    n = cfg.task.max_tasks_per_type
    if n is not None and "task.max_tasks_per_type" not in axes:
        parts.append(f"{n}/type")
    return " · ".join(parts)


def job_params(cfg: DictConfig) -> dict[str, str]:
    """The flattened config as plain strings (enum values, not ``AccessMode.raw`` reprs)."""
    params = flatten(OmegaConf.to_container(cfg, resolve=True, enum_to_str=True))
    return {k: v for k, v in params.items() if not k.startswith("paths.")}


def job_key(params: Mapping[str, str], parent_run_id: str | None) -> str:
    """Identity of a job for resuming its MLflow run: its settings within its sweep."""
    text = "\n".join(f"{k}={v}" for k, v in sorted(params.items()))
    return hashlib.sha256(f"{parent_run_id or ''}\n{text}".encode()).hexdigest()[:20]


def rounded(metrics: Mapping[str, float]) -> dict[str, float]:
    """Metrics as MLflow shows them: rates to two decimals (metrics.json keeps full precision)."""
    return {k: (round(float(v), 2) if isinstance(v, float) else v) for k, v in metrics.items()}


class JobRun:
    """The job's MLflow run, open from the job's first step to its last.

    Created RUNNING when the job starts (so the UI shows the job in progress and its real
    duration), fed progress metrics with steps while it works, and closed FINISHED with the
    results or FAILED with the error recorded in the ``monitorbench.error`` tag. A job that
    crashes therefore still leaves a run that says why.
    """

    def __init__(self, cfg: DictConfig, parent_run_id: str | None) -> None:
        outputs = Path(cfg.paths.outputs)
        self.cfg = cfg
        self.client = client_for(tracking_uri(cfg.tracking.tracking_uri, outputs))
        exp = experiment_id(self.client, cfg.tracking.experiment_name or cfg.experiment_name,
                            outputs)
        tags = {f"monitorbench.{a}": str(cfg[a].name) for a in AXES}
        if cfg.task.max_tasks_per_type is not None:
            tags["monitorbench.tasks_per_type"] = str(cfg.task.max_tasks_per_type)
        self.name = run_name(cfg)
        self.experiment_id = exp
        params = job_params(cfg)
        tags["monitorbench.job_key"] = job_key(params, parent_run_id)
        resumed = self._unfinished(tags["monitorbench.job_key"])
        if resumed is not None:
            # The same job of the same sweep, requeued (Slurm preemption, time limit) or rerun
            # after a kill: continue its run instead of leaving a RUNNING/KILLED twin behind.
            self.run_id = resumed
            self.client.update_run(self.run_id, status="RUNNING")
            log.info("resuming MLflow run %s of this job", self.run_id)
        else:
            self.run_id = start_run(self.client, exp, self.name, tags, parent_run_id)
            log_params_metrics(self.client, self.run_id, params, {})
        self._steps: dict[str, int] = {}

    def _unfinished(self, key: str) -> str | None:
        """The newest run of this job (same settings, same sweep parent) that never finished."""
        runs = self.client.search_runs([self.experiment_id],
                                       filter_string=f"tags.`monitorbench.job_key` = '{key}'",
                                       order_by=["attributes.start_time DESC"], max_results=20)
        return next((r.info.run_id for r in runs if r.info.status != "FINISHED"), None)

    def __enter__(self) -> "JobRun":
        return self

    def __exit__(self, kind: Any, error: BaseException | None, tb: Any) -> None:
        if error is not None:
            self.fail(error)

    def ui_hint(self) -> str:
        """How to open this run in the MLflow UI (the command for a local store)."""
        return ui_hint(self.client.tracking_uri,
                       f"#/experiments/{self.experiment_id}/runs/{self.run_id}")

    def progress(self, key: str, value: float) -> None:
        """One point of a progress curve (``progress/<key>``), its step counting up per key."""
        step = self._steps.get(key, 0)
        self._steps[key] = step + 1
        self.client.log_metric(self.run_id, f"progress/{key}", float(value),
                               int(time.time() * 1000), step)

    def fail(self, error: BaseException) -> None:
        """FAILED with the error as a tag; KILLED when the job was interrupted (Ctrl-C, SIGTERM),
        which is not a fault of the job and resumes on a re-run."""
        interrupted = isinstance(error, (KeyboardInterrupt, SystemExit))
        try:
            self.client.set_tag(self.run_id, "monitorbench.error",
                                f"{type(error).__name__}: {error}"[:5000])
        finally:
            self.client.set_terminated(self.run_id, "KILLED" if interrupted else "FAILED")

    def finish(self, *, run_dir: Path, run_key: str, metrics: Mapping[str, float],
               records: list[Mapping[str, Any]],
               generations: Mapping[str, GenerationResult]) -> str:
        """Log the results and close the run FINISHED (FAILED if logging itself breaks)."""
        try:
            self.client.set_tag(self.run_id, "monitorbench.run_key", run_key)
            packages = _harness_packages(generations)
            if packages:
                self.client.set_tag(self.run_id, "monitorbench.harness", ", ".join(packages))
            log_params_metrics(self.client, self.run_id, {}, rounded(metrics))
            _log_artifacts(self.client, self.run_id, self.name, run_dir, metrics, records,
                           generations)
            from monitorbench.tracking.mlflow_traces import log_generation_traces

            log_generation_traces(self.client, self.run_id, self.experiment_id,
                                  {tid: Path(g.trace_path) for tid, g in generations.items()
                                   if g.trace_path and Path(g.trace_path).is_file()})
            self.client.set_terminated(self.run_id, "FINISHED")
        except BaseException as e:
            self.fail(e)
            raise
        log.info("logged MLflow run %s to %s", self.run_id, self.client.tracking_uri)
        return self.run_id


def _log_artifacts(client: Any, run_id: str, name: str, run_dir: Path,
                   metrics: Mapping[str, float], records: list[Mapping[str, Any]],
                   generations: Mapping[str, GenerationResult]) -> None:
    """Config, judgments (file and table), verifier sources, traces, a harness's native
    trajectory and the per-run plots."""
    from monitorbench.tracking.plots import plot_tpr_tnr, plot_type_bars

    client.log_artifact(run_id, str(run_dir / "config.yaml"))
    client.log_artifact(run_id, str(run_dir / "judgments.csv"), "judgments")
    client.log_artifact(run_id, str(run_dir / "metrics.json"))
    if (run_dir / "attack").is_dir():
        client.log_artifacts(run_id, str(run_dir / "attack"), "attack")
    client.log_table(run_id, data=_columns(records), artifact_file="judgments/table.json")
    with tempfile.TemporaryDirectory() as tmp:
        vroot = Path(tmp) / "verifiers"
        troot = Path(tmp) / "traces"
        for tid, g in sorted(generations.items()):
            if g.verifier_dir and Path(g.verifier_dir).is_dir():
                shutil.copytree(g.verifier_dir, vroot / tid,
                                ignore=shutil.ignore_patterns("__pycache__"))
            if g.trace_path and Path(g.trace_path).is_file():
                troot.mkdir(exist_ok=True)
                shutil.copy(g.trace_path, troot / f"{tid}.jsonl")
        nroot = Path(tmp) / "native"
        for tid, g in sorted(generations.items()):
            _copy_native(g, nroot / tid)
        if vroot.exists():
            client.log_artifacts(run_id, str(vroot), "verifiers")
        if troot.exists():
            client.log_artifacts(run_id, str(troot), "traces")
        if nroot.exists():
            client.log_artifacts(run_id, str(nroot), "native")
        if "tpr" in metrics and "tnr" in metrics:
            client.log_artifact(run_id, str(plot_tpr_tnr(
                {name: metrics}, Path(tmp) / "tpr_vs_tnr.png", title=f"{name}: TPR vs TNR")),
                "plots")
            client.log_artifact(run_id, str(plot_type_bars(
                metrics, Path(tmp) / "per_type.png", title=f"{name}: per task type")), "plots")


# What a harness generation keeps beside its trace (generation/harnesses/generator.py): the
# scratch HOME holding the harness's own session, rollout or trajectory files, and its captured
# stdout+stderr (opencode's and pi's JSON event stream). Written by untrusted code, so only
# regular files are copied (a symlink could point anywhere on the host) and only up to a cap.
NATIVE_HOME = "home"
NATIVE_MAX_BYTES = 64 * 1024 * 1024  # per task; a harness that fills its HOME is cut off here


def _copy_native(g: GenerationResult, dest: Path) -> None:
    """Copy a harness generation's native trajectory (its HOME and output log, from the
    generation's directory beside ``trace.jsonl``) to ``dest``; nothing for other scaffolds."""
    from monitorbench.generation.harnesses.generator import OUTPUT_LOG

    if not g.trace_path:
        return
    entry = Path(g.trace_path).parent
    files = [entry / OUTPUT_LOG] if (entry / OUTPUT_LOG).is_file() else []
    for root, dirs, names in os.walk(entry / NATIVE_HOME):  # never follows a linked directory
        dirs.sort()
        files += [Path(root) / n for n in sorted(names)]
    left, skipped = NATIVE_MAX_BYTES, []
    for f in files:
        if f.is_symlink() or not f.is_file():
            skipped.append(f)
            continue
        size = f.stat().st_size
        if size > left:
            skipped.append(f)
            continue
        left -= size
        target = dest / f.relative_to(entry)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
    if skipped:
        log.warning("native trajectory of %s: %d file(s) not logged (links, special files or "
                    "over %d MiB in all), e.g. %s", g.task_id, len(skipped),
                    NATIVE_MAX_BYTES >> 20, skipped[0].relative_to(entry))


def _harness_packages(generations: Mapping[str, GenerationResult]) -> list[str]:
    """The harness programs that wrote these verifiers, with their versions
    (``@mariozechner/pi-coding-agent@0.73.1``), from each trace's ``start`` event: the config
    leaves ``scaffold.harness.version`` null for the pinned default, so the params do not say."""
    from monitorbench.generation.traces import read_trace

    found = set()
    for g in generations.values():
        if g.trace_path and Path(g.trace_path).is_file():
            start = next(iter(read_trace(Path(g.trace_path))), {})
            if start.get("event") == "start" and start.get("package"):
                found.add(str(start["package"]))
    return sorted(found)


def _columns(records: list[Mapping[str, Any]]) -> dict[str, list[Any]]:
    from monitorbench.judging.store import RECORD_FIELDS

    return {f: [r.get(f) for r in records] for f in RECORD_FIELDS if f != "detail"}
