"""One monitorbench job through the CLI, with fresh outputs, timed: the shared step of the bench
scripts that compare whole-job settings side by side (rounds_walltime, full_benchmark)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_cli_job(overrides: list[str], suites: Path, what: str) -> dict[str, float]:
    """Run ``python -m monitorbench <overrides>`` in-process style with untracked, fresh outputs
    (no judgment store or generation cache to reuse) and the already built ``suites``; returns
    the job's metrics plus ``wall`` seconds. Exits naming ``what`` if the job fails."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "monitorbench", *overrides, "tracking.enabled=false",
               f"paths.outputs={tmp}", f"paths.suites={suites}", f"hydra.run.dir={tmp}/hydra"]
        t0 = time.perf_counter()
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if out.returncode != 0:
            sys.exit(f"{what} job failed:\n{(out.stdout + out.stderr)[-3000:]}")
        metrics = json.loads(next(Path(tmp, "runs").glob("*/metrics.json")).read_text())
    return {"wall": wall, **metrics}
