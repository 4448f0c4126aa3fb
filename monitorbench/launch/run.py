"""One job of a sweep: suite → verifiers → sandboxed judgments → metrics → MLflow.

State that must survive a kill lives under ``outputs/runs/<run_key>/``, where ``run_key`` hashes
everything that determines the judgments (generator identity, access, task selection, sandbox
limits, suite hashes and the hashes of their audits). A re-run of the same configuration, or a
resumed one, finds the same directory and judges only what is missing; generations come from the
content-addressed cache. One job at a time holds a run directory (:mod:`monitorbench.launch.
run_lock`): an identical job started meanwhile refuses, or waits with ``wait_for_lock=true``.

The stages shared with ``monitorbench score`` and the audit (selection, sandbox spec, judging
jobs, scoring) live in :mod:`monitorbench.pipeline`; this module runs them in order for a job,
with generation, the adaptive attack and tracking around them.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from monitorbench.audit.exclusions import apply_exclusions
from monitorbench.audit.prepare import ensure_suites
from monitorbench.config import (GeneratorConfig, MonitorbenchConfig, MonitorKind,
                                 check_axes, check_limits)
from monitorbench.generation.base import GenerationResult, GenStatus, verifier_hash
from monitorbench.generation.factory import (GenerationCache, generate_all,
                                             generation_workers, make_generator)
from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.judging.judge import OpenSession, judge_all
from monitorbench.judging.model_judge import open_model_judge
from monitorbench.judging.records import Judgment
from monitorbench.judging.store import JudgmentStore
from monitorbench.judging.verdict_cache import VerdictCache
from monitorbench.launch.run_identity import earlier_keys, key_material, run_key
from monitorbench.launch.run_lock import adopt_judgments, interrupted_hint, run_lock
from monitorbench.pipeline import prepare
from monitorbench.pipeline.endpoint import StopOnUnreachable, check_endpoint
from monitorbench.pipeline.judge import (JobPlan, collect, plan_jobs, sandbox_sessions,
                                         sandbox_settings)
from monitorbench.pipeline.prepare import Selection, Specs
from monitorbench.pipeline.score import score
from monitorbench.sandbox.base import Limits, Sandbox
from monitorbench.suites.access import view_for
from monitorbench.suites.format import Suite, Task
from monitorbench.tracking.sweep_record import SweepPlace

__all__ = ["Selection", "config_yaml", "limits_from", "run_job", "run_key", "select_tasks"]

log = logging.getLogger(__name__)


def select_tasks(conf: MonitorbenchConfig, suites: list[tuple[str, Suite]]) -> Selection:
    """The tasks a job with config ``conf`` judges (:func:`monitorbench.pipeline.prepare.
    select_tasks` on its ``task`` settings)."""
    return prepare.select_tasks(conf.task, suites)


def limits_from(conf: MonitorbenchConfig, task_type: str) -> Limits:
    """The per-case limits a job with config ``conf`` gives a task type."""
    return prepare.limits_for(conf.sandbox, task_type)


def config_yaml(conf: MonitorbenchConfig) -> str:
    """The job's ``config.yaml``: the typed config as YAML, in the schema's key order, exactly
    the text Hydra's composed config gave (the generator's own schema fields included)."""
    from omegaconf import OmegaConf

    from monitorbench.tracking.job import as_node

    return OmegaConf.to_yaml(as_node(conf), resolve=True)


def run_job(conf: MonitorbenchConfig, *, place: SweepPlace = SweepPlace()) -> dict[str, float]:
    """Run one configuration end to end and return its metrics, with the generator's local
    model server (``generator.serve``) up for the whole job and stopped afterwards. ``conf``:
    the typed config the entry point converted once (:func:`monitorbench.pipeline.prepare.
    typed_config`); ``place``: the job's parent run and name labels in its sweep (nothing for
    a single run)."""
    from contextlib import nullcontext

    from monitorbench.providers.local_server import serving
    from monitorbench.tracking.job import JobRun, run_name

    check_limits(conf)        # entry points check at compose time; the Python API here
    check_axes(conf)
    # config.yaml records the job as configured: before a served model fills in its endpoint.
    text = config_yaml(conf)
    # The MLflow run opens first, so a job that fails anywhere (the server included) leaves a
    # FAILED run with the error, and the UI shows the job RUNNING for as long as it works.
    with (JobRun(conf, place) if conf.tracking.enabled else nullcontext()) as tracker, \
            serving(conf.generator) as gen_cfg:
        return _run_job(replace(conf, generator=gen_cfg), text, tracker=tracker,
                        name=run_name(conf, place))


@dataclass
class Generated:
    """The generate stage's result: one generation per task and who generated them."""

    generations: dict[str, GenerationResult]
    identity: Mapping[str, Any]
    seconds: float
    cache: GenerationCache | None = None
    generator: Any = None      # the verifier generator (None when a model judges)
    judge_model: Any = None    # the model judge (None when a verifier program judges)

    def verifier_of(self, task: Task) -> tuple[Path | None, str]:
        """The directory (None: nothing submitted) and hash a task is judged with."""
        if self.judge_model is not None:
            return None, "model-" + sha256_text(canonical_json(self.identity))[:18]
        gen = self.generations[task.task_id]
        vdir = gen.verifier_dir if gen.status == GenStatus.submitted else None
        return vdir, verifier_hash(vdir)


def _run_job(conf: MonitorbenchConfig, config_text: str, *, tracker: Any,
             name: str) -> dict[str, float]:
    """The body of :func:`run_job`: the stages in order. ``conf.generator`` carries the started
    server's endpoint, ``config_text`` is the job's config.yaml, ``tracker`` its open MLflow
    run (None when tracking is off), ``name`` its run name for the summary."""
    from monitorbench.sandbox.factory import make_sandbox
    from monitorbench.suites.sandbox_image import image_recipe

    t_start = time.time()
    sel = prepare.select_tasks(conf.task, _load_suites(conf))
    sandbox = make_sandbox(conf.sandbox.backend, image=conf.sandbox.image, recipe=image_recipe())
    specs = Specs(conf, sel)
    gen = _generate(conf, sel, sandbox, specs, tracker)
    material = key_material(conf, gen.identity, sel.suite_of.values())
    key = run_key(material)
    run_dir = Path(conf.paths.outputs) / "runs" / key
    with run_lock(run_dir, wait=conf.wait_for_lock), interrupted_hint(run_dir):
        any(adopt_judgments(run_dir, run_dir.parent / old) for old in earlier_keys(material))
        (run_dir / "config.yaml").write_text(config_text)
        plan = plan_jobs(sel, conf.access, conf.task, gen.verifier_of, sandbox_settings(
            specs, conf.sandbox) if gen.judge_model is None else None)
        judgments, counts = _judge(conf, plan, run_dir, _opener(conf, gen, sandbox, specs),
                                   tracker)
        records, metrics = score(judgments, several_rounds=any(
            prepare.rounds_for(conf.task, t.task_type) > 1 for t in sel.tasks))
        metrics.update(counts)
        metrics.update(_job_metrics(plan, gen))
        metrics["timing/seconds_total"] = round(time.time() - t_start, 3)
        if conf.attack.adaptive:
            metrics.update(_attack(conf, sel, plan, gen, sandbox, specs, run_dir, records))
        _finish(run_dir, key, metrics, records, gen, tracker, name)
    return metrics


def _load_suites(conf: MonitorbenchConfig) -> list[tuple[str, Suite]]:
    """The configured suites, built (and audited) on first use; tasks that failed the V4V
    audit (audit.json beside the manifest) are never judged."""
    refs = conf.task.suites
    return [(ref.name, apply_exclusions(suite)) for ref, suite in zip(refs, ensure_suites(
        Path(conf.paths.suites), [(ref.name, dict(ref.options)) for ref in refs]))]


def _generate(conf: MonitorbenchConfig, sel: Selection, sandbox: Sandbox, specs: Specs,
              tracker: Any) -> Generated:
    """Generate stage: one verifier per task through the generation cache, or, when the
    generator's model itself is the monitor, nothing to generate."""
    t0 = time.time()
    responses = Path(conf.paths.cache) / "responses"
    if MonitorKind(conf.access.monitor) is MonitorKind.model:
        model, identity = _judge_model(conf, responses)
        generations = {t.task_id: GenerationResult(t.task_id, GenStatus.submitted.value,
                                                   detail="model judge") for t in sel.tasks}
        return Generated(generations, identity, time.time() - t0, judge_model=model)
    generator = make_generator(conf.generator, conf.scaffold, sandbox=sandbox,
                               spec_for=lambda t: specs(t, executes=True), cache_dir=responses)
    gcache = GenerationCache(Path(conf.paths.cache) / "generations")
    with _progress(len(sel.tasks), "generation", "verifiers", tracker) as bar:
        generations = generate_all(StopOnUnreachable(generator), gcache,
                                   [(t, sel.public_dir(t)) for t in sel.tasks],
                                   workers=generation_workers(conf.generator),
                                   progress=bar.update)
    check_endpoint(generations)  # an unreachable model is no result: the job stops here
    return Generated(generations, generator.identity, time.time() - t0, cache=gcache,
                     generator=generator)


def _opener(conf: MonitorbenchConfig, gen: Generated, sandbox: Sandbox,
            specs: Specs) -> OpenSession:
    """How a judging job opens its session: the model judge, or the verifier in the sandbox."""
    if gen.judge_model is None:
        return sandbox_sessions(sandbox, specs)
    condition = conf.generator.condition
    return lambda job: open_model_judge(gen.judge_model, job.task, condition)


def _judge(conf: MonitorbenchConfig, plan: JobPlan, run_dir: Path, open_session: OpenSession,
           tracker: Any) -> tuple[list[Judgment], dict[str, float]]:
    """Judge stage: every job's missing judgments into the run's store, then this
    configuration's judgments and the counts of new and reused ones."""
    store = JudgmentStore(run_dir / "judgments.jsonl")
    shared = VerdictCache(Path(conf.paths.cache) / "verdicts")
    already = len(store)
    t0 = time.time()
    try:
        with _progress(len(plan.jobs), "judging", "task-rounds", tracker) as bar:
            new = judge_all(plan.jobs, store, open_session, workers=int(conf.sandbox.workers),
                            retries=int(conf.task.infra_retries),
                            max_infra_failure_pct=float(conf.task.max_infra_failure_pct),
                            progress=lambda n: bar.update(), cache=shared)
    finally:
        store.close()
    seconds = time.time() - t0
    # judgments_new counts the records this run wrote; judgments_shared those of them whose
    # verdict another run had already executed (the verdict cache), so not executed again.
    counts: dict[str, float] = {"cache/judgments_new": new, "cache/judgments_reused": already,
                                "cache/judgments_shared": shared.hits,
                                "timing/seconds_judging": round(seconds, 3)}
    if new and seconds > 0:
        counts["timing/judge_cases_per_second"] = round(new / seconds, 2)
    return collect(store, plan.jobs, conf.task), counts


def _job_metrics(plan: JobPlan, gen: Generated) -> dict[str, float]:
    """What the job set aside, its generation's cost and cache use, and trace statistics."""
    out: dict[str, float] = {
        "cases_indistinguishable": plan.indistinguishable,
        "cases_set_aside": plan.set_aside_cases, "tasks_set_aside": len(plan.set_aside_ids),
        "cache/generation_hits": gen.cache.hits if gen.cache else 0,
        "cache/generation_misses": gen.cache.misses if gen.cache else 0,
        "timing/seconds_generation": round(gen.seconds, 3),
    }
    if gen.judge_model is not None and hasattr(gen.judge_model, "cache"):
        out.update({f"cache/response/{k}": v for k, v in gen.judge_model.cache.stats().items()})
    for k, v in _generation_stats(gen.generations).items():
        out.setdefault(k, v)
    traces = [g.trace_path for g in gen.generations.values() if g.trace_path]
    if traces:
        from monitorbench.generation.traces import trace_stats

        out.update({f"trace/{k}": v for k, v in trace_stats(traces).items()})
    if gen.generator is not None and hasattr(gen.generator, "cache_stats"):
        out.update({f"cache/response/{k}": v for k, v in gen.generator.cache_stats().items()})
    return out


def _attack(conf: MonitorbenchConfig, sel: Selection, plan: JobPlan, gen: Generated,
            sandbox: Sandbox, specs: Specs, run_dir: Path, records: list[dict[str, Any]]
            ) -> dict[str, float]:
    """The adaptive attacker (g4adv) against every judged task's verifier; its static
    evaluation is the job's reported judgments (``records``), not a second judging."""
    from monitorbench.attack import run_adaptive_attack

    judged: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        judged.setdefault(rec["task_id"], []).append(rec)
    return run_adaptive_attack(
        [t for t in sel.tasks if t.task_id in plan.verifier_hashes], sel.cases,
        {t.task_id: sel.suite_of[t.task_id].references[t.task_id] for t in sel.tasks},
        {tid: (g.verifier_dir if g.status == GenStatus.submitted else None)
         for tid, g in gen.generations.items()},
        sandbox=sandbox, spec_for=specs, public_dir_for=sel.public_dir,
        budget=int(conf.attack.budget), seed=int(conf.attack.seed),
        out_dir=run_dir / "attack",
        fields_for=lambda t: view_for(conf.access, t.task_type).fields, judged=judged,
        workers=int(conf.sandbox.workers), search_reject_all=bool(conf.attack.search_reject_all))


def _finish(run_dir: Path, key: str, metrics: dict[str, float], records: list[dict[str, Any]],
            gen: Generated, tracker: Any, name: str) -> None:
    """Track stage: metrics and the judgments table into the run directory, the MLflow run
    finished, and the job's summary printed."""
    from monitorbench.tracking.console import job_summary, point_hydra_dir, type_counts

    (run_dir / "metrics.json").write_text(json.dumps(metrics, indent=1, sort_keys=True))
    _write_table(records, run_dir / "judgments.csv")
    # records are the scored judgments (one round per task); new/reused count every round
    log.info("run_key %s: %d tasks scored on %d judgments; judged now %d (%d of them "
             "verdicts an earlier run had executed), reused %d (all rounds)", key,
             int(metrics.get("n_tasks", 0)), len(records), int(metrics["cache/judgments_new"]),
             int(metrics.get("cache/judgments_shared", 0)), int(metrics["cache/judgments_reused"]))
    if tracker is not None:
        run_id = tracker.finish(run_dir=run_dir, run_key=key, metrics=metrics,
                                records=records, generations=gen.generations)
        if run_id is not None:
            _tag_view(tracker, run_id, str(run_dir))
    hint = tracker.ui_hint() if tracker is not None else None
    print(job_summary(name, {**metrics, **type_counts(records)}, str(run_dir), hint),
          flush=True)
    point_hydra_dir(str(run_dir), hint)
    if tracker is not None:
        tracker.close_out()   # one line when the MLflow store was or went away


def _tag_view(tracker: Any, run_id: str, run_dir: str) -> None:
    """Tag the logged run with the command that opens its cases (``monitorbench.view``), so
    the MLflow page links to the viewer. A store lost just now costs the tag, not the job: the
    results are logged and the console prints the same command."""
    from monitorbench.tracking.connection import is_unreachable
    from monitorbench.tracking.console import VIEW_TAG, view_command

    try:
        tracker.client.set_tag(run_id, VIEW_TAG, view_command(run_dir))
    except Exception as e:
        if not is_unreachable(e):
            raise
        log.warning("the MLflow run %s was logged without its %s tag (%s)", run_id, VIEW_TAG, e)


def _progress(total: int, stage: str, unit: str, tracker: Any) -> Any:
    """A progress bar (or periodic log line) for one stage, mirrored into the job's MLflow run
    as ``progress/<stage>`` with steps."""
    from monitorbench.progress import Progress

    sink = (lambda done: tracker.progress(stage, done)) if tracker is not None else None
    return Progress(total, stage, unit=unit, on_update=sink)


def _judge_model(conf: MonitorbenchConfig, cache_dir: Path) -> tuple[Any, Mapping[str, Any]]:
    """The generator's model, behind the response cache, as a model-judge monitor."""
    from monitorbench.providers.factory import cached_chat_model

    gen_cfg: GeneratorConfig = conf.generator   # a model generator: check_axes at the start
    model, _ = cached_chat_model(gen_cfg, cache_dir)
    identity = {"monitor": "model_judge", "model": dict(model.identity),
                "condition": asdict(gen_cfg.condition)}
    return model, identity


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

    from monitorbench.judging.records import RECORD_FIELDS

    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(RECORD_FIELDS), extrasaction="ignore")
        w.writeheader()
        for r in sorted(records, key=lambda r: (r["task_id"], r["case_id"], r["round"])):
            w.writerow(r)
