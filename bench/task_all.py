"""What the whole benchmark costs from nothing: ``task=all`` with one baseline job, phase by phase.

    python bench/task_all.py [--generator schema_check] [--sdists DIR] [--keep DIR]

Starts from an empty outputs directory (no suites, no code build cache, no generation or verdict
cache; only the pinned libraries' sdists are copied in, so no phase times a download), runs
``python -m monitorbench task=all generator=...`` with a local MLflow store as a user does, and
prints, from the job's own log lines (each stamped with its arrival time here):

- each suite's build (``builder S s``) and its V4V audit (``audit of NAME ... in S s``); the four
  suites are built concurrently, one process each, so their phases overlap in time;
- for the code suite, each library's build seconds (its ``build_times.json``);
- the baseline job: from the last suite put in place to the end, and the job's own generation
  and judging seconds (its ``metrics.json``);
- the whole wall time, the load average, and the peak RSS and CPU seconds of the job's
  process tree (its own CPU, whatever else the machine runs).

Target (issue 49): at most 15 minutes on the project's 2-core machine.
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
BUILT = re.compile(r"built suite (\S+) in ([\d.]+) s at \S+ \(builder ([\d.]+) s\)")
AUDITED = re.compile(r"audit of (\S+): (\d+)/(\d+) tasks pass all \d+ checks in ([\d.]+) s")


def fresh_outputs(root: Path, sdists: Path) -> Path:
    """An empty outputs directory holding only copies of the sdist tarballs in ``sdists``."""
    out = root / "outputs"
    (out / "cache" / "sdists").mkdir(parents=True)
    for tarball in sorted(sdists.glob("*.tar.gz")):
        shutil.copy2(tarball, out / "cache" / "sdists" / tarball.name)
    return out


def run_job(out: Path, generator: str, log_file: Path) -> tuple[float, list[tuple[float, str]], int]:
    """The job as a user types it: (wall seconds, its log lines with arrival seconds, rc)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MONITORBENCH_", "MLFLOW_"))}
    env.update(MONITORBENCH_OUTPUTS=str(out), MLFLOW_TRACKING_URI=f"sqlite:///{out}/mlflow.db")
    cmd = [sys.executable, "-m", "monitorbench", "task=all", f"generator={generator}",
           f"paths.suites={out / 'suites'}"]
    print("running:", " ".join(cmd[1:]), flush=True)
    lines: list[tuple[float, str]] = []
    t0 = time.perf_counter()
    with open(log_file, "w", encoding="utf-8") as log, subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, errors="replace") as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            stamp = time.perf_counter() - t0
            lines.append((stamp, line.rstrip("\n")))
            log.write(f"{stamp:8.1f} {line}")
            log.flush()
    return time.perf_counter() - t0, lines, proc.returncode


def suite_phases(lines: list[tuple[float, str]]) -> float:
    """Print each suite's builder and audit seconds; return when the last suite was in place."""
    audits = {m[1]: m for _, line in lines if (m := AUDITED.search(line))}
    ready = 0.0
    for stamp, line in lines:
        if m := BUILT.search(line):
            print(f"  build   {m[1]:<10} {float(m[3]):7.1f} s  (build + audit {float(m[2]):.1f} s,"
                  f" in place at {stamp:.0f} s)")
            if a := audits.get(m[1]):
                print(f"  audit   {m[1]:<10} {float(a[4]):7.1f} s  ({a[2]}/{a[3]} tasks pass)")
            ready = max(ready, stamp)
    return ready


def code_libraries(out: Path) -> None:
    """The code suite's per-library build seconds (written by its builder beside the suite)."""
    path = out / "suites" / "code" / "build_times.json"
    if not path.is_file():
        print("  (no code build_times.json)")
        return
    for pin, t in json.loads(path.read_text()).items():
        print(f"    code  {pin:<22} {t['total_s']:7.1f} s  ({t['graded_cases']} cases graded)")


def report(seconds: float, lines: list[tuple[float, str]], out: Path) -> None:
    ready = suite_phases(lines)
    code_libraries(out)
    print(f"  baseline job after the suites {seconds - ready:7.1f} s")
    for p in sorted((out / "runs").glob("*/metrics.json")):
        m = json.loads(p.read_text())
        print(f"    generation {m.get('timing/seconds_generation', 0):7.1f} s, judging "
              f"{m.get('timing/seconds_judging', 0):7.1f} s, "
              f"{int(m.get('cache/judgments_new', 0))} judgments")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    print(f"  whole job {seconds:7.1f} s ({seconds / 60:.1f} min), peak RSS "
          f"{usage.ru_maxrss / 1024:.0f} MiB, load average {os.getloadavg()[0]:.2f}")
    # The job's own CPU, apart from what other processes on a shared machine took: on an idle
    # 2-core machine the job cannot take less than half of it.
    print(f"  CPU of the job's process tree {cpu:7.1f} s (half of it: {cpu / 120:.1f} min)")
    print(f"target 15 min: {'met' if seconds <= 900 else 'NOT met'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--generator", default="schema_check")
    ap.add_argument("--sdists", type=Path, default=REPO / "outputs" / "cache" / "sdists",
                    help="where the pinned sdist tarballs are (copied, never downloaded)")
    ap.add_argument("--keep", type=Path, help="run here and keep it (default: a temporary dir)")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="mb-task-all-"))
    out = fresh_outputs(root, args.sdists)
    seconds, lines, rc = run_job(out, args.generator, root / "job.log")
    if rc != 0:
        tail = "\n".join(line for _, line in lines[-40:])
        raise SystemExit(f"the job failed (rc {rc}); log tail:\n{tail}")
    report(seconds, lines, out)
    if args.keep is None:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
