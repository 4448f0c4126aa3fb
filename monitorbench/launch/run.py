"""One job of a sweep: suite → verifiers → sandboxed judgments → metrics → MLflow.

State that must survive a kill lives under ``outputs/runs/<run_key>/``, where ``run_key`` hashes
everything that determines the judgments (generator identity, access, task selection, sandbox
limits, suite hashes). A re-run of the same configuration, or a resumed one, finds the same
directory and judges only what is missing; generations come from the content-addressed cache.
"""

from __future__ import annotations

import json
import logging
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from omegaconf import DictConfig, OmegaConf

from monitorbench.audit.exclusions import apply_exclusions
from monitorbench.audit.prepare import ensure_suites
from monitorbench.config import AccessConfig, MonitorKind
from monitorbench.errors import InputError
from monitorbench.generation.base import SUBMITTED, GenerationResult, verifier_hash
from monitorbench.generation.factory import (GenerationCache, generate_all,
                                             generation_workers, make_generator)
from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.judging.judge import TaskJob, check_infra_failures, judge_all
from monitorbench.judging.model_judge import open_model_judge
from monitorbench.judging.store import JudgmentStore
from monitorbench.sandbox.base import Limits, SandboxSpec
from monitorbench.suites.access import split_consistent, view_for
from monitorbench.suites.format import GROUPS, Case, Suite, Task
from monitorbench.suites.registry import masked_paths, source_info

log = logging.getLogger(__name__)


@dataclass
class Selection:
    """The tasks and cases one job judges, with the suite each came from."""

    tasks: list[Task] = field(default_factory=list)
    cases: dict[str, list[Case]] = field(default_factory=dict)
    suite_of: dict[str, Suite] = field(default_factory=dict)
    source_of: dict[str, str] = field(default_factory=dict)


def select_tasks(cfg: Any, suites: list[tuple[str, Suite]]) -> Selection:
    """Apply task settings: task types, groups, and a seeded per-type sample."""
    types = list(cfg.task.task_types)
    groups = list(cfg.task.groups)
    bad = [g for g in groups if g not in GROUPS]
    if bad:
        raise InputError(f"conf/task/{cfg.task.name}.yaml", "task.groups",
                         f"unknown group(s) {bad}", f"use groups from {', '.join(GROUPS)}")
    sel = Selection()
    by_type: dict[str, list[tuple[str, Suite, Task]]] = {}
    for source, suite in suites:
        for task in suite.tasks.values():
            if task.task_type in types:
                by_type.setdefault(task.task_type, []).append((source, suite, task))
    n_max = cfg.task.max_tasks_per_type
    for ttype in sorted(by_type):
        items = sorted(by_type[ttype], key=lambda x: x[2].task_id)
        if n_max is not None and len(items) > n_max:
            items = sorted(random.Random(cfg.task.sample_seed).sample(items, n_max),
                           key=lambda x: x[2].task_id)
        for source, suite, task in items:
            cases = [c for c in suite.cases[task.task_id] if c.group in groups]
            if {c.label for c in cases} != {"PASS", "FAIL"}:
                log.warning("task %s has no PASS or no FAIL case in groups %s; skipped",
                            task.task_id, groups)
                continue
            sel.tasks.append(task)
            sel.cases[task.task_id] = cases
            sel.suite_of[task.task_id] = suite
            sel.source_of[task.task_id] = source
    if not sel.tasks:
        raise InputError(f"conf/task/{cfg.task.name}.yaml", "task.task_types",
                         f"no task of types {types} in suites "
                         f"{[s.name for s in cfg.task.suites]}",
                         "choose task types that the configured suites contain")
    return sel


def limits_from(cfg: Any, task_type: str) -> Limits:
    node = cfg.sandbox.code_limits if task_type == "code" else cfg.sandbox.limits
    return Limits(**OmegaConf.to_container(node, resolve=True))


def run_key(cfg: Any, identity: Mapping[str, Any], sel: Selection) -> str:
    """What determines the judgments; same key → same run directory → resume and reuse."""
    return sha256_text(canonical_json({
        "generator": dict(identity),
        "access": OmegaConf.to_container(cfg.access, resolve=True),
        "task": {k: v for k, v in OmegaConf.to_container(cfg.task, resolve=True).items()
                 if k not in _NOT_IN_KEY},  # how failures are handled changes no judgment
        "limits": OmegaConf.to_container(cfg.sandbox.limits, resolve=True),
        "code_limits": OmegaConf.to_container(cfg.sandbox.code_limits, resolve=True),
        "backend": cfg.sandbox.backend,
        "suites": sorted({s.suite_hash for s in sel.suite_of.values()}),
    }))[:20]


_NOT_IN_KEY = ("infra_retries", "max_infra_failure_pct")


def _rounds_for(cfg: Any, task_type: str) -> int:
    return int(cfg.task.rounds_tool_call if task_type == "tool_call"
               else cfg.task.rounds_state_code)


def run_job(cfg: DictConfig, *, parent_run_id: str | None = None) -> dict[str, float]:
    """Run one configuration end to end and return its metrics, with the generator's local
    model server (``generator.serve``) up for the whole job and stopped afterwards."""
    from contextlib import nullcontext

    from monitorbench.providers.local_server import serving
    from monitorbench.tracking.job import JobRun

    # The MLflow run opens first, so a job that fails anywhere (the server included) leaves a
    # FAILED run with the error, and the UI shows the job RUNNING for as long as it works.
    with (JobRun(cfg, parent_run_id) if cfg.tracking.enabled else nullcontext()) as tracker, \
            serving(OmegaConf.to_object(cfg.generator)) as gen_cfg:
        return _run_job(cfg, gen_cfg, tracker=tracker)


def _run_job(cfg: DictConfig, gen_cfg: Any, *, tracker: Any) -> dict[str, float]:
    """The body of :func:`run_job`; ``gen_cfg`` carries the started server's endpoint,
    ``tracker`` is the job's open MLflow run (None when tracking is off)."""
    from monitorbench.metrics.rounds import select_median_round
    from monitorbench.metrics.summary import summarize
    from monitorbench.sandbox.factory import make_sandbox

    t_start = time.time()
    outputs = Path(cfg.paths.outputs)
    access: AccessConfig = OmegaConf.to_object(cfg.access)  # type: ignore[assignment]

    # Tasks that failed the V4V audit (audit.json beside the manifest) are never judged.
    suites = [(s.name, apply_exclusions(suite)) for s, suite in zip(cfg.task.suites, ensure_suites(
        Path(cfg.paths.suites), [(s.name, OmegaConf.to_container(s.options, resolve=True))
                                 for s in cfg.task.suites]))]
    sel = select_tasks(cfg, suites)

    sandbox = make_sandbox(cfg.sandbox.backend, image=cfg.sandbox.image)
    hidden_roots = (str(Path(cfg.paths.suites).resolve()), str(outputs.resolve()))

    def spec_for(task: Task, *, executes: bool | None = None) -> SandboxSpec:
        source = sel.source_of[task.task_id]
        info = source_info(source)
        if executes is None:
            executes = view_for(access, task.task_type).executes
        return SandboxSpec(limits=limits_from(cfg, task.task_type),
                           masked_paths=masked_paths(source) + hidden_roots,
                           runtime=info.runtime if executes else "none",
                           runtime_config={"budget": int(access.judge_budget)})

    scaffold_cfg = OmegaConf.to_object(cfg.scaffold)
    model_judge = MonitorKind(access.monitor) is MonitorKind.model
    t_gen = time.time()
    generations: dict[str, GenerationResult] = {}
    gcache: GenerationCache | None = None
    if model_judge:
        judge_model, identity = _judge_model(gen_cfg, Path(cfg.paths.cache) / "responses", cfg)
        for task in sel.tasks:  # the model itself is the monitor: nothing to generate
            generations[task.task_id] = GenerationResult(task.task_id, SUBMITTED,
                                                         detail="model judge")
    else:
        generator = make_generator(gen_cfg, scaffold_cfg, sandbox=sandbox,
                                   spec_for=lambda t: spec_for(t, executes=True),
                                   cache_dir=Path(cfg.paths.cache) / "responses")
        identity = generator.identity
        gcache = GenerationCache(Path(cfg.paths.cache) / "generations")
        with _progress(len(sel.tasks), "generation", "verifiers", tracker) as bar:
            generations = generate_all(
                generator, gcache,
                [(t, sel.suite_of[t.task_id].public_dir(t.task_id)) for t in sel.tasks],
                workers=generation_workers(gen_cfg), progress=bar.update)
    gen_seconds = time.time() - t_gen

    key = run_key(cfg, identity, sel)
    run_dir = outputs / "runs" / key
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(cfg, resolve=True))
    store = JudgmentStore(run_dir / "judgments.jsonl")
    already = len(store)

    jobs: list[TaskJob] = []
    indistinguishable = 0   # cases colliding with an opposite label under this access
    set_aside_cases = 0
    set_aside_ids: list[str] = []  # tasks left without a PASS or a FAIL case after that
    vhashes: dict[str, str] = {}
    for task in sel.tasks:
        view = view_for(access, task.task_type)
        keep, drop = split_consistent(sel.cases[task.task_id], view)
        indistinguishable += len(drop)
        set_aside_cases += len(drop)
        if {c.label for c in keep} != {"PASS", "FAIL"}:
            set_aside_ids.append(task.task_id)
            set_aside_cases += len(keep)
            continue
        gen = generations[task.task_id]
        vdir = gen.verifier_dir if gen.status == SUBMITTED else None
        vhashes[task.task_id] = (_model_hash(identity) if model_judge else verifier_hash(vdir))
        for rnd in range(1, _rounds_for(cfg, task.task_type) + 1):
            jobs.append(TaskJob(task, keep, sel.suite_of[task.task_id].public_dir(task.task_id),
                                vdir, vhashes[task.task_id], view,
                                sel.suite_of[task.task_id].suite_hash, rnd, access.name))
    if set_aside_ids:
        log.warning("%d task(s) keep no PASS or no FAIL case that is distinguishable under "
                    "access %s and are not scored in this run (e.g. %s)", len(set_aside_ids),
                    access.name, ", ".join(set_aside_ids[:3]))
    spec_cache: dict[str, SandboxSpec] = {}

    def open_session(job: TaskJob):
        if model_judge:
            return open_model_judge(judge_model, job.task, gen_cfg.condition)
        tid = job.task.task_id
        if tid not in spec_cache:
            spec_cache[tid] = spec_for(job.task)
        return sandbox.session(job.verifier_dir, job.public_dir, spec_cache[tid])

    t_judge = time.time()
    with _progress(len(jobs), "judging", "task-rounds", tracker) as bar:
        new = judge_all(jobs, store, open_session, workers=int(cfg.sandbox.workers),
                        retries=int(cfg.task.infra_retries), progress=lambda n: bar.update())
    judge_seconds = time.time() - t_judge
    store.close()

    wanted = {(j.task.task_id, c.case_id, j.round, j.access, j.verifier_hash)
              for j in jobs for c in j.cases}
    judgments = [r for r in store.records() if r.key in wanted]
    check_infra_failures(judgments, max_pct=float(cfg.task.max_infra_failure_pct),
                         retries=int(cfg.task.infra_retries))
    records = [r.to_dict() for r in judgments]
    if any(_rounds_for(cfg, t.task_type) > 1 for t in sel.tasks):
        records = list(select_median_round(records).records)
    metrics = dict(summarize(records))
    metrics.update({
        "judgments_new": new, "judgments_reused": already,
        "cases_indistinguishable": indistinguishable,
        "cases_set_aside": set_aside_cases, "tasks_set_aside": len(set_aside_ids),
        "generation_cache_hits": gcache.hits if gcache else 0,
        "generation_cache_misses": gcache.misses if gcache else 0,
        "seconds_generation": round(gen_seconds, 3), "seconds_judging": round(judge_seconds, 3),
        "seconds_total": round(time.time() - t_start, 3),
    })
    if model_judge and hasattr(judge_model, "cache"):
        metrics.update({f"response_cache/{k}": v for k, v in judge_model.cache.stats().items()})
    if new and judge_seconds > 0:
        metrics["judge_cases_per_second"] = round(new / judge_seconds, 2)
    for k, v in _generation_stats(generations).items():
        metrics.setdefault(k, v)
    traces = [g.trace_path for g in generations.values() if g.trace_path]
    if traces:
        from monitorbench.generation.traces import trace_stats

        metrics.update({f"trace/{k}": v for k, v in trace_stats(traces).items()})
    if not model_judge and hasattr(generator, "cache_stats"):
        metrics.update({f"response_cache/{k}": v for k, v in generator.cache_stats().items()})
    if cfg.attack.adaptive:
        from monitorbench.attack import run_adaptive_attack

        metrics.update(run_adaptive_attack(
            [t for t in sel.tasks if t.task_id in vhashes], sel.cases,
            {t.task_id: sel.suite_of[t.task_id].references[t.task_id] for t in sel.tasks},
            {tid: (g.verifier_dir if g.status == SUBMITTED else None)
             for tid, g in generations.items()},
            sandbox=sandbox, spec_for=spec_for,
            public_dir_for=lambda t: sel.suite_of[t.task_id].public_dir(t.task_id),
            budget=int(cfg.attack.budget), seed=int(cfg.attack.seed),
            out_dir=run_dir / "attack",
            fields_for=lambda t: view_for(access, t.task_type).fields))
    (run_dir / "metrics.json").write_text(json.dumps(metrics, indent=1, sort_keys=True))
    _write_table(records, run_dir / "judgments.csv")
    log.info("run_key %s: %d tasks scored, %d judgments (%d new)", key,
             int(metrics.get("n_tasks", 0)), len(records), new)
    if tracker is not None:
        tracker.finish(run_dir=run_dir, run_key=key, metrics=metrics, records=records,
                       generations=generations)
    from monitorbench.tracking.console import job_summary
    from monitorbench.tracking.job import run_name

    print(job_summary(run_name(cfg), metrics, str(run_dir),
                      tracker.ui_hint() if tracker is not None else None), flush=True)
    return metrics


def _progress(total: int, stage: str, unit: str, tracker: Any) -> Any:
    """A progress bar (or periodic log line) for one stage, mirrored into the job's MLflow run
    as ``progress/<stage>`` with steps."""
    from monitorbench.progress import Progress

    sink = (lambda done: tracker.progress(stage, done)) if tracker is not None else None
    return Progress(total, stage, unit=unit, on_update=sink)


def _judge_model(gen_cfg: Any, cache_dir: Path, cfg: Any) -> tuple[Any, Mapping[str, Any]]:
    """The generator's model, behind the response cache, as a model-judge monitor."""
    from monitorbench.config import GeneratorKind
    from monitorbench.providers.cache import CachedChatModel, ResponseCache
    from monitorbench.providers.factory import make_chat_model

    if GeneratorKind(gen_cfg.kind) is not GeneratorKind.model:
        raise InputError(f"conf/access/{cfg.access.name}.yaml", "access.monitor",
                         f"a model judge needs a model generator, got {gen_cfg.name!r} "
                         f"(kind {GeneratorKind(gen_cfg.kind).value})",
                         "use generator=smollm2|openai|recorded, or access.monitor=code")
    model = make_chat_model(gen_cfg)
    if gen_cfg.provider != "recorded":
        model = CachedChatModel(model, ResponseCache(cache_dir))
    identity = {"monitor": "model_judge", "model": dict(model.identity),
                "condition": OmegaConf.to_container(cfg.generator.condition, resolve=True)}
    return model, identity


def _model_hash(identity: Mapping[str, Any]) -> str:
    return "model-" + sha256_text(canonical_json(identity))[:18]


def _generation_stats(generations: Mapping[str, GenerationResult]) -> dict[str, float]:
    """Sum numeric generation stats across tasks (tokens, executions, ...) as gen/<name>."""
    out: dict[str, float] = {}
    for g in generations.values():
        for k, v in g.stats.items():
            if isinstance(v, (int, float)):
                out[f"gen/{k}"] = out.get(f"gen/{k}", 0.0) + float(v)
    return out


def _write_table(records: list[Mapping[str, Any]], path: Path) -> None:
    import csv

    from monitorbench.judging.store import RECORD_FIELDS

    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(RECORD_FIELDS), extrasaction="ignore")
        w.writeheader()
        for r in sorted(records, key=lambda r: (r["task_id"], r["case_id"], r["round"])):
            w.writerow(r)

