"""What the whole benchmark costs from nothing: ``task=all`` with one baseline job, phase by phase.

    python bench/task_all.py [--generator schema_check] [--keep DIR]

Starts from an empty outputs directory (no suites, no code build cache, no generation or verdict
cache; the libraries' sdists are copied in from ``outputs/cache/sdists`` when this checkout has
them, so no phase times a download), runs ``python -m monitorbench task=all generator=...``
with a local MLflow store as a user does, and prints from the job's own log:

- each suite's build and audit (``built suite NAME in S s``; the builds run concurrently, so they
  overlap), and for the code suite whether each library's bugs were replayed from
  ``pinned_bugs.json`` or searched for (the search is what made a build from nothing take 40 min);
- the job's generation and judging seconds and judgments made (its ``metrics.json``);
- the whole wall time and the peak RSS of the job's process tree (``getrusage`` of children).

Target (issue 49): at most 15 minutes on the project's 2-core machine. Run it on an otherwise
idle machine for absolute numbers; the load average is printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILT = re.compile(r"built suite (\S+) in ([\d.]+) s")
LIBRARY = re.compile(r"(\w+): (replaying \d+ pinned bugs|no pinned bugs .*; searching)")


def fresh_outputs(root: Path) -> Path:
    """An empty outputs directory holding only copies of the sdists this checkout has."""
    out = root / "outputs"
    sdists = REPO / "outputs" / "cache" / "sdists"
    (out / "cache" / "sdists").mkdir(parents=True)
    for tarball in sdists.glob("*.tar.gz") if sdists.is_dir() else []:
        shutil.copy2(tarball, out / "cache" / "sdists" / tarball.name)
    return out


def run_job(out: Path, generator: str) -> tuple[float, str, int]:
    """The job as a user types it; (wall seconds, its log, return code)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MONITORBENCH_", "MLFLOW_"))}
    env.update(MONITORBENCH_OUTPUTS=str(out), MLFLOW_TRACKING_URI=f"sqlite:///{out}/mlflow.db")
    cmd = [sys.executable, "-m", "monitorbench", "task=all", f"generator={generator}",
           f"paths.suites={out / 'suites'}"]
    print("running:", " ".join(cmd[1:]), flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    return time.perf_counter() - t0, proc.stdout + proc.stderr, proc.returncode


def report(seconds: float, log: str, out: Path) -> None:
    """The phases the job's log and metrics.json hold."""
    for name, built in BUILT.findall(log):
        print(f"  build and audit  {name:<10} {float(built):7.1f} s")
    for library, how in LIBRARY.findall(log):
        print(f"  code library     {library:<10} {how}")
    metrics = [json.loads(p.read_text()) for p in (out / "runs").glob("*/metrics.json")]
    for m in metrics:
        print(f"  generation       {m.get('timing/seconds_generation', 0):7.1f} s")
        print(f"  judging          {m.get('timing/seconds_judging', 0):7.1f} s, "
              f"{int(m.get('cache/judgments_new', 0))} judgments, {int(m.get('n_tasks', 0))} tasks")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"  whole job        {seconds:7.1f} s ({seconds / 60:.1f} min), peak RSS {peak:.0f} MiB,"
          f" load average {os.getloadavg()[0]:.2f}")
    print(f"target 15 min: {'met' if seconds <= 900 else 'NOT met'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--generator", default="schema_check")
    ap.add_argument("--keep", type=Path, help="run here and keep it (default: a temporary dir)")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="mb-task-all-"))
    out = fresh_outputs(root)
    seconds, log, rc = run_job(out, args.generator)
    (root / "job.log").write_text(log)
    if rc != 0:
        raise SystemExit(f"the job failed (rc {rc}); log tail:\n{log[-3000:]}")
    report(seconds, log, out)
    if args.keep is None:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
