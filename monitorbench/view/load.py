"""Read what a run already wrote into one structure the pages are rendered from.

A case's story is spread over five places: the run's ``judgments.jsonl`` (outcome, reason,
detail), its ``metrics.json``, the suite's hidden ``cases.jsonl`` (the candidate itself), the
generation cache (the verifier's ``main.py``, ``result.json`` and ``trace.jsonl``) and the run's
``config.yaml`` (which names the suites and cache directories). Nothing here executes a verifier
or writes to the run: the viewer only joins these files, so it shows exactly what was judged.

The run directory does not record which generation-cache entry each task's verifier came from,
so a task's verifier is found by content: the cache entry for that task whose verifier files
hash to the judgments' ``verifier_hash`` (the hash the judging stage recorded). A task with no
verifier (no submission, an error) has no hash; its newest cache entry for that task is shown,
and the page says when several could be meant.

Public API::

    load_run(run_dir: Path) -> RunView
    read_cases(path: Path) -> dict[str, Mapping]
    RunView, TaskView, CaseView, GenerationView
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from omegaconf import OmegaConf

from monitorbench.errors import InputError
from monitorbench.generation.base import GenerationResult, verifier_hash
from monitorbench.jsonl import read_lenient, read_strict
from monitorbench.judging.records import is_infra_failure
from monitorbench.judging.store import outputs_path
from monitorbench.metrics.rates import task_fractions
from monitorbench.metrics.records import build_table, load_judgments
from monitorbench.metrics.rounds import select_median_round

MAX_CODE_BYTES = 1 << 20      # a verifier's main.py shown up to 1 MB (the harness cap)
MAX_TRACE_BYTES = 16 << 20    # a trace read up to 16 MB (traces are capped at 64 MB)


@dataclass
class CaseView:
    """One judged case: the judgment's fields plus the hidden candidate (None if not stored)."""

    judgment: dict[str, Any]
    candidate: Mapping[str, Any] | None
    output: str = ""        # what the verifier printed judging it (capped tail), if anything

    @property
    def expected(self) -> str:
        """The outcome a correct verifier gives: P for a valid solution, F for an invalid one."""
        return "P" if self.judgment["label"] == "PASS" else "F"

    @property
    def infra(self) -> bool:
        return is_infra_failure(self.judgment)

    @property
    def wrong(self) -> bool:
        """A verdict charged to the verifier that disagrees with the label (U included)."""
        return not self.infra and self.judgment["outcome"] != self.expected


@dataclass
class GenerationView:
    """A task's generation-cache entry: its result, verifier code and trace events."""

    entry: Path
    result: GenerationResult
    code: str | None
    trace: list[dict[str, Any]]
    note: str = ""


@dataclass
class TaskView:
    """One task of the run: its cases in the reported round and its rates."""

    task_id: str
    task_type: str
    verifier_hash: str
    cases: list[CaseView]
    tpr: float | None = None
    tnr: float | None = None
    generation: GenerationView | None = None

    def count(self, outcome: str) -> int:
        return sum(1 for c in self.cases if c.judgment["outcome"] == outcome and not c.infra)

    @property
    def n_wrong(self) -> int:
        return sum(1 for c in self.cases if c.wrong)


@dataclass
class RunView:
    """Everything the pages of one run show."""

    run_dir: Path
    config: dict[str, Any]
    metrics: dict[str, Any]
    round: int
    tasks: dict[str, TaskView] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The run's short name, as the console table heads it (generator·access·task)."""
        c = self.config
        parts = [c.get("generator", {}).get("name"), c.get("access", {}).get("name"),
                 c.get("task", {}).get("name")]
        return "·".join(str(p) for p in parts if p) or self.run_dir.name


def is_run_dir(path: Path) -> bool:
    return (path / "judgments.jsonl").is_file()


def load_run(run_dir: Path) -> RunView:
    """The run in ``run_dir`` (``outputs/runs/<run_key>``) joined with its suites and cache."""
    run_dir = Path(run_dir)
    if not is_run_dir(run_dir):
        raise InputError(run_dir, None, "not a run directory (it has no judgments.jsonl)",
                         "pass outputs/runs/<run_key>, the directory a job's 'Outputs:' line "
                         "names")
    config = _config(run_dir)
    metrics = _json_or_empty(run_dir / "metrics.json")
    records = load_judgments(run_dir / "judgments.jsonl")
    selected = select_median_round(records, source=run_dir / "judgments.jsonl") if records \
        else None
    chosen = [dict(r) for r in selected.records] if selected else []
    run = RunView(run_dir, config, metrics, selected.round if selected else 1)
    paths = config.get("paths", {})
    outputs = run_dir.parent.parent
    candidates = _Candidates(Path(paths.get("suites") or outputs.parent / "suites"))
    printed = _outputs(outputs_path(run_dir / "judgments.jsonl"))
    for rec in chosen:
        task = run.tasks.setdefault(rec["task_id"], TaskView(
            rec["task_id"], rec["task_type"], str(rec.get("verifier_hash", "")), []))
        key = tuple(str(rec.get(k)) for k in ("task_id", "case_id", "round", "access",
                                              "verifier_hash"))
        task.cases.append(CaseView(rec, candidates.get(rec), printed.get(key, "")))
    _rates(run, chosen)
    cache = Path(paths.get("cache") or outputs / "cache") / "generations"
    entries = _generation_entries(cache)
    for task in run.tasks.values():
        task.generation = _generation(entries.get(task.task_id, []), task.verifier_hash)
    return run


def _outputs(path: Path) -> dict[tuple[str, ...], str]:
    """What the verifier printed per judgment key (the judging store's outputs file; absent in
    runs judged before it was kept)."""
    if not path.is_file():
        return {}
    out: dict[tuple[str, ...], str] = {}
    for line in read_lenient(path.read_text(encoding="utf-8", errors="replace")):
        if isinstance(line, dict) and isinstance(line.get("key"), list) and isinstance(
                line.get("stdout"), str):
            out[tuple(str(k) for k in line["key"])] = line["stdout"]
    return out


def _config(run_dir: Path) -> dict[str, Any]:
    """The run's resolved config as plain data ({} when the run has none)."""
    path = run_dir / "config.yaml"
    if not path.is_file():
        return {}
    data = OmegaConf.to_container(OmegaConf.load(path), resolve=False)
    return data if isinstance(data, dict) else {}


def _json_or_empty(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _rates(run: RunView, records: list[dict[str, Any]]) -> None:
    """Per-task TPR and TNR through the metrics' own table and fractions (one definition)."""
    if not records:
        return
    table = build_table(records, source=run.run_dir / "judgments.jsonl")
    r_pos, r_neg = task_fractions(table)
    for i, task_id in enumerate(table.task_ids):
        task = run.tasks[task_id]
        task.tpr, task.tnr = 100.0 * float(r_pos[i]), 100.0 * float(r_neg[i])


class _Candidates:
    """The hidden candidates of the run's cases, found by the suite hash each judgment records
    (a suite directory's ``manifest.json``) and read one task file at a time."""

    def __init__(self, suites_root: Path) -> None:
        self.roots: dict[str, Path] = {}
        for manifest in sorted(suites_root.glob("*/manifest.json")):
            h = _json_or_empty(manifest).get("suite_hash")
            if isinstance(h, str):
                self.roots.setdefault(h, manifest.parent)
        self.tasks: dict[tuple[str, str], dict[str, Mapping[str, Any]]] = {}

    def get(self, rec: Mapping[str, Any]) -> Mapping[str, Any] | None:
        key = (str(rec.get("suite_hash")), str(rec["task_id"]))
        if key not in self.tasks:
            self.tasks[key] = self._read(*key)
        return self.tasks[key].get(str(rec["case_id"]))

    def _read(self, suite_hash: str, task_id: str) -> dict[str, Mapping[str, Any]]:
        root = self.roots.get(suite_hash)
        return read_cases(root / "hidden" / task_id / "cases.jsonl") if root else {}


def read_cases(path: Path) -> dict[str, Mapping[str, Any]]:
    """The candidates of one task's hidden ``cases.jsonl`` by case id ({} if there is none)."""
    if not path.is_file():
        return {}
    out: dict[str, Mapping[str, Any]] = {}
    for _, obj in read_strict(path, "rebuild the suite"):
        if isinstance(obj, dict) and isinstance(obj.get("candidate"), dict):
            out[str(obj.get("case_id"))] = obj["candidate"]
    return out


def _generation_entries(cache: Path) -> dict[str, list[tuple[Path, GenerationResult]]]:
    """Every generation-cache entry (kept and failed) by task id, newest first."""
    found: list[tuple[float, Path, GenerationResult]] = []
    for result_file in [*cache.glob("*/result.json"), *cache.glob(".failed/*/result.json")]:
        data = _json_or_empty(result_file)
        if "task_id" not in data or "status" not in data:
            continue
        try:
            result = GenerationResult.from_json(data)
        except ValueError:
            continue
        found.append((result_file.stat().st_mtime, result_file.parent, result))
    by_task: dict[str, list[tuple[Path, GenerationResult]]] = {}
    for _, entry, result in sorted(found, key=lambda f: -f[0]):
        by_task.setdefault(result.task_id, []).append((entry, result))
    return by_task


def _generation(entries: list[tuple[Path, GenerationResult]], vhash: str
                ) -> GenerationView | None:
    """The entry whose verifier the run judged (by content hash); without a verifier, the
    newest entry for the task, with a note when several could be meant."""
    for entry, result in entries:
        vdir = entry / result.verifier_dir if result.verifier_dir else None
        if vhash and vdir is not None and verifier_hash(vdir) == vhash:
            return _read_generation(entry, result)
    unsubmitted = [(e, r) for e, r in entries if r.verifier_dir is None]
    if vhash or not unsubmitted:
        return None
    view = _read_generation(*unsubmitted[0])
    if len(unsubmitted) > 1:
        view.note = (f"{len(unsubmitted)} generations of this task delivered no verifier; the "
                     "run does not record which one it used, so the newest is shown")
    return view


def _read_generation(entry: Path, result: GenerationResult) -> GenerationView:
    code = None
    if result.verifier_dir is not None:
        main = entry / result.verifier_dir / "main.py"
        if main.is_file() and not main.is_symlink():
            code = main.read_bytes()[:MAX_CODE_BYTES].decode("utf-8", "replace")
    trace: list[dict[str, Any]] = []
    tpath = entry / result.trace_path if result.trace_path else entry / "trace.jsonl"
    if tpath.is_file() and not tpath.is_symlink():
        text = tpath.read_bytes()[:MAX_TRACE_BYTES].decode("utf-8", "replace")
        trace = [e for e in read_lenient(text) if isinstance(e, dict)]
    return GenerationView(entry, result, code, trace)
