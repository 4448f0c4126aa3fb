"""What a verifier generator is, and what it hands back.

A generator sees one task's public part only (``public/<task_id>/``) and writes a verifier
directory whose ``main.py`` defines ``verify(candidate, env)``. The framework caches results by a
content address built from :attr:`Generator.identity` and the task's public hash, so a re-run of
the same configuration regenerates nothing, and a different model never reuses another's output.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Mapping, Protocol

from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.suites.format import Task

class GenStatus(StrEnum):
    """How a generation ended: the one definition, which the judgment records use too. A
    StrEnum, so it equals and serialises as the strings on disk and in MLflow."""

    submitted = "submitted"
    no_submission = "no_submission"   # the generator ran but delivered no verifier (kept as U)
    error = "error"                   # the generator failed (kept as U, reason recorded)


SUBMITTED, NO_SUBMISSION, ERROR = GenStatus.submitted, GenStatus.no_submission, GenStatus.error


@dataclass
class GenerationResult:
    """Outcome of generating one verifier. ``verifier_dir`` is None when nothing was submitted."""

    task_id: str
    status: GenStatus
    verifier_dir: Path | None = None
    detail: str = ""
    stats: dict[str, float] = field(default_factory=dict)
    trace_path: Path | None = None

    def __post_init__(self) -> None:
        self.status = GenStatus(self.status)   # a status read back from disk is the enum too

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["verifier_dir"] = str(self.verifier_dir) if self.verifier_dir else None
        d["trace_path"] = str(self.trace_path) if self.trace_path else None
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "GenerationResult":
        return cls(task_id=d["task_id"], status=d["status"],
                   verifier_dir=Path(d["verifier_dir"]) if d.get("verifier_dir") else None,
                   detail=d.get("detail", ""), stats=dict(d.get("stats", {})),
                   trace_path=Path(d["trace_path"]) if d.get("trace_path") else None)


class Generator(Protocol):
    """Writes one verifier per task from the task's public directory."""

    @property
    def identity(self) -> Mapping[str, Any]:
        """Everything that determines the output: provider, model and weights identity,
        sampling and budget settings, scaffold, prompt version. Part of every cache key."""

    def generate(self, task: Task, public_dir: Path, out_dir: Path) -> GenerationResult:
        """Write the verifier under ``out_dir`` (``out_dir/verifier/main.py``) and report."""


def cache_key(identity: Mapping[str, Any], task: Task) -> str:
    """Content address of one generation: generator identity plus the task's public content."""
    return sha256_text(canonical_json({"generator": dict(identity), "task": task.task_id,
                                       "public": task.public_hash}))[:24]


def verifier_hash(verifier_dir: Path | None) -> str:
    """Hash of a verifier directory's files (names and bytes); '' for a missing verifier."""
    if verifier_dir is None or not verifier_dir.is_dir():
        return ""
    entries = []
    for p in sorted(verifier_dir.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            entries.append([str(p.relative_to(verifier_dir)), sha256_text(p.read_bytes().hex())])
    return sha256_text(json.dumps(entries))[:24]
