"""Checks C1-C5 of one task: replay, repeatability, provenance, input-label consistency and
trivial baselines. C6 (mutation testing) lives in :mod:`monitorbench.audit.mutation`.

Every check returns a :class:`CheckResult` whose evidence names case ids, so a failure can be
confirmed by hand. Reference decisions are taken on the framework side: reference verifiers are
trusted source code, and the hidden cases never leave this process.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Mapping, Sequence

from monitorbench.audit.model import INVALID, CheckResult
from monitorbench.config import AccessMode
from monitorbench.hashing import canonical_json, sha256_file, sha256_text
from monitorbench.suites.access import mode_view, split_consistent
from monitorbench.suites.format import Case, Reference, Suite, Task
from monitorbench.suites.reference import ReferenceVerifier
from monitorbench.task_types import TASK_TYPES

# Access settings per task type (each type's audit_modes in task_types.py); the first one is the
# suite's declared default, the only one under which a collision fails C4 (others only set the
# colliding cases aside).
ACCESS_MODES: dict[str, tuple[AccessMode, ...]] = {
    t.name: tuple(AccessMode(m) for m in t.audit_modes) for t in TASK_TYPES.values()}
_SHOWN = 5  # case ids quoted per piece of evidence


def _ids(cases: Sequence[Case]) -> str:
    more = f" (+{len(cases) - _SHOWN} more)" if len(cases) > _SHOWN else ""
    return ", ".join(c.case_id for c in cases[:_SHOWN]) + more


def safe_decide(verifier: ReferenceVerifier, task: Task, reference: Reference,
                candidate: Mapping[str, Any]) -> str:
    """The reference's decision, or ``INVALID: <why>`` when it raises or returns a non-label."""
    try:
        decision = verifier.decide(task, reference, candidate)
    except Exception as e:  # the audit records a crashing reference as evidence, not a traceback
        return f"{INVALID}: {type(e).__name__}: {e}"[:200]
    return decision if decision in ("PASS", "FAIL") else f"{INVALID}: returned {decision!r}"[:200]


def case_hash(case: Case) -> str:
    """sha256 of the whole case record as frozen in cases.jsonl (candidate, label, group...)."""
    return sha256_text(canonical_json(case.to_json()))


def decision_workers(verifier: ReferenceVerifier) -> int:
    """Threads to run ``verifier``'s decisions on: one per usable CPU for a reference that says
    its decisions may run concurrently (``parallel_decisions``: each one a subprocess in its own
    directory, as the code grader's test runs are), else one. In-process references (BFCL's AST
    check, AgentDojo's utility) gain nothing from threads under the GIL."""
    if not getattr(verifier, "parallel_decisions", False):
        return 1
    return max(1, len(os.sched_getaffinity(0)))


def recorded_decisions(verifier: ReferenceVerifier, task: Task, reference: Reference,
                       cases: Sequence[Case]) -> list[str | None]:
    """Per case, the decision the reference already made on exactly this input in this process
    (``verifier.recorded``, offered by references whose decisions are costly: the code grader's
    test runs, which the build has just made to confirm each label), or None."""
    lookup = getattr(verifier, "recorded", None)
    if lookup is None:
        return [None] * len(cases)
    found = [lookup(task, reference, c.candidate) for c in cases]
    return [d if d in ("PASS", "FAIL") else None for d in found]


def run_reference(verifier: ReferenceVerifier, task: Task, reference: Reference,
                  cases: Sequence[Case], repeats: int) -> list[list[str]]:
    """``repeats`` full passes over the cases; each decision starts from the reference's own
    reset state (a fresh environment or checkout per call, nothing carried between calls), so
    the passes' decisions may run concurrently (``decision_workers``) without changing them.

    The first pass takes a decision already made on the same input in this process
    (:func:`recorded_decisions`): that was a run from the same reset state too. Every later pass
    decides afresh, so C2 still compares ``repeats`` independent runs of every case."""
    first = recorded_decisions(verifier, task, reference, cases)
    jobs = [(r, i) for r in range(repeats) for i in range(len(cases)) if r or first[i] is None]
    with ThreadPoolExecutor(decision_workers(verifier)) as pool:
        fresh = dict(zip(jobs, pool.map(
            lambda job: safe_decide(verifier, task, reference, cases[job[1]].candidate), jobs)))
    return [[fresh[(r, i)] if (r, i) in fresh else str(first[i]) for i in range(len(cases))]
            for r in range(repeats)]


def decision_records(task: Task, reference: Reference, verifier: ReferenceVerifier,
                     cases: Sequence[Case], runs: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """C3's decision records: every decision linked to its case's hash and the verifier version."""
    data_hash = sha256_text(canonical_json(dict(reference.data)))
    return [{"task_id": task.task_id, "case_id": c.case_id, "case_sha256": case_hash(c),
             "candidate_sha256": c.candidate_hash, "label": c.label, "run": r + 1,
             "decision": run[i], "reference_id": reference.verifier_id,
             "reference_version": verifier.version, "reference_data_sha256": data_hash}
            for r, run in enumerate(runs) for i, c in enumerate(cases)]


def check_replay(cases: Sequence[Case], first_run: Sequence[str]) -> CheckResult:
    """C1: the reference's decision equals the construction label on every case."""
    bad = [(c, d) for c, d in zip(cases, first_run) if d != c.label]
    if not bad:
        return CheckResult("C1", True, f"reference agrees with all {len(cases)} labels")
    shown = "; ".join(f"{c.case_id} ({c.category}) label {c.label}, reference {d}"
                      for c, d in bad[:_SHOWN])
    return CheckResult("C1", False, f"{len(bad)}/{len(cases)} disagree: {shown}",
                       {"disagreements": [{"case_id": c.case_id, "label": c.label, "decision": d}
                                          for c, d in bad]})


def check_repeatability(cases: Sequence[Case], runs: Sequence[Sequence[str]]) -> CheckResult:
    """C2: every rerun from the same reset state returns the same decision."""
    changed = [(i, c) for i, c in enumerate(cases) if len({run[i] for run in runs}) > 1]
    if not changed:
        return CheckResult("C2", True, f"{len(runs)} runs x {len(cases)} cases, no change")
    shown = "; ".join(f"{c.case_id}: {[run[i] for run in runs]}" for i, c in changed[:_SHOWN])
    return CheckResult("C2", False, f"{len(changed)} cases changed decision across "
                       f"{len(runs)} runs: {shown}")


def _task_files(manifest: Mapping[str, Any], task_id: str) -> dict[str, str]:
    prefixes = (f"public/{task_id}/", f"hidden/{task_id}/")
    return {rel: h for rel, h in manifest["files"].items() if rel.startswith(prefixes)}


def check_provenance(suite: Suite, task: Task, reference: Reference,
                     verifier: ReferenceVerifier) -> CheckResult:
    """C3: the task's files match the manifest (no file changed, missing or added) and the
    labels were produced by the reference version installed now."""
    root = Path(suite.root)
    files = _task_files(suite.manifest, task.task_id)
    problems = []
    for need in (f"public/{task.task_id}/task.json", f"hidden/{task.task_id}/cases.jsonl",
                 f"hidden/{task.task_id}/reference.json"):
        if need not in files:
            problems.append(f"{need} is not pinned in manifest.json")
    for rel, digest in sorted(files.items()):
        p = root / rel
        if not p.is_file():
            problems.append(f"{rel} is missing")
        elif sha256_file(p) != digest:
            problems.append(f"{rel} sha256 differs from manifest.json")
    for tree in ("public", "hidden"):
        d = root / tree / task.task_id
        for p in sorted(d.rglob("*")) if d.is_dir() else []:
            rel = p.relative_to(root).as_posix()
            if p.is_file() and rel not in files:
                problems.append(f"{rel} is not in manifest.json")
    if reference.version != verifier.version:
        problems.append(f"labels come from {reference.verifier_id} {reference.version!r}, "
                        f"installed reference is {verifier.version!r}")
    if problems:
        return CheckResult("C3", False, "; ".join(problems[:_SHOWN]), {"problems": problems})
    return CheckResult("C3", True, f"{len(files)} files match manifest.json; every decision "
                       f"recorded with case sha256 and {reference.verifier_id} {verifier.version}")


def check_consistency(task: Task, cases: Sequence[Case]) -> CheckResult:
    """C4: no two cases with identical visible input carry opposite labels, per access setting.

    Fails only under the default setting; collisions under other settings are reported as the
    cases the run pipeline sets aside under that setting.
    """
    modes = ACCESS_MODES.get(task.task_type, ())
    if not modes:
        return CheckResult("C4", False, f"no access settings known for {task.task_type!r}")
    set_aside: dict[str, list[str]] = {}
    default_drop: list[Case] = []
    for mode in modes:
        _, drop = split_consistent(cases, mode_view(task.task_type, mode))
        if mode == modes[0]:
            default_drop = drop
        elif drop:
            set_aside[mode.value] = [c.case_id for c in drop]
    notes = "; ".join(f"{len(ids)} set aside under access {m}: {', '.join(ids[:_SHOWN])}"
                      for m, ids in set_aside.items())
    details = {"set_aside": set_aside}
    if default_drop:
        return CheckResult("C4", False, f"opposite labels on identical input under the default "
                           f"access {modes[0].value}: {_ids(default_drop)}"
                           + (f"; {notes}" if notes else ""),
                           dict(details, colliding=[c.case_id for c in default_drop]))
    return CheckResult("C4", True, f"no collision under {modes[0].value}"
                       + (f"; {notes}" if notes else ""), details)


def check_baselines(task: Task, cases: Sequence[Case]) -> CheckResult:
    """C5: always-accept is exposed by a FAIL case, always-reject by a PASS case, and
    exact-match (accepts only a gold case's visible input) by a PASS case that differs."""
    view = mode_view(task.task_type, ACCESS_MODES[task.task_type][0]) \
        if task.task_type in ACCESS_MODES else None
    project = (lambda c: canonical_json(view.project(c.candidate))) if view else \
        (lambda c: canonical_json(dict(c.candidate)))
    negatives = [c for c in cases if c.label == "FAIL"]
    positives = [c for c in cases if c.label == "PASS"]
    golds = {project(c) for c in cases if c.group == "gold"}
    variants = [c for c in positives if project(c) not in golds]
    parts, ok = [], True
    for name, exposers in (("always-accept", negatives), ("always-reject", positives),
                           ("exact-match", variants)):
        if name == "exact-match" and not golds:
            parts.append("exact-match: no gold case to match")
            ok = False
        elif exposers:
            parts.append(f"{name} exposed by {exposers[0].case_id} ({exposers[0].category})")
        else:
            parts.append(f"{name} NOT exposed")
            ok = False
    return CheckResult("C5", ok, "; ".join(parts))
