"""Score verifiers that any external agent wrote: one sub-directory per task id with main.py.

The directory's content hash is part of the generator identity, so editing any verifier there
invalidates the cached generation and its judgments instead of silently reusing them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from monitorbench.errors import InputError
from monitorbench.generation.base import (NO_SUBMISSION, SUBMITTED, GenerationResult,
                                          verifier_hash)
from monitorbench.generation.baselines import copy_verifier_dir
from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.suites.format import Task


class ReplayGenerator:
    """Loads ``<dir>/<task_id>/`` as the verifier of each task; absent → no submission."""

    def __init__(self, directory: str | Path | None) -> None:
        if not directory:
            raise InputError("conf/generator/replay.yaml", "generator.dir", "is not set",
                             "pass generator.dir=/path/with/one/subdir/per/task_id")
        self.dir = Path(directory).expanduser().resolve()
        if not self.dir.is_dir():
            raise InputError(self.dir, "generator.dir", "directory does not exist",
                             "point generator.dir at a directory holding <task_id>/main.py")
        subdirs = sorted(p for p in self.dir.iterdir() if p.is_dir())
        self._content = sha256_text(canonical_json(
            [[p.name, verifier_hash(p)] for p in subdirs]))[:24]

    @property
    def identity(self) -> Mapping[str, Any]:
        return {"kind": "replay", "dir": str(self.dir), "content": self._content}

    def generate(self, task: Task, public_dir: Path, out_dir: Path) -> GenerationResult:
        src = self.dir / task.task_id
        if not (src / "main.py").is_file():
            return GenerationResult(task.task_id, NO_SUBMISSION,
                                    detail=f"no {task.task_id}/main.py under {self.dir}")
        vdir = out_dir / "verifier"
        copy_verifier_dir(src, vdir)
        return GenerationResult(task.task_id, SUBMITTED, vdir, detail=f"replayed from {src}")
