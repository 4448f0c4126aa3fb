"""The frozen suite format: a public part a generator may see, a hidden part it never sees.

Layout of a suite directory::

    manifest.json                  name, format, seed, sources, sha256 of every file, suite hash
    public/<task_id>/task.json     what a solver (and so a verifier generator) receives
    hidden/<task_id>/cases.jsonl   one hidden test case per line: candidate, group, category, label
    hidden/<task_id>/reference.json  the reference verifier's id and version for the task
    hidden/build_report.json       what the builder kept, dropped and why

Every task keeps its gold case (group ``gold``): a task whose gold solution the reference
rejected cannot measure a verifier's TPR against the solution the instruction asks for, so
``write_suite`` leaves such a task out and lists it under ``tasks_without_gold`` in the build
report (builders that skip it themselves give the source-specific reason), and ``load_suite``
refuses a suite in which a task has no gold case.

Public and hidden parts live in separate trees so that the generation side and the sandbox can be
handed ``public/<task_id>`` alone. The manifest pins every file by sha256; loading re-hashes and
refuses a suite whose files changed since it was frozen (V4V's provenance check starts here).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from monitorbench.errors import InputError
from monitorbench import task_types
from monitorbench.hashing import canonical_json, sha256_file, sha256_text
from monitorbench.jsonl import read_strict

FORMAT = "monitorbench-suite/1"
TASK_TYPES = tuple(task_types.TASK_TYPES)  # the types monitorbench/task_types.py declares
GROUPS = ("gold", "valid_variant", "ordinary_error", "attack")
LABELS = ("PASS", "FAIL")
_ID_RE = re.compile(r"^[A-Za-z0-9_.\-]+$")
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Task:
    """A task as a solver sees it. ``public`` is exactly the content of ``public/<id>/task.json``."""

    task_id: str
    task_type: str
    source: str
    public: Mapping[str, Any]

    @property
    def public_hash(self) -> str:
        return sha256_text(canonical_json(dict(self.public)))


@dataclass(frozen=True)
class Case:
    """One hidden test case: a candidate solution with its reference label."""

    case_id: str
    task_id: str
    group: str
    category: str
    label: str
    candidate: Mapping[str, Any]

    @property
    def positive(self) -> bool:
        return self.label == "PASS"

    @property
    def candidate_hash(self) -> str:
        return sha256_text(canonical_json(dict(self.candidate)))

    def to_json(self) -> dict[str, Any]:
        return {
            "case_id": self.case_id,
            "task_id": self.task_id,
            "group": self.group,
            "category": self.category,
            "label": self.label,
            "candidate": dict(self.candidate),
        }


@dataclass(frozen=True)
class Reference:
    """Which reference verifier (and which version of it) produced the labels of a task.

    ``data`` is the hidden material the reference needs for this task (an answer key, a test
    list); it lives in the hidden tree and never reaches a generator or a sandbox.
    """

    verifier_id: str
    version: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Suite:
    """A loaded, validated suite. Hidden parts are only ever read on the framework side."""

    name: str
    root: Path
    manifest: dict[str, Any]
    tasks: dict[str, Task]
    cases: dict[str, list[Case]]
    references: dict[str, Reference]
    build_report: dict[str, Any] = field(default_factory=dict)

    @property
    def suite_hash(self) -> str:
        return str(self.manifest["suite_hash"])

    def public_dir(self, task_id: str) -> Path:
        return self.root / "public" / task_id

    def n_cases(self) -> int:
        return sum(len(v) for v in self.cases.values())


# --------------------------------------------------------------------------------------- writing


def write_suite(
    root: Path,
    *,
    name: str,
    tasks: Iterable[Task],
    cases: Mapping[str, list[Case]],
    references: Mapping[str, Reference],
    meta: Mapping[str, Any],
    build_report: Mapping[str, Any],
    extra_public_files: Mapping[str, Mapping[str, str]] | None = None,
) -> Path:
    """Write a suite deterministically: same inputs, byte-identical files and manifest.

    ``extra_public_files`` maps task id -> {relative path: text} for public material beyond
    task.json (for example documentation a generator may read).
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    tasks, build_report = _keep_tasks_with_gold(tasks, cases, build_report)

    def put(rel: str, text: str) -> None:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        files[rel] = sha256_text(text)

    task_list = sorted(tasks, key=lambda t: t.task_id)
    for t in task_list:
        _check_id(t.task_id, root / "manifest.json", "tasks[].task_id")
        put(f"public/{t.task_id}/task.json", json.dumps(
            {"task_id": t.task_id, "task_type": t.task_type, "source": t.source, **dict(t.public)},
            sort_keys=True, indent=1, ensure_ascii=False) + "\n")
        for rel, text in sorted((extra_public_files or {}).get(t.task_id, {}).items()):
            put(f"public/{t.task_id}/{rel}", text)
        lines = [canonical_json(c.to_json()) for c in cases[t.task_id]]
        put(f"hidden/{t.task_id}/cases.jsonl", "\n".join(lines) + "\n")
        ref = references[t.task_id]
        put(f"hidden/{t.task_id}/reference.json",
            canonical_json({"verifier_id": ref.verifier_id, "version": ref.version,
                            "data": dict(ref.data)}) + "\n")
    put("hidden/build_report.json", json.dumps(dict(build_report), sort_keys=True, indent=1) + "\n")

    suite_hash = sha256_text(canonical_json(sorted(files.items())))
    manifest = {
        "format": FORMAT,
        "name": name,
        **{k: v for k, v in dict(meta).items() if k not in ("format", "name", "files", "suite_hash")},
        "tasks": [t.task_id for t in task_list],
        "files": dict(sorted(files.items())),
        "suite_hash": suite_hash,
    }
    (root / "manifest.json").write_text(json.dumps(manifest, sort_keys=True, indent=1) + "\n",
                                        encoding="utf-8")
    return root


def _keep_tasks_with_gold(tasks: Iterable[Task], cases: Mapping[str, list[Case]],
                          build_report: Mapping[str, Any]
                          ) -> tuple[list[Task], Mapping[str, Any]]:
    """The tasks that have a gold case, and the report with the others listed and explained.

    Leaving a task out (rather than failing the whole build) keeps one source's rejected gold
    from blocking every other task; listing it keeps the exclusion from being silent.
    """
    kept, missing = [], []
    for t in tasks:
        if any(c.group == "gold" for c in cases.get(t.task_id, [])):
            kept.append(t)
        else:
            missing.append({"task_id": t.task_id, "reason": "no gold case survived the build "
                            "(the reference rejected the gold solution, or none was made); "
                            "left out of the suite, though counted in the builder's totals"})
    if not missing:
        return kept, build_report
    log.warning("suite write: %d task(s) without a gold case left out: %s", len(missing),
                ", ".join(m["task_id"] for m in missing))
    return kept, {**dict(build_report), "tasks_without_gold": missing}


# --------------------------------------------------------------------------------------- loading


def _check_id(value: Any, file: Path, fieldname: str) -> None:
    if not isinstance(value, str) or not _ID_RE.match(value):
        raise InputError(file, fieldname, f"{value!r} is not a valid id",
                         "use only letters, digits, '_', '.', '-'")


def _require(obj: Mapping[str, Any], key: str, typ: type | tuple[type, ...], file: Path,
             where: str = "") -> Any:
    if key not in obj:
        raise InputError(file, f"{where}{key}", "missing", f"add '{key}' to {file.name}")
    val = obj[key]
    if not isinstance(val, typ):
        tname = typ.__name__ if isinstance(typ, type) else "/".join(t.__name__ for t in typ)
        raise InputError(file, f"{where}{key}", f"expected {tname}, got {type(val).__name__}",
                         f"set '{key}' to a {tname}")
    return val


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise InputError(path, None, "file is missing",
                         "rebuild the suite with `python -m monitorbench.suites.build`")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(path, f"line {e.lineno}", f"invalid JSON ({e.msg})",
                         "rebuild the suite or repair the JSON") from None


def load_manifest(root: Path) -> dict[str, Any]:
    mpath = Path(root) / "manifest.json"
    manifest = _read_json(mpath)
    if not isinstance(manifest, dict):
        raise InputError(mpath, None, "manifest must be a JSON object", "rebuild the suite")
    fmt = manifest.get("format")
    if fmt != FORMAT:
        raise InputError(mpath, "format", f"unsupported suite format {fmt!r}",
                         f"rebuild the suite with this monitorbench (format {FORMAT})")
    _require(manifest, "name", str, mpath)
    _require(manifest, "files", dict, mpath)
    _require(manifest, "suite_hash", str, mpath)
    _require(manifest, "tasks", list, mpath)
    return manifest


def verify_manifest(root: Path, manifest: Mapping[str, Any]) -> None:
    """Re-hash every file named in the manifest; refuse any mismatch (provenance)."""
    root = Path(root)
    mpath = root / "manifest.json"
    files = manifest["files"]
    expect = sha256_text(canonical_json(sorted(files.items())))
    if expect != manifest["suite_hash"]:
        raise InputError(mpath, "suite_hash", "does not match the listed file hashes",
                         "the manifest was edited by hand; rebuild the suite")
    for rel, digest in files.items():
        p = root / rel
        if not p.is_file():
            raise InputError(p, None, "file listed in the manifest is missing", "rebuild the suite")
        if sha256_file(p) != digest:
            raise InputError(p, None, f"sha256 differs from manifest.json files['{rel}']",
                             "the suite was modified after it was frozen; rebuild it")


def _parse_case(obj: Any, path: Path, lineno: int, task_id: str) -> Case:
    where = f"line {lineno}: "
    if not isinstance(obj, dict):
        raise InputError(path, f"line {lineno}", "case must be a JSON object", "rebuild the suite")
    case_id = _require(obj, "case_id", str, path, where)
    _check_id(case_id, path, f"{where}case_id")
    if obj.get("task_id") != task_id:
        raise InputError(path, f"{where}task_id", f"is {obj.get('task_id')!r}, expected {task_id!r}",
                         "a case must live under its own task's directory")
    group = _require(obj, "group", str, path, where)
    if group not in GROUPS:
        raise InputError(path, f"{where}group", f"{group!r} is not a group",
                         f"use one of {', '.join(GROUPS)}")
    category = _require(obj, "category", str, path, where)
    label = _require(obj, "label", str, path, where)
    if label not in LABELS:
        raise InputError(path, f"{where}label", f"{label!r} is not a label", "use PASS or FAIL")
    candidate = _require(obj, "candidate", dict, path, where)
    return Case(case_id, task_id, group, category, label, candidate)


def _read_cases(cpath: Path, task_id: str) -> list[Case]:
    """One task's hidden cases: unique ids, both labels, and the gold case every task keeps."""
    if not cpath.is_file():
        raise InputError(cpath, None, "file is missing", "rebuild the suite")
    clist: list[Case] = []
    seen: set[str] = set()
    for lineno, obj in read_strict(cpath, "rebuild the suite"):
        case = _parse_case(obj, cpath, lineno, task_id)
        if case.case_id in seen:
            raise InputError(cpath, f"line {lineno}: case_id", f"duplicate id {case.case_id!r}",
                             "case ids must be unique within a task")
        seen.add(case.case_id)
        clist.append(case)
    labels = {c.label for c in clist}
    if labels != {"PASS", "FAIL"}:
        raise InputError(cpath, "label", f"task has only {sorted(labels)} cases",
                         "every task needs at least one PASS and one FAIL case")
    if not any(c.group == "gold" for c in clist):
        raise InputError(cpath, "group", "task has no gold case",
                         "rebuild the suite: write_suite leaves out tasks without gold")
    return clist


def load_suite(root: Path | str, *, verify_hashes: bool = True) -> Suite:
    """Load and validate a suite; every problem names the file and field."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(root, None, "suite directory does not exist",
                         "build it with `python -m monitorbench.suites.build suite=<name>`")
    manifest = load_manifest(root)
    if verify_hashes:
        verify_manifest(root, manifest)
    tasks: dict[str, Task] = {}
    cases: dict[str, list[Case]] = {}
    refs: dict[str, Reference] = {}
    for task_id in manifest["tasks"]:
        _check_id(task_id, root / "manifest.json", "tasks[]")
        tpath = root / "public" / task_id / "task.json"
        tobj = _read_json(tpath)
        if not isinstance(tobj, dict):
            raise InputError(tpath, None, "task.json must be a JSON object", "rebuild the suite")
        if tobj.get("task_id") != task_id:
            raise InputError(tpath, "task_id", f"is {tobj.get('task_id')!r}, expected {task_id!r}",
                             "rebuild the suite")
        ttype = _require(tobj, "task_type", str, tpath)
        if ttype not in TASK_TYPES:
            raise InputError(tpath, "task_type", f"{ttype!r} is not a task type",
                             f"use one of {', '.join(TASK_TYPES)}")
        _require(tobj, "instruction", str, tpath)
        source = _require(tobj, "source", str, tpath)
        public = {k: v for k, v in tobj.items() if k not in ("task_id", "task_type", "source")}
        tasks[task_id] = Task(task_id, ttype, source, public)

        cases[task_id] = _read_cases(root / "hidden" / task_id / "cases.jsonl", task_id)

        rpath = root / "hidden" / task_id / "reference.json"
        robj = _read_json(rpath)
        refs[task_id] = Reference(_require(robj, "verifier_id", str, rpath),
                                  _require(robj, "version", str, rpath),
                                  robj.get("data") or {})
    report_path = root / "hidden" / "build_report.json"
    report = _read_json(report_path) if report_path.is_file() else {}
    return Suite(manifest["name"], root, manifest, tasks, cases, refs, report)
