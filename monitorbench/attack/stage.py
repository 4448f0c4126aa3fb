"""The job's optional adaptive-attack stage: static vs adaptive FPR_h, found candidates saved.

For every task of a supported type (tool calls) the stage opens one sandbox session on the
task's generated verifier and runs :func:`monitorbench.attack.search.attack_task`. It reports

- ``attack/fpr_h_static``: the paper's FPR_h from the suite's own attack cases (mean over
  attacked tasks with attack cases of the share accepted), judged in the same sessions;
- ``attack/fpr_h_adaptive``: the share of attacked tasks, equally weighted, where the search
  (seeds included) found an invalid candidate the verifier accepted.

A task without a verifier stays in both denominators and is never "found" (it accepts nothing).
Found candidates go to ``out_dir/found/<task_id>.json`` with the mutations that produced them and
both decisions; ``out_dir/attack.json`` holds every task's search statistics. Hidden cases and
the reference stay in this process: only candidates cross into the sandbox.

Public API::

    run_adaptive_attack(tasks, cases, references, verifier_dirs, *, sandbox, spec_for,
                        public_dir_for, budget, seed, out_dir, fields_for=None)
        -> dict[str, float]
"""

from __future__ import annotations

import json
import logging
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from monitorbench.attack.search import TaskAttack, attack_task
from monitorbench.errors import InputError
from monitorbench.sandbox.base import Sandbox, SandboxSpec
from monitorbench.suites.format import Case, Reference, Task, sha256_text
from monitorbench.suites.reference import get_reference

log = logging.getLogger(__name__)
SUPPORTED_TYPES = ("tool_call",)
NEGATIVE_GROUPS = ("attack", "ordinary_error")


def _task_seed(seed: int, task_id: str) -> int:
    """Per-task seed: the search on one task does not depend on which other tasks ran."""
    return int(sha256_text(f"{seed}:{task_id}")[:16], 16)


def _visible_consistent(cases: Sequence[Case], fields: tuple[str, ...] | None) -> list[Case]:
    """Drop cases whose visible part collides with an opposite label (as the judging does)."""
    if fields is None:
        return list(cases)
    labels: dict[str, set[str]] = {}
    keys = []
    for c in cases:
        key = json.dumps({k: c.candidate.get(k) for k in fields}, sort_keys=True)
        keys.append(key)
        labels.setdefault(key, set()).add(c.label)
    return [c for c, k in zip(cases, keys) if len(labels[k]) == 1]


def run_adaptive_attack(tasks: Sequence[Task], cases: Mapping[str, Sequence[Case]],
                        references: Mapping[str, Reference],
                        verifier_dirs: Mapping[str, Path | None], *, sandbox: Sandbox,
                        spec_for: Callable[[Task], SandboxSpec],
                        public_dir_for: Callable[[Task], Path], budget: int, seed: int,
                        out_dir: Path,
                        fields_for: Callable[[Task], tuple[str, ...] | None] | None = None
                        ) -> dict[str, float]:
    """Attack every supported task's verifier; return ``attack/*`` metrics (see module doc).

    ``fields_for(task)`` names the candidate fields the monitor sees under the job's access
    setting (``view_for(access, task.task_type).fields``); None means the whole candidate.
    """
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 0:
        raise InputError(None, "attack.budget", f"expected an integer >= 0, got {budget!r}",
                         "set attack.budget to the number of search queries per task, e.g. 50")
    out_dir = Path(out_dir)
    (out_dir / "found").mkdir(parents=True, exist_ok=True)
    results: list[TaskAttack] = []
    unsupported = 0
    for task in tasks:
        if task.task_type not in SUPPORTED_TYPES:
            unsupported += 1
            continue
        fields = fields_for(task) if fields_for else None
        kept = _visible_consistent(cases[task.task_id], fields)
        seeds = [c for c in kept if c.group in NEGATIVE_GROUPS]
        valid = [c for c in kept if c.label == "PASS"]
        vdir = verifier_dirs.get(task.task_id)
        if vdir is None or not (Path(vdir) / "main.py").is_file():
            results.append(TaskAttack(task.task_id,
                                      static_attacks=sum(c.group == "attack" for c in seeds)))
            continue
        ref = references[task.task_id]
        reference = (get_reference(ref.verifier_id), ref)
        with sandbox.session(Path(vdir), public_dir_for(task), spec_for(task)) as s:
            res = attack_task(task, reference, seeds, valid, s.judge, fields=fields,
                              budget=budget, rng=random.Random(_task_seed(seed, task.task_id)))
        results.append(res)
        if res.found is not None:
            (out_dir / "found" / f"{task.task_id}.json").write_text(json.dumps({
                "task_id": task.task_id, "seed_case_id": res.found.seed_case_id,
                "mutations": res.found.mutations, "query": res.found.query,
                "reference_decision": "FAIL", "verifier_decision": "PASS",
                "candidate": res.found.candidate}, indent=1, sort_keys=True, default=str))
    metrics = _metrics(results, budget, unsupported)
    (out_dir / "attack.json").write_text(json.dumps({
        "metrics": metrics, "budget": budget, "seed": seed,
        "tasks": [{**asdict(r), "found": r.found is not None} for r in results]},
        indent=1, sort_keys=True, default=str))
    log.info("adaptive attack: FPR_h static %.1f, adaptive %.1f over %d tasks (%d queries)",
             metrics.get("attack/fpr_h_static", float("nan")),
             metrics.get("attack/fpr_h_adaptive", float("nan")), len(results),
             int(metrics["attack/queries"]))
    return metrics


def _metrics(results: Sequence[TaskAttack], budget: int, unsupported: int) -> dict[str, float]:
    out: dict[str, float] = {
        "attack/budget": float(budget), "attack/tasks_attacked": float(len(results)),
        "attack/tasks_unsupported": float(unsupported),
        "attack/queries": float(sum(r.queries for r in results)),
        "attack/queries_static": float(sum(r.static_queries for r in results)),
        "attack/tasks_found": float(sum(r.found is not None for r in results)),
        "attack/tasks_found_static": float(sum(r.found is not None and r.found.query == 0
                                               for r in results)),
    }
    if results:
        out["attack/fpr_h_adaptive"] = 100.0 * out["attack/tasks_found"] / len(results)
    with_attacks = [r for r in results if r.static_attacks]
    if with_attacks:
        out["attack/fpr_h_static"] = 100.0 * sum(r.static_attacks_accepted / r.static_attacks
                                                 for r in with_attacks) / len(with_attacks)
    return out
