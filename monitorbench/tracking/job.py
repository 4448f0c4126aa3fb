"""Log one finished job to MLflow: params, metrics, config, judgments, verifiers, plot, traces."""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any, Mapping

from omegaconf import DictConfig, OmegaConf

from monitorbench.generation.base import GenerationResult
from monitorbench.tracking.mlflow_logger import (client_for, experiment_id, flatten,
                                                 log_params_metrics, start_run, tracking_uri)

log = logging.getLogger(__name__)


def run_name(cfg: DictConfig) -> str:
    return f"{cfg.generator.name}|{cfg.scaffold.name}|{cfg.access.name}|{cfg.task.name}"


def log_job(cfg: DictConfig, *, run_dir: Path, run_key: str, metrics: Mapping[str, float],
            records: list[Mapping[str, Any]], generations: Mapping[str, GenerationResult],
            parent_run_id: str | None) -> str:
    """Create the job's MLflow run (under the sweep's parent when there is one)."""
    from monitorbench.tracking.plots import plot_tpr_tnr, plot_type_bars

    outputs = Path(cfg.paths.outputs)
    client = client_for(tracking_uri(cfg.tracking.tracking_uri, outputs))
    exp = experiment_id(client, cfg.tracking.experiment_name or cfg.experiment_name, outputs)
    tags = {"monitorbench.run_key": run_key, "monitorbench.generator": str(cfg.generator.name),
            "monitorbench.scaffold": str(cfg.scaffold.name),
            "monitorbench.access": str(cfg.access.name), "monitorbench.task": str(cfg.task.name)}
    run_id = start_run(client, exp, run_name(cfg), tags, parent_run_id)
    try:
        params = flatten(OmegaConf.to_container(cfg, resolve=True))
        params = {k: v for k, v in params.items() if not k.startswith("paths.")}
        log_params_metrics(client, run_id, params, metrics)
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
            if vroot.exists():
                client.log_artifacts(run_id, str(vroot), "verifiers")
            if troot.exists():
                client.log_artifacts(run_id, str(troot), "traces")
            if "tpr" in metrics and "tnr" in metrics:
                name = run_name(cfg)
                client.log_artifact(run_id, str(plot_tpr_tnr(
                    {name: metrics}, Path(tmp) / "tpr_vs_tnr.png",
                    title=f"{name}: TPR vs TNR")), "plots")
                client.log_artifact(run_id, str(plot_type_bars(
                    metrics, Path(tmp) / "per_type.png", title=f"{name}: per task type")),
                    "plots")
        client.set_terminated(run_id, "FINISHED")
    except BaseException:
        client.set_terminated(run_id, "FAILED")
        raise
    log.info("logged MLflow run %s to %s", run_id, client.tracking_uri)
    return run_id


def _columns(records: list[Mapping[str, Any]]) -> dict[str, list[Any]]:
    from monitorbench.judging.store import RECORD_FIELDS

    return {f: [r.get(f) for r in records] for f in RECORD_FIELDS if f != "detail"}
