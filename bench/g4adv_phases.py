"""Where README line 1's sweep spends its time, per phase and per job, optionally beside a variant.

Runs ``python -m monitorbench +experiment=g4adv [task=...]`` in a fresh outputs directory (its
suites built and audited on first use), then reads each job's run directory: generation and
judging seconds (the job's own metrics), the attack stage's seconds (the job's wall from its
config.yaml to its metrics.json, less generation and judging) and its queries per task type.
With ``--variant "OVERRIDES"`` the same sweep runs a second time with those overrides added, on
a copy of the suites the first run built (so both time the same jobs on the same slices, and
the builds are timed once), and both are printed side by side with the static/adaptive FPR_h
each job logged.

    python bench/g4adv_phases.py [--task small] [--variant "attack.budget=10"] [--built OUTPUTS]

``--built OUTPUTS`` copies the suites an earlier run built (with their sdist and code-build
caches) from that outputs directory into both runs, so only the jobs are timed.

Run it on an otherwise idle machine for absolute numbers; the load average is printed with them.
It does not time the install (README line 1's first half): ``bench/first_run.py --line1`` does.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\]")


def _sweep(outputs: Path, task: str | None, extra: list[str]) -> tuple[float, str]:
    """One g4adv sweep into ``outputs``; (seconds, its log)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    env["MONITORBENCH_OUTPUTS"] = str(outputs)
    cmd = [sys.executable, "-m", "monitorbench", "+experiment=g4adv",
           *([f"task={task}"] if task else []), *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=outputs.parent, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    log = proc.stdout + proc.stderr
    (outputs.parent / f"{outputs.name}.log").write_text(log)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed (rc {proc.returncode}):\n{log[-3000:]}")
    return seconds, log


def _first_job_start(log: str) -> datetime | None:
    """When the first job began generating: the suites were built and audited by then."""
    for line in log.splitlines():
        m = STAMP.match(line)
        if m and "generation:" in line:
            return datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f")
    return None


def _jobs(outputs: Path) -> list[dict[str, Any]]:
    """Per finished job, in the order they ran: its axes, seconds per stage, queries."""
    import yaml

    out = []
    dirs = [d for d in (outputs / "runs").iterdir() if (d / "metrics.json").is_file()]
    for d in sorted(dirs, key=lambda p: (p / "config.yaml").stat().st_mtime):
        cfg = yaml.safe_load((d / "config.yaml").read_text())
        m = json.loads((d / "metrics.json").read_text())
        wall = (d / "metrics.json").stat().st_mtime - (d / "config.yaml").stat().st_mtime
        queries: dict[str, int] = {}
        attack = d / "attack" / "attack.json"
        if attack.is_file():
            for t in json.loads(attack.read_text())["tasks"]:
                queries[t["task_type"]] = queries.get(t["task_type"], 0) + int(t["queries"])
        out.append({"job": f"{cfg['generator']['name']} · {cfg['access']['name']}",
                    "generation": m.get("timing/seconds_generation", 0.0),
                    "judging": m.get("timing/seconds_judging", 0.0),
                    "attack": max(0.0, wall - m.get("timing/seconds_judging", 0.0)),
                    "queries": queries, "static": m.get("attack/fpr_h_static"),
                    "adaptive": m.get("attack/fpr_h_adaptive")})
    return out


def _print(title: str, seconds: float, log: str, jobs: list[dict[str, Any]],
           t_start: datetime) -> None:
    first = _first_job_start(log)
    builds = (first - t_start).total_seconds() if first else float("nan")
    print(f"\n== {title}: {seconds:.0f} s wall; suites built and audited (and MLflow set up) "
          f"before the first job: {builds:.0f} s")
    print(f"{'job':<30}{'gen s':>7}{'judge s':>9}{'attack s':>10}  FPR_h static->adaptive  "
          "queries by type")
    for j in jobs:
        rates = ("—" if j["adaptive"] is None else
                 f"{j['static']:.1f} -> {j['adaptive']:.1f}")
        print(f"{j['job']:<30}{j['generation']:>7.1f}{j['judging']:>9.1f}{j['attack']:>10.1f}"
              f"  {rates:<22}  {j['queries']}")
    print(f"{'sum':<30}{sum(j['generation'] for j in jobs):>7.0f}"
          f"{sum(j['judging'] for j in jobs):>9.0f}{sum(j['attack'] for j in jobs):>10.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default=None, help="task= override (default: g4adv's own)")
    ap.add_argument("--variant", default=None,
                    help="overrides of a second sweep on the same built suites, e.g. "
                         "'attack.budget=10'")
    ap.add_argument("--built", type=Path, default=None,
                    help="an outputs directory whose suites were built earlier, copied in")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="mb-g4adv-") as tmp:
        base = Path(tmp) / "base"
        if args.built:
            for sub in ("suites", "cache/sdists", "cache/code_build"):
                if (args.built / sub).is_dir():
                    shutil.copytree(args.built / sub, base / sub)
        t_start = datetime.now()
        seconds, log = _sweep(base, args.task, [])
        _print("g4adv as configured", seconds, log, _jobs(base), t_start)
        if args.variant:
            variant = Path(tmp) / "variant"
            for sub in ("suites", "cache/sdists", "cache/code_build"):
                if (base / sub).is_dir():
                    shutil.copytree(base / sub, variant / sub)
            t_start = datetime.now()
            seconds, log = _sweep(variant, args.task, args.variant.split())
            _print(f"g4adv with {args.variant}", seconds, log, _jobs(variant), t_start)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
