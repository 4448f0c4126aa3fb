"""Judgment records: validate them once, then fold them into per-task outcome counts.

Every metric in this package (rates, pooled diagnostics, concentration, round selection, bootstrap)
reads the same judgment records, one dict per (task, case) judgment as the judging stage writes
them. A bad record must be reported once, naming the file, the field and the fix, before any number
is computed; otherwise a typo in an outcome would silently become a zero in a leaderboard.

After validation the records are reduced to a :class:`TaskTable`: numpy count arrays indexed by
task. All equal-task-weighted metrics are functions of these counts, which is what lets the
bootstrap resample tasks with a weight matrix instead of re-reading records.

Public API::

    load_judgments(path: str | Path) -> list[dict]
    validate_record(record: Mapping, index: int, source: str | Path | None = None) -> None
    build_table(records: Sequence[Mapping], *, source: str | Path | None = None) -> TaskTable
    is_infra_failure(record: Mapping) -> bool   (defined in monitorbench.judging.records)
    metric_key(part: str) -> str
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from monitorbench.errors import InputError
from monitorbench.jsonl import read_strict
from monitorbench.judging.records import Outcome, UReason, is_infra_failure
from monitorbench.suites.format import GROUPS, LABELS, TASK_TYPES

OUTCOMES = tuple(o.value for o in Outcome)  # the order of the counts' last axis
# Fields the metrics read, with their types. Other fields (seconds, hashes, ...) pass through.
_REQUIRED: dict[str, type] = {
    "task_id": str, "task_type": str, "case_id": str, "group": str, "category": str,
    "label": str, "outcome": str, "suite_hash": str,
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "task_type": TASK_TYPES, "group": GROUPS, "label": LABELS, "outcome": OUTCOMES,
}
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]")


def metric_key(part: str) -> str:
    """Make a free-text name (an attack category) safe inside an MLflow metric key.

    MLflow accepts letters, digits, ``_ - . /`` and spaces; ``/`` is our key separator, so any
    other character, ``/`` and space included, becomes ``_``.
    """
    return _UNSAFE.sub("_", part) or "_"


def load_judgments(path: str | Path) -> list[dict[str, Any]]:
    """Read a judgments JSON-lines file (blank lines skipped) without validating the fields."""
    p = Path(path)
    if not p.is_file():
        raise InputError(p, None, "judgments file does not exist",
                         "run the judging stage first or pass the right path")
    out: list[dict[str, Any]] = []
    for lineno, obj in read_strict(p, "re-run the judging stage or repair the line"):
        if not isinstance(obj, dict):
            raise InputError(p, f"line {lineno}", "a judgment must be a JSON object",
                             "re-run the judging stage")
        out.append(obj)
    return out


def validate_record(record: Mapping[str, Any], index: int,
                    source: str | Path | None = None) -> None:
    """Check one record's fields the metrics depend on; raise InputError naming the field."""
    where = f"records[{index}]"
    if not isinstance(record, Mapping):
        raise InputError(source, where, f"expected a dict, got {type(record).__name__}",
                         "pass judgment records as dicts (one per task and case)")
    for key, typ in _REQUIRED.items():
        if key not in record:
            raise InputError(source, f"{where}.{key}", "missing",
                             f"every judgment record needs '{key}'; re-run the judging stage")
        if not isinstance(record[key], typ):
            raise InputError(source, f"{where}.{key}",
                             f"expected {typ.__name__}, got {type(record[key]).__name__}",
                             f"set '{key}' to a {typ.__name__}")
    for key, choices in _CHOICES.items():
        if record[key] not in choices:
            raise InputError(source, f"{where}.{key}", f"unknown value {record[key]!r}",
                             f"use one of {', '.join(choices)}")
    if record["group"] == "attack" and record["label"] != "FAIL":
        raise InputError(source, f"{where}.label",
                         "an attack case is labelled PASS; attack acceptance needs negatives",
                         "attack cases must carry label FAIL; fix the suite")


@dataclass(frozen=True)
class TaskTable:
    """Per-task outcome counts, tasks sorted by id.

    ``counts[t, l, o]``: cases of task t with label l (0 PASS, 1 FAIL) and outcome o (P, F, U).
    ``group_counts[t, g, o]``: the same by group (order of ``GROUPS``).
    ``attack_counts[t, c, o]``: attack cases by category (order of ``attack_categories``).
    ``missing[t]``: every record of task t has reason ``missing_verifier`` (nothing submitted).
    ``infra_failures``: judgments set aside as infrastructure failures (reason
    ``sandbox_error`` after the run's retries); they are in no count above.
    ``infra_unscored``: tasks dropped because infrastructure failures left them without a
    positive or without a negative case (their TPR or TNR would be undefined).
    """

    task_ids: tuple[str, ...]
    task_types: tuple[str, ...]
    suite_hash: str
    counts: np.ndarray
    group_counts: np.ndarray
    attack_categories: tuple[str, ...]
    attack_counts: np.ndarray
    missing: np.ndarray
    infra_failures: int = 0
    infra_unscored: tuple[str, ...] = ()

    @property
    def n_tasks(self) -> int:
        return len(self.task_ids)

    @property
    def n_cases(self) -> int:
        return int(self.counts.sum())

    def type_mask(self, task_type: str) -> np.ndarray:
        return np.array([t == task_type for t in self.task_types], dtype=bool)

    def present_types(self) -> tuple[str, ...]:
        """Task types that occur, in the canonical order of ``TASK_TYPES``."""
        return tuple(t for t in TASK_TYPES if t in set(self.task_types))


def _index(records: Sequence[Mapping[str, Any]], source: str | Path | None
           ) -> tuple[dict[str, list[int]], dict[str, str]]:
    """Validate every record; group record indices by task; refuse duplicate cases and a task
    whose records disagree on its type."""
    by_task: dict[str, list[int]] = {}
    ttype: dict[str, str] = {}
    seen: dict[tuple[str, str], int] = {}
    for i, rec in enumerate(records):
        validate_record(rec, i, source)
        tid = rec["task_id"]
        key = (tid, rec["case_id"])
        if key in seen:
            raise InputError(source, f"records[{i}].case_id",
                             f"case {key[1]!r} of task {tid!r} is judged twice "
                             f"(also records[{seen[key]}])",
                             "pass one judgment per case: reduce several rounds with "
                             "select_median_round, or drop duplicate records")
        seen[key] = i
        if ttype.setdefault(tid, rec["task_type"]) != rec["task_type"]:
            raise InputError(source, f"records[{i}].task_type",
                             f"task {tid!r} is {rec['task_type']!r} here but {ttype[tid]!r} "
                             "elsewhere", "give all records of a task the same task_type")
        by_task.setdefault(tid, []).append(i)
    # A pool may span suites (tool-call, state and code tasks come from different sources), but
    # one task's judgments must all come from one version of its suite.
    for tid, idxs in by_task.items():
        hashes = {records[i]["suite_hash"] for i in idxs}
        if len(hashes) > 1:
            raise InputError(source, f"records[{idxs[0]}].suite_hash",
                             f"task {tid!r} was judged against {len(hashes)} versions of its "
                             f"suite ({', '.join(sorted(h[:12] for h in hashes))})",
                             "score one suite version at a time; filter the records by "
                             "suite_hash")
    return by_task, ttype


def _scored(records: Sequence[Mapping[str, Any]], by_task: dict[str, list[int]],
            source: str | Path | None) -> tuple[dict[str, list[int]], int, tuple[str, ...]]:
    """Drop infrastructure failures; drop (and name) tasks they left without a PASS or FAIL
    case; refuse a task that has no PASS or no FAIL case in the suite itself."""
    scored: dict[str, list[int]] = {}
    unscored: list[str] = []
    n_infra = 0
    for tid in sorted(by_task):
        idx = by_task[tid]
        keep = [i for i in idx if not is_infra_failure(records[i])]
        n_infra += len(idx) - len(keep)
        for label in LABELS:
            if not any(records[i]["label"] == label for i in idx):
                raise InputError(source, "label", f"task {tid!r} has no {label} cases",
                                 "every task needs at least one positive and one negative "
                                 "case; drop the task or fix the suite")
        if {records[i]["label"] for i in keep} == set(LABELS):
            scored[tid] = keep
        else:
            unscored.append(tid)
    if not scored:
        raise InputError(source, "records", f"all {n_infra} judgments are infrastructure "
                         "failures (sandbox_error): nothing to score",
                         "fix the sandbox backend and re-run; the failed cases are judged "
                         "again")
    return scored, n_infra, tuple(unscored)


def build_table(records: Sequence[Mapping[str, Any]], *,
                source: str | Path | None = None) -> TaskTable:
    """Validate records and count outcomes per task.

    Refuses (InputError) an empty pool, a task judged against two suite versions, a case judged
    twice (several rounds must first be reduced with
    :func:`monitorbench.metrics.rounds.select_median_round`), a task whose records disagree on its
    type, and a task without positive or without negative cases
    (its TPR or TNR would be undefined, and a silent zero would distort the average).
    Infrastructure failures (:func:`is_infra_failure`) are counted, not scored.
    """
    if len(records) == 0:
        raise InputError(source, "records", "no judgment records",
                         "run the judging stage on at least one task")
    by_task, ttype = _index(records, source)
    by_task, n_infra, unscored = _scored(records, by_task, source)
    task_ids = tuple(sorted(by_task))
    cats = tuple(sorted({records[i]["category"] for idx in by_task.values() for i in idx
                         if records[i]["group"] == "attack"}))
    keys: dict[str, str] = {}
    for c in cats:
        other = keys.setdefault(metric_key(c), c)
        if other != c:
            raise InputError(source, "category",
                             f"attack categories {other!r} and {c!r} map to the same metric key "
                             f"{metric_key(c)!r}", "rename one of them in the suite")
    cat_index = {c: j for j, c in enumerate(cats)}
    group_index = {g: j for j, g in enumerate(GROUPS)}
    out_index = {o: j for j, o in enumerate(OUTCOMES)}
    n = len(task_ids)
    counts = np.zeros((n, 2, 3), dtype=np.int64)
    group_counts = np.zeros((n, len(GROUPS), 3), dtype=np.int64)
    attack_counts = np.zeros((n, len(cats), 3), dtype=np.int64)
    missing = np.zeros(n, dtype=bool)
    for t, tid in enumerate(task_ids):
        for i in by_task[tid]:
            rec = records[i]
            o = out_index[rec["outcome"]]
            counts[t, 0 if rec["label"] == "PASS" else 1, o] += 1
            group_counts[t, group_index[rec["group"]], o] += 1
            if rec["group"] == "attack":
                attack_counts[t, cat_index[rec["category"]], o] += 1
        missing[t] = all(records[i].get("reason") == UReason.missing_verifier for i in by_task[tid])
    hashes = {records[i]["suite_hash"] for idx in by_task.values() for i in idx}
    return TaskTable(task_ids, tuple(ttype[t] for t in task_ids), "+".join(sorted(hashes)),
                     counts, group_counts, cats, attack_counts, missing, n_infra, unscored)
