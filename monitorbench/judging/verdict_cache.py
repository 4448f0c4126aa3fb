"""Verdicts shared across runs: a verifier is executed once per input it can see, per round.

A run's judgment store is keyed by the run's whole configuration, so two configurations that
show a verifier the same input re-executed it: in ``+experiment=g4adv`` the three access settings
differ only in what a tool-call monitor sees, yet every state and code task (a sandboxed replay
or a library's test suite per case, three rounds) was judged once per access setting. This cache
is content-addressed by exactly what decides a verdict:

- the verifier's files (``verifier_hash``),
- the task's public directory, through the suite's hash and the task id,
- the projected candidate the verifier receives (what the access mode lets it see),
- the round (rounds of a nondeterministic verifier stay separate executions),
- how it runs: the sandbox spec (limits, masks, the ``run_public`` runtime and its budget), the
  backend, its image and the sandbox's own code (:func:`setting_hash`).

The label, group and category are not in it (the verifier never sees them) and are joined again
when the run writes its own record, so each run's store still holds its complete judgments and
resumes on its own. A sandbox error is never stored here (it says nothing about the verifier, and
the run retries it), and neither is a model judge's verdict (it is not a sandboxed execution).
Entries are small JSON files written atomically (a temporary file renamed into place), so
concurrent jobs (a Slurm array) share them safely; a missing or unreadable entry is a miss.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any, Mapping

from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.sandbox.base import SandboxSpec, Verdict
from monitorbench.sandbox.code_identity import sandbox_code_hash

__all__ = ["VerdictCache", "setting_hash"]

# What is kept of a verdict: its decision and what the judgment record copies from it, plus
# ``stdout`` (what the verifier printed, shown by the viewer; "" in entries written before it was
# kept, which stay hits).
_FIELDS = ("decision", "confidence", "reason", "detail", "seconds", "executions")


def setting_hash(spec: SandboxSpec, backend: str, image: str | None) -> str:
    """How a verifier runs, as a hash: the sandbox spec, the backend, the image and the
    sandbox's own code (:mod:`monitorbench.sandbox.code_identity`)."""
    return sha256_text(canonical_json({"spec": asdict(spec), "backend": backend,
                                       "image": image, "code": sandbox_code_hash()}))[:24]


class VerdictCache:
    """Verdicts by content key under ``root`` (``<paths.cache>/verdicts``), with hit counts."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self.hits = 0
        self.stored = 0

    @staticmethod
    def key(*, verifier_hash: str, suite_hash: str, task_id: str, round: int, setting: str,
            projected: Mapping[str, Any]) -> str:
        """The content key of one execution (see the module docstring for why each part)."""
        return sha256_text(canonical_json({
            "verifier": verifier_hash, "suite": suite_hash, "task": task_id, "round": round,
            "setting": setting, "input": dict(projected)}))

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Verdict | None:
        """The stored verdict, or None (absent, or unreadable: then it is simply judged)."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            verdict = Verdict(**{f: data[f] for f in _FIELDS}, stdout=data.get("stdout", ""))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        with self._lock:
            self.hits += 1
        return verdict

    def put(self, key: str, verdict: Verdict) -> None:
        """Store a verdict the verifier made (never a sandbox error: the caller checks)."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps({**{f: getattr(verdict, f) for f in _FIELDS},
                           "stdout": verdict.stdout}, sort_keys=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(body)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        with self._lock:
            self.stored += 1
