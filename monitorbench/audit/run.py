"""The audit as a job: audit each configured suite, write reports and exclusions, log to MLflow.

``run_audit(conf)`` takes the same typed config as a judging job (``conf.task.suites``,
``conf.paths``, ``conf.tracking``), so ``python -m monitorbench +experiment=audit`` can sweep it
over suites. ``task.max_tasks_per_type`` audits a seeded slice (``task.sample_seed``); only a
whole-suite audit writes ``audit.json`` - a slice cannot vouch for the tasks it skipped.
Reference reruns per case: ``max(2, task.rounds.*)``. The entry point types the config once;
the sample is the pipeline's (:mod:`monitorbench.pipeline.prepare`), so an audit slice audits
exactly the tasks a judging job with the same task settings would judge.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Mapping

from monitorbench.audit.audit import MIN_REPEATS, SuiteAudit, audit_suite
from monitorbench.audit.exclusions import AUDIT_FILE, write_exclusions
from monitorbench.audit.prepare import build_suite
from monitorbench.audit.report import write_report
from monitorbench.config import MonitorbenchConfig, TaskConfig
from monitorbench.pipeline.prepare import sample_per_type
from monitorbench.suites.format import load_suite

log = logging.getLogger(__name__)
EXPERIMENT = "audit"


def _task_ids(task_cfg: TaskConfig, root: Path) -> list[str] | None:
    """None for the whole suite, else the seeded per-type sample a judging job with the same
    task settings would select (:func:`monitorbench.pipeline.prepare.sample_per_type`)."""
    if task_cfg.max_tasks_per_type is None:
        return None
    suite = load_suite(root, verify_hashes=False)
    by_type: dict[str, list[str]] = {}
    for t in suite.tasks.values():
        by_type.setdefault(t.task_type, []).append(t.task_id)
    return sample_per_type(by_type, task_cfg.max_tasks_per_type, task_cfg.sample_seed)


def _log_mlflow(cfg: MonitorbenchConfig, audit: SuiteAudit, files: Mapping[str, Path],
                exclusions: Path | None, parent_run_id: str | None) -> str:
    from monitorbench.tracking.mlflow_logger import (client_for, experiment_id,
                                                     log_params_metrics, start_run, tracking_uri)

    outputs = Path(cfg.paths.outputs)
    client = client_for(tracking_uri(cfg.tracking.tracking_uri, outputs))
    exp = experiment_id(client, cfg.tracking.experiment_name or EXPERIMENT, outputs)
    run_id = start_run(client, exp, f"audit|{audit.name}",
                       {"monitorbench.role": "audit", "monitorbench.suite": audit.name,
                        "monitorbench.suite_hash": audit.suite_hash}, parent_run_id)
    try:
        log_params_metrics(client, run_id, {"suite": audit.name, "suite_hash": audit.suite_hash,
                                            "repeats": str(audit.repeats),
                                            "tasks_audited": str(len(audit.tasks))},
                           audit.metrics())
        for path in files.values():
            client.log_artifact(run_id, str(path))
        if exclusions is not None:
            client.log_artifact(run_id, str(exclusions))
        client.set_terminated(run_id, "FINISHED")
    except BaseException:
        client.set_terminated(run_id, "FAILED")
        raise
    return run_id


def log_exclusions(audit: SuiteAudit) -> None:
    """One log line per reason of every excluded task, evidence included, so the shell shows
    what the audit flagged (C7 findings first-hand, not only a count)."""
    for t in audit.failed():
        for r in t.reasons():
            log.info("excluded %s [%s] %s", t.task_id, r["code"], r["evidence"])


def run_audit(conf: MonitorbenchConfig, *, parent_run_id: str | None = None
              ) -> dict[str, float]:
    """Audit every suite in ``conf.task.suites``; returns ``<suite>/<metric>`` numbers and
    totals (``tasks``, ``tasks_excluded``, ``seconds``). ``conf``: the typed config its entry
    point converted once."""
    t0 = time.perf_counter()
    repeats = max(MIN_REPEATS, *(int(n) for n in conf.task.rounds.values()))
    out: dict[str, float] = {"tasks": 0, "tasks_excluded": 0}
    for ref in conf.task.suites:
        root = build_suite(Path(conf.paths.suites), ref.name, dict(ref.options))
        ids = _task_ids(conf.task, root)
        audit = audit_suite(root, repeats=repeats, task_ids=ids)
        report_dir = Path(conf.paths.outputs) / "audit" / root.name / audit.suite_hash[:12]
        files = write_report(audit, report_dir)
        exclusions = write_exclusions(audit) if ids is None else None
        m = audit.metrics()
        log.info("audit %s: %d tasks, %d excluded, %d mutation configurations, %.1f s; report %s%s",
                 audit.name, m["tasks"], m["tasks_excluded"], m["mutation_configurations"],
                 audit.seconds, files["md"],
                 f"; exclusions {exclusions}" if exclusions else
                 f" (slice: {AUDIT_FILE} not written)")
        log_exclusions(audit)
        if conf.tracking.enabled:
            _log_mlflow(conf, audit, files, exclusions, parent_run_id)
        out.update({f"{audit.name}/{k}": v for k, v in m.items()})
        out["tasks"] += m["tasks"]
        out["tasks_excluded"] += m["tasks_excluded"]
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out
