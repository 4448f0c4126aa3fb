"""The test suite serially and on two xdist workers, side by side in one run: README line 2 runs
``-n 2 --dist loadgroup`` (tests/conftest.py keeps each module on one worker, builds the shared
slices once across workers and sends the longest groups first). Prints each mode's wall seconds,
its pass/fail line, the ratio and the load average before and after each mode (the machine is
shared: a load above the core count inflates both walls).

    python bench/test_suite_speed.py [PATHS ...] [--workers 2] [--order parallel-first]

Default PATHS: 241 tests that build real slices (audit, sources' BFCL and code tests,
metrics): 17 minutes serially at load 5 on 2 cores, 14 on two workers (load 5-9). Both modes run the same PATHS in fresh pytest temp directories, so neither
reuses the other's slices. The serial mode reads the default sdist cache (outputs/cache/sdists),
each worker its own (outputs/cache/xdist-gwN): on the first bench in a checkout the workers
download their sdists (seconds); ``--order`` swaps the modes to check for such an effect.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = ["tests/audit", "tests/sources/test_bfcl.py", "tests/sources/test_code.py",
                 "tests/test_metrics.py"]


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_mode(paths: list[str], workers: int) -> tuple[float, str, int]:
    """(wall seconds, pytest's summary line, exit status) of one pytest run over ``paths``."""
    xdist = ["-n", str(workers), "--dist", "loadgroup"] if workers > 1 else ["-p", "no:xdist"]
    with tempfile.TemporaryDirectory(prefix="suite-speed-") as tmp:
        cmd = [sys.executable, "-m", "pytest", "-q", *xdist, "--basetemp", f"{tmp}/base",
               "-p", "no:cacheprovider", *paths]
        start = time.monotonic()
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
        wall = time.monotonic() - start
    summary = next((line for line in reversed(proc.stdout.splitlines())
                    if re.search(r"\d+ (passed|failed|error)", line)), proc.stdout[-300:])
    return wall, summary.strip("= "), proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=DEFAULT_PATHS)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--order", choices=["serial-first", "parallel-first"], default="serial-first")
    a = ap.parse_args()
    modes = [("serial", 1), (f"-n {a.workers}", a.workers)]
    if a.order == "parallel-first":
        modes.reverse()
    print(f"paths: {' '.join(a.paths)}  (cores: {os.cpu_count()})", flush=True)
    walls: dict[str, float] = {}
    failed = False
    for name, workers in modes:
        before = _load()
        wall, summary, rc = run_mode(a.paths, workers)
        walls[name] = wall
        failed |= rc != 0
        print(f"{name:>8}: {wall:7.1f} s  [{summary}]  load before {before}, after {_load()}",
              flush=True)
    serial, parallel = walls["serial"], walls[f"-n {a.workers}"]
    print(f"   ratio: serial / -n {a.workers} = {serial / parallel:.2f}x")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
