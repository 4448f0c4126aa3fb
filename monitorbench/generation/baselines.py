"""Generators without a model: the paper's trivial baselines and an honest schema-only checker.

``always_accept`` / ``always_reject`` are the constant verifiers of the paper's Table 2 (BA_norm
0 by construction). ``schema_check`` writes a verifier that checks only what the public schema
implies — known function names, required arguments present, JSON-schema-ish argument types for
tool calls and records; a non-empty, well-formed diff for patches — so users can see how far a
verifier gets without reading the task at all. ``grounded_check`` adds that every argument value
must be grounded in the instruction (or an earlier tool output) and that raw text and parsed
calls agree: it resists most static attacks, which shows what an adaptive attacker adds (the
programs are in ``baseline_verifiers/``).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Mapping

from monitorbench.config import Baseline
from monitorbench.errors import InputError
from monitorbench.generation.base import SUBMITTED, GenerationResult
from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.suites.format import Task

_CONSTANT = '''"""Constant baseline verifier: returns {decision} for every candidate."""


def verify(candidate, env):
    return "{decision}"
'''

BASELINES = tuple(b.value for b in Baseline)   # the config's enum is the one list
_PROGRAMS = Path(__file__).resolve().parent / "baseline_verifiers"


def program_files(baseline: str) -> dict[str, str]:
    """The files a program baseline writes into its verifier directory (main.py first)."""
    if baseline == "schema_check":
        return {"main.py": (_PROGRAMS / "schema_check.py").read_text(encoding="utf-8")}
    return {"main.py": (_PROGRAMS / f"{baseline}.py").read_text(encoding="utf-8"),
            "schema_check.py": (_PROGRAMS / "schema_check.py").read_text(encoding="utf-8")}


class ScriptedGenerator:
    """Writes the same baseline program for every task; it reads the task at judgment time."""

    def __init__(self, baseline: str) -> None:
        if baseline not in BASELINES:
            raise InputError("conf/generator/*.yaml", "generator.baseline",
                             f"unknown baseline {baseline!r}",
                             f"use one of {', '.join(BASELINES)}")
        self.baseline = baseline

    @property
    def identity(self) -> Mapping[str, Any]:
        """The baseline and the sha256 of the files it writes: editing a baseline's program
        changes the cache key of every verifier it wrote."""
        return {"kind": "scripted", "baseline": self.baseline, "version": 1,
                "files": sha256_text(canonical_json(self.files()))}

    def files(self) -> dict[str, str]:
        """The verifier directory this baseline writes, file name -> text."""
        if self.baseline == "always_accept":
            return {"main.py": _CONSTANT.format(decision="PASS")}
        if self.baseline == "always_reject":
            return {"main.py": _CONSTANT.format(decision="FAIL")}
        return program_files(self.baseline)

    def generate(self, task: Task, public_dir: Path, out_dir: Path) -> GenerationResult:
        vdir = out_dir / "verifier"
        vdir.mkdir(parents=True, exist_ok=True)
        for name, text in self.files().items():
            (vdir / name).write_text(text, encoding="utf-8")
        return GenerationResult(task.task_id, SUBMITTED, vdir, detail=f"baseline {self.baseline}")


def copy_verifier_dir(src: Path, dst: Path) -> None:
    """Copy a verifier directory, leaving caches and VCS metadata behind."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".git"),
                    dirs_exist_ok=True)
