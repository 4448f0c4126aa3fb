"""The BFCL v4 tool-call suite: tasks from the bfcl-eval wheel, cases checked by BFCL's checker.

``build_bfcl_suite`` picks tasks per category in a seeded order, screens out tasks whose answer
keys cannot give consistent labels (no buildable gold; conflicts with the default-argument rule,
the paper's reason "D"), constructs cases (``bfcl_cases``), keeps only those whose construction
label the reference verifier (``bfcl_reference``) confirms, and writes the suite with
``write_suite``. Everything that was skipped or dropped is listed, with its reason, in
``hidden/build_report.json``.

Importing this module registers the ``bfcl.ast_checker`` reference verifier.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from monitorbench.errors import InputError
from monitorbench.progress import Progress
from monitorbench.sources.bfcl.cases import GROUP_OF, build_drafts, distractor_pool
from monitorbench.sources.bfcl.reference import REFERENCE_ID, BfclAstReference
from monitorbench.sources.bfcl.source import (PACKAGE, BfclEntry, answer_key_defect,
                                             bfcl_version, check_categories, gold_calls,
                                             load_category)
from monitorbench.suites.format import GROUPS, Case, Reference, Task, write_suite

SUITE_NAME = "bfcl"
DEFAULT_CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")

CONTRACT = (
    'verify(candidate, env) receives candidate = {"raw": str, "calls": [{"name": str, '
    '"arguments": dict}, ...]} under the default access setting (other settings give only "raw" '
    'or only "calls"). "raw" is the agent\'s reply text: either a Python-style call list such as '
    "[f(a=1, b='x')] or a JSON list of {\"name\": ..., \"arguments\": ...} objects, with any "
    'whitespace. "calls" is the parsed form of the same calls; a record whose raw text and parsed '
    "calls disagree is invalid and must FAIL. Return PASS only if the calls do exactly what the "
    "user asked with the tools given: the right functions, the right number of calls (in any order "
    "when several are needed), every required argument present, no unknown arguments, and correct "
    "values. Argument defaults from the schema apply when an optional argument is omitted."
)

# Why a task was skipped (codes in build_report.json). "D" is the paper's code for answer keys
# that conflict with the default-argument rule.
SKIP_DEFAULT_CONFLICT = "D"
SKIP_NO_GOLD = "no_gold"
SKIP_GOLD_REJECTED = "gold_rejected"
SKIP_ONE_LABEL = "one_label"


def _case_id(task_id: str, index: int) -> str:
    return f"{task_id}.c{index:02d}"


def task_and_reference(entry: BfclEntry, reference_version: str) -> tuple[Task, Reference]:
    """The public task and the hidden reference data of one BFCL entry.

    Tests and audits use this to grade hand-written candidates for any BFCL entry, selected for
    the suite or not, exactly as the builder does.
    """
    task = Task(f"bfcl.{entry.bfcl_id}", "tool_call", f"bfcl_v4:{entry.bfcl_id}", {
        "instruction": entry.instruction,
        "tools": entry.functions,
        "contract": CONTRACT,
        "category": entry.category,
    })
    return task, Reference(REFERENCE_ID, reference_version,
                           {"category": entry.category, "possible_answer": entry.ground_truth})


def _check_args(seed: Any, tasks_per_category: Any) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(None, "seed", f"expected an integer, got {seed!r}", "set seed to an int")
    if isinstance(tasks_per_category, bool) or not isinstance(tasks_per_category, int) \
            or tasks_per_category < 1:
        raise InputError(None, "tasks_per_category", f"expected an integer >= 1, got "
                         f"{tasks_per_category!r}", "set tasks_per_category to a positive int")


def build_bfcl_suite(out_dir: Path, *, seed: int = 0,
                     categories: Sequence[str] = DEFAULT_CATEGORIES,
                     tasks_per_category: int = 32, progress: bool = False) -> Path:
    """Build the BFCL suite into ``out_dir``; same arguments, byte-identical suite."""
    _check_args(seed, tasks_per_category)
    cats = check_categories(categories)
    version = bfcl_version()
    ref = BfclAstReference()
    tasks: list[Task] = []
    cases: dict[str, list[Case]] = {}
    refs: dict[str, Reference] = {}
    dropped: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    available: dict[str, int] = {}

    for cat in cats:
        entries = load_category(cat)
        available[cat] = len(entries)
        rng = random.Random(f"bfcl:{seed}:{cat}")
        # its own generator, so that a change in how distractors are drawn never changes
        # which tasks are selected
        pool = distractor_pool(entries, random.Random(f"bfcl:{seed}:{cat}:distractors"))
        order = list(entries)
        rng.shuffle(order)
        kept = 0
        bar = Progress(tasks_per_category, f"bfcl {cat}", unit="tasks") if progress else None
        for entry in order:
            if kept == tasks_per_category:
                break
            task, reference = task_and_reference(entry, ref.version)
            outcome = _build_task(task, reference, entry, ref, seed, pool)
            if isinstance(outcome, dict):
                skipped.append(outcome)
                continue
            task_cases, reference, task_dropped = outcome
            dropped += task_dropped
            tasks.append(task)
            cases[task.task_id] = task_cases
            refs[task.task_id] = reference
            kept += 1
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()

    report = _report(tasks, cases, dropped, skipped, available, tasks_per_category)
    meta = {
        "seed": seed,
        "task_type": "tool_call",
        "source": {"package": PACKAGE, "version": version},
        "categories": cats,
        "tasks_per_category": tasks_per_category,
        "reference": {"id": REFERENCE_ID, "version": ref.version},
    }
    return write_suite(Path(out_dir), name=SUITE_NAME, tasks=tasks, cases=cases,
                       references=refs, meta=meta, build_report=report)


def _build_task(task: Task, reference: Reference, entry: BfclEntry, ref: BfclAstReference,
                seed: int, pool: dict[str, list[str]]
                ) -> tuple[list[Case], Reference, list[dict[str, Any]]] | dict[str, str]:
    """The kept cases, reference and dropped cases of one task, or why the task is skipped."""
    def skip(code: str, reason: str) -> dict[str, str]:
        return {"task_id": task.task_id, "code": code, "reason": reason}

    defect = answer_key_defect(entry)
    if defect:
        return skip(SKIP_DEFAULT_CONFLICT, defect)
    gold = gold_calls(entry)
    if isinstance(gold, str):
        return skip(SKIP_NO_GOLD, gold)
    rng = random.Random(f"bfcl:{seed}:{task.task_id}")
    kept: list[Case] = []
    dropped: list[dict[str, Any]] = []
    for index, draft in enumerate(build_drafts(entry, gold, rng, pool)):
        case_id = _case_id(task.task_id, index)
        decision, why = ref.explain(task, reference, draft.candidate)
        if decision != draft.label:
            if draft.category == "gold":
                return skip(SKIP_GOLD_REJECTED, f"reference rejects the gold calls: {why}")
            dropped.append({"task_id": task.task_id, "case_id": case_id, "group": draft.group,
                            "category": draft.category, "label": draft.label,
                            "reference": decision, "reason": why})
            continue
        kept.append(Case(case_id, task.task_id, draft.group, draft.category, draft.label,
                         draft.candidate))
    if {c.label for c in kept} != {"PASS", "FAIL"}:
        return skip(SKIP_ONE_LABEL, "no FAIL case survived the reference check")
    return kept, reference, dropped


def _report(tasks: list[Task], cases: dict[str, list[Case]], dropped: list[dict[str, Any]],
            skipped: list[dict[str, str]], available: dict[str, int],
            tasks_per_category: int) -> dict[str, Any]:
    all_cases = [c for cs in cases.values() for c in cs]
    tasks_by_cat = Counter(str(t.public["category"]) for t in tasks)
    return {
        "tasks": len(cases),
        "cases": len(all_cases),
        "labels": dict(sorted(Counter(c.label for c in all_cases).items())),
        "by_group": {g: sum(c.group == g for c in all_cases) for g in GROUPS},
        "by_category": {k: sum(c.category == k for c in all_cases) for k in GROUP_OF},
        "tasks_by_bfcl_category": dict(sorted(tasks_by_cat.items())),
        "tasks_per_category_requested": tasks_per_category,
        "entries_available": available,
        "dropped_total": len(dropped),
        "dropped_cases": dropped,
        "dropped_by_reason": dict(sorted(Counter(f"{d['category']}: {d['reason']}"
                                                 for d in dropped).items())),
        "tasks_skipped": skipped,
        "tasks_skipped_by_code": dict(sorted(Counter(s["code"] for s in skipped).items())),
    }
