"""The job's optional adaptive-attack stage: static vs adaptive attack acceptance.

For every task (tool-call, state and code) with an attack case, the static evaluation is the
job's own judgments of the task's cases (``judged``: the reported round, so static FPR_h is the
job's FPR_h by construction and no case is judged twice); unless an attack case was already
accepted, one sandbox session on the task's generated verifier runs the budgeted search of
:func:`monitorbench.attack.search.attack_task`. Without ``judged`` (standalone use) that session
judges every case first. From the records it reports
(:mod:`monitorbench.attack.metrics`):

- ``attack/fpr_h_static`` / ``attack/fpr_h_adaptive``: the paper's FPR_h over the suite's attack
  cases / over those plus the mutants the search found (same function, same task denominator:
  tasks with attack cases; equal with budget 0), also per task type
  (``attack/<type>/fpr_h_*``);
- ``attack/tasks_broken_static`` / ``_adaptive`` (percent of those tasks where any attack was
  accepted) and the counts ``attack/n_tasks_broken_*``, ``attack/n_attack_tasks``;
- ``attack/tasks_without_operators``: tasks judged but not searched because their source
  declares no attack operators (``SourceSpec.attack``; ``"operators": false`` in attack.json);
- ``attack/tasks_rejecting_all``: tasks not searched because the job's verifier accepted none
  of their cases, valid ones included (an always-reject verifier: every mutant starts from a
  rejected case, so the search would spend its whole budget for nothing);
  ``search_reject_all=True`` (``attack.search_reject_all``) searches them anyway;
- search statistics: ``attack/queries``, ``attack/tasks_found`` (tasks where the search found
  a mutant), mutants discarded as not invalid by construction or refuted by the reference.

A task without a verifier stays in every denominator: all its judgments are U, it accepts
nothing. Only mutants whose construction makes them invalid *and* that the reference rejects
are attacks (:mod:`monitorbench.attack.validity`). Every judgment is persisted:
``out_dir/judgments.jsonl`` (static records, in the judging stage's format),
``out_dir/mutants.jsonl`` (every queried mutant with its outcome), ``out_dir/found/<task>.json``
(each accepted mutant) and ``out_dir/attack.json`` (metrics and per-task statistics). Hidden cases
and the reference stay in this process: only candidates cross into the sandbox. Tasks are attacked
``workers`` at a time (threads, each with its own sandbox session, as the judging stage runs
them); every task's search has its own seeded generator, so the results do not depend on
``workers``.

Public API::

    run_adaptive_attack(tasks, cases, references, verifier_dirs, *, sandbox, spec_for,
                        public_dir_for, budget, seed, out_dir, fields_for=None, judged=None,
                        workers=1) -> dict[str, float]
"""

from __future__ import annotations

import functools
import json
import logging
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from monitorbench.attack.metrics import attack_rates
from monitorbench.attack.search import TaskAttack, attack_task, case_record
from monitorbench.attack.toolkits import toolkit_for
from monitorbench.errors import InputError
from monitorbench.hashing import sha256_text
from monitorbench.metrics.adaptive import with_found
from monitorbench.sandbox.base import MISSING_VERIFIER, Sandbox, SandboxSpec
from monitorbench.suites.access import split_by_fields
from monitorbench.suites.format import Case, Reference, Task
from monitorbench.suites.reference import get_reference

log = logging.getLogger(__name__)


def _task_seed(seed: int, task_id: str) -> int:
    """Per-task seed: the search on one task does not depend on which other tasks ran."""
    return int(sha256_text(f"{seed}:{task_id}")[:16], 16)


def run_adaptive_attack(tasks: Sequence[Task], cases: Mapping[str, Sequence[Case]],
                        references: Mapping[str, Reference],
                        verifier_dirs: Mapping[str, Path | None], *, sandbox: Sandbox,
                        spec_for: Callable[[Task], SandboxSpec],
                        public_dir_for: Callable[[Task], Path], budget: int, seed: int,
                        out_dir: Path,
                        fields_for: Callable[[Task], tuple[str, ...] | None] | None = None,
                        judged: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
                        workers: int = 1, search_reject_all: bool = False) -> dict[str, float]:
    """Evaluate and attack every task with attack cases; return ``attack/*`` metrics (see the
    module doc). ``fields_for(task)`` names the candidate fields the monitor sees under the
    job's access setting (``view_for(access, task.task_type).fields``); None: all of them.
    ``judged``: the job's judgment records by task id (case_id, outcome, reason)."""
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 0:
        raise InputError(None, "attack.budget", f"expected an integer >= 0, got {budget!r}",
                         "set attack.budget to the number of search queries per task, e.g. 50")
    jobs: list[Callable[[], TaskAttack]] = []
    skipped = {"without_attacks": 0, "set_aside": 0}
    for task in tasks:
        fields = fields_for(task) if fields_for else None
        kept = split_by_fields(cases[task.task_id], fields)[0]  # as the judging does
        if not any(c.group == "attack" for c in kept):
            skipped["without_attacks"] += 1
        elif not any(c.label == "PASS" for c in kept):
            skipped["set_aside"] += 1  # as in judging: no scorable positive under this view
        else:
            jobs.append(functools.partial(
                _attack_one, task, kept, references[task.task_id],
                verifier_dirs.get(task.task_id), sandbox=sandbox, spec=spec_for,
                public_dir=public_dir_for(task), fields=fields, budget=budget, seed=seed,
                static=_static_records(task, kept, judged),
                search_reject_all=search_reject_all))
    with ThreadPoolExecutor(max_workers=max(1, int(workers))) as pool:
        results = list(pool.map(lambda job: job(), jobs))  # in task order, whatever finishes first
    metrics = _metrics(results, budget, skipped)
    _persist(results, metrics, Path(out_dir), budget, seed)
    log.info("attack: FPR_h static %.1f, adaptive %.1f; tasks broken %d -> %d of %d "
             "(%d queries)", metrics.get("attack/fpr_h_static", float("nan")),
             metrics.get("attack/fpr_h_adaptive", float("nan")),
             int(metrics.get("attack/n_tasks_broken_static", 0)),
             int(metrics.get("attack/n_tasks_broken_adaptive", 0)), len(results),
             int(metrics["attack/queries"]))
    return metrics


def _suite_hash(task: Task) -> str:
    return f"task-{task.public_hash[:16]}"


def _static_records(task: Task, kept: Sequence[Case],
                    judged: Mapping[str, Sequence[Mapping[str, Any]]] | None
                    ) -> list[dict[str, Any]] | None:
    """The job's judgments of ``kept`` as static records, or None (judge them here) when there
    are none or they do not cover every kept case (logged: the two case selections disagree)."""
    if judged is None:
        return None
    by_case = {r["case_id"]: r for r in judged.get(task.task_id, ())}
    missing = [c.case_id for c in kept if c.case_id not in by_case]
    if missing:
        log.warning("attack: %s has no job judgment for %d case(s) (%s...); judging them here",
                    task.task_id, len(missing), missing[0])
        return None
    return [case_record(task, c, str(by_case[c.case_id]["outcome"]), _suite_hash(task),
                        str(by_case[c.case_id].get("reason") or ""))
            for c in sorted(kept, key=lambda c: c.case_id)]


def _attack_one(task: Task, kept: list[Case], ref: Reference, vdir: Path | None, *,
                sandbox: Sandbox, spec: Callable[[Task], SandboxSpec], public_dir: Path,
                fields: tuple[str, ...] | None, budget: int, seed: int,
                static: list[dict[str, Any]] | None, search_reject_all: bool) -> TaskAttack:
    """Judge (unless ``static`` holds the job's judgments) and attack one task's verifier; a
    sandbox session is opened only when something is left to judge or search."""
    suite_hash = _suite_hash(task)
    if vdir is None or not (Path(vdir) / "main.py").is_file():
        return TaskAttack(task.task_id, task.task_type, judgments=[
            case_record(task, c, "U", suite_hash, MISSING_VERIFIER) for c in kept])
    if static is not None:
        done = TaskAttack(task.task_id, task.task_type, judgments=static)
        if budget == 0 or done.broken_static:
            return done
        if done.accepted_nothing and not search_reject_all:
            return replace(done, unsearched_rejecting_all=True)
    kit = toolkit_for(task, ref, [c for c in kept if c.label == "PASS"], public_dir, fields)
    if kit is None:
        log.warning("attack: %s is not searched: its source declares no attack operators "
                    "(SourceSpec.attack)", task.task_id)
        if static is not None:
            return TaskAttack(task.task_id, task.task_type, judgments=static, operators=False)
    with sandbox.session(Path(vdir), public_dir, spec(task)) as s:
        return attack_task(task, (get_reference(ref.verifier_id), ref), kept, s.judge, kit,
                           fields=fields, budget=budget,
                           rng=random.Random(_task_seed(seed, task.task_id)),
                           suite_hash=suite_hash, static=static)


def _metrics(results: Sequence[TaskAttack], budget: int, skipped: Mapping[str, int]
             ) -> dict[str, float]:
    out: dict[str, float] = {
        "attack/budget": float(budget), "attack/tasks_attacked": float(len(results)),
        "attack/tasks_without_attacks": float(skipped["without_attacks"]),
        "attack/tasks_set_aside": float(skipped["set_aside"]),
        "attack/tasks_without_operators": float(sum(not r.operators for r in results)),
        "attack/tasks_rejecting_all": float(sum(r.unsearched_rejecting_all for r in results)),
        "attack/judgments": float(sum(len(r.judgments) for r in results)),
        "attack/queries": float(sum(r.queries for r in results)),
        "attack/tasks_found": float(sum(r.found is not None for r in results)),
        "attack/mutants_tried": float(sum(r.mutations_tried for r in results)),
        "attack/mutants_not_invalid": float(sum(r.not_invalid for r in results)),
        "attack/mutants_refuted_by_reference": float(sum(r.refuted_by_reference
                                                         for r in results)),
    }
    static = [rec for r in results for rec in r.judgments]
    if static:
        out.update(attack_rates(static, "static"))
        out.update(attack_rates(with_found(static, {r.task_id for r in results if r.found}),
                                "adaptive"))
    return out


def _persist(results: Sequence[TaskAttack], metrics: Mapping[str, float], out_dir: Path,
             budget: int, seed: int) -> None:
    """Every judgment and every found candidate, kept next to the metrics they produced."""
    (out_dir / "found").mkdir(parents=True, exist_ok=True)
    with open(out_dir / "judgments.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps(rec, sort_keys=True) + "\n" for r in results for rec in r.judgments)
    with open(out_dir / "mutants.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"task_id": r.task_id, **m}, sort_keys=True, default=str) + "\n"
                     for r in results for m in r.mutants)
    for r in results:
        if r.found is not None:
            (out_dir / "found" / f"{r.task_id}.json").write_text(json.dumps({
                "task_id": r.task_id, "seed_case_id": r.found.seed_case_id,
                "mutations": r.found.mutations, "query": r.found.query,
                "reference_decision": "FAIL", "verifier_decision": "PASS",
                "candidate": r.found.candidate}, indent=1, sort_keys=True, default=str))
    tasks = [{"task_id": r.task_id, "task_type": r.task_type, "queries": r.queries,
              "broken_static": r.broken_static, "found": r.found is not None,
              "mutations_tried": r.mutations_tried, "not_invalid": r.not_invalid,
              "refuted_by_reference": r.refuted_by_reference, "operators": r.operators,
              "unsearched_rejecting_all": r.unsearched_rejecting_all,
              "counts_by_mutation": r.counts_by_mutation} for r in results]
    (out_dir / "attack.json").write_text(json.dumps(
        {"metrics": metrics, "budget": budget, "seed": seed, "tasks": tasks},
        indent=1, sort_keys=True))
