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

from monitorbench.config import GeneratorKind, MonitorbenchConfig
from monitorbench.generation.base import GenerationResult
from monitorbench.tracking.mlflow_logger import (client_for, code_tags, experiment_id,
                                                 flatten, log_params_metrics, start_run,
                                                 tracking_uri, ui_hint)
from monitorbench.tracking.sweep_record import SweepPlace

log = logging.getLogger(__name__)


AXES = ("generator", "scaffold", "access", "task")
# Settings the job's metrics.json repeats for the reader; in MLflow they are params already
# (``attack.budget``), and as metrics they opened the chart view as flat lines.
NOT_METRICS = ("attack/budget",)
# The size of the job's sample (tasks, cases, attacked tasks, cases per group): constants of the
# job, not outcomes, so MLflow gets them as params, which the compare view plots; metrics.json
# keeps them with the rates.
COUNTS = ("n_tasks", "n_cases", "n_attack_tasks")


def is_count(key: str) -> bool:
    """A key of the job's metrics that is the size of its sample (``n_cases``, ``group/gold/n``)."""
    return key in COUNTS or (key.startswith("group/") and key.endswith("/n"))


def split_counts(metrics: Mapping[str, float]) -> tuple[dict[str, str], dict[str, float]]:
    """The job's metrics as MLflow takes them: the counts as params (whole numbers as text), the
    rest as metrics, without the settings that are params already."""
    counts = {k: str(int(v)) for k, v in metrics.items() if is_count(k)}
    return counts, {k: v for k, v in metrics.items() if not is_count(k) and k not in NOT_METRICS}


def as_node(conf: MonitorbenchConfig) -> DictConfig:
    """The typed config as the node Hydra composed: a swept key's value and the params print
    exactly as they did when jobs read Hydra's config (``[{'name': 'bfcl', ...}]``, not a
    dataclass repr), so run names and job keys stay what they were."""
    return OmegaConf.structured(conf)


def axis_labels(conf: MonitorbenchConfig, axes: tuple[str, ...], choices: Mapping[str, str]
                ) -> tuple[str, ...]:
    """This job's value of each swept setting the name does not already show: for a config
    group the option it chose (``choices``, ``parsed``), for a key ``leaf=value``
    (``max_tasks_per_type=5``)."""
    labels = []
    node = as_node(conf)
    for key in axes:
        if key in _IN_NAME or key == "task.max_tasks_per_type":
            continue
        if key in choices:
            labels.append(str(choices[key]))
        elif key in AXES:
            labels.append(str(getattr(conf, key).name))
        else:
            labels.append(f"{key.rsplit('.', 1)[-1]}={OmegaConf.select(node, key, default=None)}")
    return tuple(labels)


def generator_label(conf: MonitorbenchConfig) -> str:
    """Who wrote the verifiers, as a reader names them: the model for a model generator
    (``gpt-4o-mini``, the part after a vendor's ``org/``), else the generator (``schema_check``)."""
    g = conf.generator
    model = getattr(g, "model", None)   # only model generators' schemas have one
    if GeneratorKind(g.kind) is GeneratorKind.model and model:
        return str(model).rsplit("/", 1)[-1]
    return str(g.name)


_IN_NAME = ("generator", "generator.model", "access", "task")


SEPARATOR = "·"   # between the parts of a run name (see run_name)


def run_name(conf: MonitorbenchConfig, place: SweepPlace = SweepPlace(), *,
             full: bool = False) -> str:
    """A short name that tells runs apart in MLflow's runs table: generator (or model)·access
    ·task, then this job's values of any other setting its sweep varies (``place``), e.g.
    ``schema·parsed·bfcl·agent``. A task sample is always named (``5/type``), so a 5-task run
    never looks like a full one. MLflow 3.17's table cuts a name at about 13 characters, so the
    generator and the access setting go by their short aliases (``generator.alias``,
    ``access.alias``: ``grounded·r+p·small``, not ``grounded_check·raw_parsed·small``, whose
    three access settings all read ``grounded_che…``), and the parts are joined without spaces.
    ``full``: the same name with every part's full name (the run's ``monitorbench.name`` tag)."""
    gen = generator_label(conf) if full or not conf.generator.alias else conf.generator.alias
    access = conf.access.name if full or not conf.access.alias else conf.access.alias
    parts = [gen, str(access), str(conf.task.name), *place.labels]
    n = conf.task.max_tasks_per_type
    if n is not None:
        parts.append(f"{n}/type")
    return SEPARATOR.join(parts)


def job_params(conf: MonitorbenchConfig) -> dict[str, str]:
    """The flattened config as plain strings (enum values, not ``AccessMode.raw`` reprs)."""
    params = flatten(OmegaConf.to_container(as_node(conf), resolve=True, enum_to_str=True))
    return {k: v for k, v in params.items() if not k.startswith("paths.")}


def job_key(params: Mapping[str, str]) -> str:
    """Identity of a job's MLflow run: its settings alone. Not the sweep's parent run id, so a
    re-run sweep or job finds and reuses its runs instead of adding copies of them; nor the
    aliases, which only name the run (a store from before they existed keeps its runs)."""
    text = "\n".join(f"{k}={v}" for k, v in sorted(params.items())
                     if not k.endswith(".alias"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def rounded(metrics: Mapping[str, float]) -> dict[str, float]:
    """Metrics as MLflow shows them: rates to two decimals (metrics.json keeps full precision)."""
    return {k: (round(float(v), 2) if isinstance(v, float) else v) for k, v in metrics.items()}


class JobRun:
    """The job's MLflow run, open from the job's first step to its last.

    Created RUNNING when the job starts (so the UI shows the job in progress and its real
    duration), fed progress metrics with steps while it works, and closed FINISHED with the
    results or FAILED with the error recorded in the ``monitorbench.error`` tag. A job that
    crashes therefore still leaves a run that says why.

    Tracking never holds judging up: requests are bounded (``tracking.timeout_s``,
    ``tracking.retries``), a server is probed before anything is judged, progress goes out from
    a background thread, and once the store stops answering the run is left alone (``down``)
    and :meth:`close_out` ends the job with one line after its local results are written.
    """

    def __init__(self, conf: MonitorbenchConfig, place: SweepPlace = SweepPlace()) -> None:
        from monitorbench.tracking.connection import check_when_down, configure_http, probe

        self.conf = conf
        self.when_down = check_when_down(str(conf.tracking.when_down))
        configure_http(float(conf.tracking.timeout_s), int(conf.tracking.retries))
        outputs = Path(conf.paths.outputs)
        self.uri = tracking_uri(conf.tracking.tracking_uri, outputs)
        self.name = run_name(conf, place)
        self.full_name = run_name(conf, place, full=True)
        self.run_id: str | None = None
        self.down: str | None = probe(self.uri, float(conf.tracking.timeout_s))
        self._sink: Any = None
        if self.down is None:
            try:
                self._open(outputs, place.parent_run_id)
            except Exception as e:
                if not _unreachable(e):
                    raise
                self.down = _reason(e)
        if self.down is not None:
            self._down_at_start()

    def _open(self, outputs: Path, parent_run_id: str | None) -> None:
        """Find this configuration's run (any status: re-runs reuse it) or create it."""
        from monitorbench.tracking.progress_sink import ProgressSink

        conf = self.conf
        self.client = client_for(self.uri)
        self.experiment_id = experiment_id(
            self.client, conf.tracking.experiment_name or conf.experiment_name, outputs)
        tags = {f"monitorbench.{a}": str(getattr(conf, a).name) for a in AXES}
        tags["monitorbench.generator"] = generator_label(conf)  # by model, for model generators
        tags["monitorbench.name"] = self.full_name   # the run name without aliases
        if conf.task.max_tasks_per_type is not None:
            tags["monitorbench.tasks_per_type"] = str(conf.task.max_tasks_per_type)
        params = job_params(conf)
        tags["monitorbench.job_key"] = job_key(params)
        found = self._existing(tags["monitorbench.job_key"])
        if found is not None:
            # The same configuration run before (a requeue, a kill, a re-run sweep or job):
            # continue its run instead of leaving a twin, under this sweep's parent.
            self.run_id = found
            self.client.update_run(found, status="RUNNING", name=self.name)
            for k, v in {**code_tags(), **tags}.items():   # this attempt's code and labels
                self.client.set_tag(found, k, v)
            if parent_run_id:
                self.client.set_tag(found, "mlflow.parentRunId", parent_run_id)
            log.info("reusing MLflow run %s of this configuration", found)
        else:
            self.run_id = start_run(self.client, self.experiment_id, self.name, tags,
                                    parent_run_id)
            log_params_metrics(self.client, self.run_id, params, {})
        self._sink = ProgressSink(self._send_progress, self._lost)

    def _down_at_start(self) -> None:
        from monitorbench.tracking.connection import TrackingUnavailable

        if self.when_down == "fail":
            raise TrackingUnavailable(
                f"MLflow at {self.uri} is unreachable ({self.down}); nothing was judged. Start "
                "the server, or set tracking.when_down=log_later to judge now and log on a "
                "re-run, or tracking=off")
        log.warning("MLflow at %s is unreachable (%s): judging now, the run is logged on a "
                    "re-run once the server is back", self.uri, self.down)

    def _existing(self, key: str) -> str | None:
        """The newest run of this configuration in the experiment, whatever its status."""
        runs = self.client.search_runs([self.experiment_id],
                                       filter_string=f"tags.`monitorbench.job_key` = '{key}'",
                                       order_by=["attributes.start_time DESC"], max_results=1)
        return runs[0].info.run_id if runs else None

    def __enter__(self) -> "JobRun":
        return self

    def __exit__(self, kind: Any, error: BaseException | None, tb: Any) -> None:
        if error is not None:
            self.fail(error)

    def _lost(self, error: BaseException) -> None:
        if self.down is None:
            self.down = _reason(error)
            log.warning("MLflow at %s stopped answering (%s): the job goes on, its results "
                        "are written locally", self.uri, self.down)

    def ui_hint(self) -> str | None:
        """How to open this run in the MLflow UI (the command for a local store); None when
        the run was not logged."""
        if self.down is not None or self.run_id is None:
            return None
        return ui_hint(self.client.tracking_uri,
                       f"#/experiments/{self.experiment_id}/runs/{self.run_id}")

    def progress(self, key: str, value: float) -> None:
        """One point of a progress curve (``progress/<key>``), sent in the background."""
        if self._sink is not None and self.down is None:
            self._sink.put(key, value)

    def _send_progress(self, key: str, value: float, step: int) -> None:
        self.client.log_metric(self.run_id, f"progress/{key}", value,
                               int(time.time() * 1000), step)

    def fail(self, error: BaseException) -> None:
        """FAILED with the error as a tag; KILLED when the job was interrupted (Ctrl-C, SIGTERM),
        which is not a fault of the job and resumes on a re-run. Nothing when the store is
        down (the run stays RUNNING and the re-run that logs it takes it over), nor when an
        identical job holds the run (an error with ``run_owned_elsewhere``): it is that job's."""
        if self._sink is not None:
            self._sink.flush(0)
        if self.down is not None or self.run_id is None:
            return
        if getattr(error, "run_owned_elsewhere", False):   # a twin job holds the run: its own
            return
        interrupted = isinstance(error, (KeyboardInterrupt, SystemExit))
        try:
            self.client.set_tag(self.run_id, "monitorbench.error",
                                f"{type(error).__name__}: {error}"[:5000])
            self.client.set_terminated(self.run_id, "KILLED" if interrupted else "FAILED")
        except Exception as e:
            if not _unreachable(e):
                raise
            self._lost(e)

    def finish(self, *, run_dir: Path, run_key: str, metrics: Mapping[str, float],
               records: list[Mapping[str, Any]],
               generations: Mapping[str, GenerationResult]) -> str | None:
        """Log the results and close the run FINISHED (FAILED if logging itself breaks); None
        when the store is (or goes) down: the results stay local, see :meth:`close_out`."""
        if self._sink is not None:
            self._sink.flush(float(self.conf.tracking.timeout_s))
        if self.down is not None:
            return None
        try:
            self._log_results(run_dir, run_key, metrics, records, generations)
        except BaseException as e:
            if _unreachable(e):
                self._lost(e)
                return None
            self.fail(e)
            raise
        log.info("logged MLflow run %s to %s", self.run_id, self.client.tracking_uri)
        return self.run_id

    def _log_results(self, run_dir: Path, run_key: str, metrics: Mapping[str, float],
                     records: list[Mapping[str, Any]],
                     generations: Mapping[str, GenerationResult]) -> None:
        self.client.set_tag(self.run_id, "monitorbench.run_key", run_key)
        packages = _harness_packages(generations)
        if packages:
            self.client.set_tag(self.run_id, "monitorbench.harness", ", ".join(packages))
        counts, values = split_counts(metrics)
        logged = self.client.get_run(self.run_id).data.params   # a reused run may have them
        changed = {k: float(v) for k, v in counts.items() if logged.get(k, v) != v}
        if changed:   # a param cannot change: the sample changed under the same settings
            log.warning("the sample of this configuration changed since its MLflow run was "
                        "first logged (%s): the new sizes are logged as metrics", ", ".join(
                            f"{k} {logged[k]} -> {counts[k]}" for k in sorted(changed)))
        log_params_metrics(self.client, self.run_id,
                           {k: v for k, v in counts.items() if k not in logged},
                           rounded({**values, **changed}))
        _log_artifacts(self.client, self.run_id, self.name, run_dir, metrics, records,
                       generations)
        from monitorbench.tracking.console import run_readme, type_counts

        readme = run_readme(self.name, self.full_name, {**metrics, **type_counts(records)})
        self.client.set_tag(self.run_id, "mlflow.note.content", readme)   # the run's page
        self.client.log_text(self.run_id, readme, "README.md")
        from monitorbench.tracking.mlflow_traces import log_generation_traces

        log_generation_traces(self.client, self.run_id, self.experiment_id,
                              {tid: Path(g.trace_path) for tid, g in generations.items()
                               if g.trace_path and Path(g.trace_path).is_file()}, records)
        self.client.set_terminated(self.run_id, "FINISHED")

    def close_out(self) -> None:
        """The job's last word on tracking, after its local results and summary: nothing when
        the run was logged; else one line (an error, or a warning with
        ``tracking.when_down=log_later``) saying the run was not logged and how to log it."""
        from monitorbench.tracking.connection import not_logged

        if self.down is None:
            return
        line = not_logged(self.uri, self.down)
        if self.when_down == "fail":
            raise line
        log.warning("%s", line)


def _reason(error: BaseException) -> str:
    from monitorbench.tracking.connection import reason

    return reason(error)


def _unreachable(error: BaseException) -> bool:
    from monitorbench.tracking.connection import is_unreachable

    return is_unreachable(error)


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
