"""A verifier scored with ``monitorbench score --json``, read as a one-task run for the pages.

``score`` judges one verifier directory on one task and prints one JSON object per case and a
last ``{"summary": ...}`` line; it writes nothing else. Saved to a file, that output plus the
suite (for the candidates) and the verifier directory (for its code) is everything the pages
show for a run, so the viewer reads it the same way: nothing is judged again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from monitorbench.errors import InputError
from monitorbench.generation.base import SUBMITTED, GenerationResult
from monitorbench.jsonl import read_strict
from monitorbench.suites.locate import dir_holding
from monitorbench.view.load import (MAX_CODE_BYTES, CaseView, GenerationView, RunView,
                                    TaskView, read_cases)

FIX = ("save the output of `monitorbench score DIR --task ID --json > scored.jsonl` and pass "
       "that file")


def is_score_output(path: Path) -> bool:
    return Path(path).is_file()


def load_score_output(path: Path, suites_root: Path, verifier: Path | None) -> RunView:
    """The cases and summary ``score --json`` wrote to ``path``, joined with the task's hidden
    candidates under ``suites_root`` and the code of ``verifier`` (if given)."""
    path = Path(path)
    cases: list[dict[str, Any]] = []
    summary: dict[str, Any] | None = None
    for lineno, obj in read_strict(path, FIX):
        if isinstance(obj, dict) and isinstance(obj.get("summary"), dict):
            summary = obj["summary"]
        elif isinstance(obj, dict) and "case_id" in obj and "outcome" in obj:
            cases.append(obj)
        else:
            raise InputError(path, f"line {lineno}", "neither a case nor a summary of "
                             "`monitorbench score --json`", FIX)
    if summary is None or not isinstance(summary.get("task_id"), str):
        raise InputError(path, None, "no summary line with a task_id, so not a whole "
                         "`monitorbench score --json` output", FIX)
    task_id = summary["task_id"]
    held = dir_holding(Path(suites_root), task_id.split(".", 1)[0], task_id)
    hidden = read_cases(held / "hidden" / task_id / "cases.jsonl") if held else {}
    task = TaskView(task_id, "", "", [CaseView({**c, "task_id": task_id}, hidden.get(
        c["case_id"])) for c in cases], summary.get("tpr"), summary.get("tnr"))
    task.generation = _verifier(task_id, verifier)
    metrics = {k: summary[k] for k in ("ba_norm", "tpr", "tnr", "fpr_h")
               if summary.get(k) is not None}
    config = {"generator": {"name": f"score {verifier.name if verifier else ''}".strip()},
              "task": {"name": task_id}}
    return RunView(path, config, metrics, 1, {task_id: task})


def _verifier(task_id: str, verifier: Path | None) -> GenerationView | None:
    """The scored verifier directory as the page's verifier section (no generation trace)."""
    if verifier is None:
        return None
    main = Path(verifier) / "main.py"
    code = (main.read_bytes()[:MAX_CODE_BYTES].decode("utf-8", "replace")
            if main.is_file() and not main.is_symlink() else None)
    result = GenerationResult(task_id, SUBMITTED, Path(verifier),
                              detail=f"scored with monitorbench score from {verifier}")
    return GenerationView(Path(verifier), result, code, [])
