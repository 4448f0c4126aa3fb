"""Wall time of one small sweep under three launchers, side by side in one run.

    python bench/launcher_walltime.py [--generators always_accept,always_reject] [--tasks 10]

The same multirun (generators x one access setting on the BFCL suite, MLflow to SQLite) runs
under hydra's in-process basic launcher, submitit-local (one process per job) and the local Slurm
cluster (slurm/localcluster.sh, one array task per job). Each launcher gets fresh outputs (no
judgment store or generation cache to reuse); the suite is built once up front and shared, so
the numbers compare launching, not suite building. Needs slurm-wlm + munge for the Slurm row.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCALCLUSTER = ROOT / "slurm" / "localcluster.sh"


def run_sweep(launcher: str, outputs: Path, suites: Path, overrides: list[str],
              env: dict[str, str]) -> float:
    """Run the sweep once with `hydra/launcher=launcher`; returns wall seconds."""
    env = dict(env, MONITORBENCH_OUTPUTS=str(outputs))
    env.pop("MLFLOW_TRACKING_URI", None)
    args = [sys.executable, "-m", "monitorbench", "-m", f"hydra/launcher={launcher}",
            f"paths.suites={suites}", *overrides]
    t0 = time.perf_counter()
    out = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        sys.exit(f"{launcher} sweep failed:\n{out.stderr[-3000:]}")
    return wall


def start_cluster(directory: Path) -> dict[str, str]:
    out = subprocess.run(["bash", str(LOCALCLUSTER), "start", str(directory)],
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        sys.exit(f"slurm/localcluster.sh start failed:\n{out.stderr}")
    env = dict(os.environ)
    for line in out.stdout.splitlines():
        key, value = line.removeprefix("export ").split("=", 1)
        env[key] = value.replace("$PATH", env["PATH"])
    return env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generators", default="always_accept,always_reject")
    ap.add_argument("--tasks", type=int, default=10, help="task.max_tasks_per_type")
    args = ap.parse_args()
    overrides = [f"generator={args.generators}", f"task.max_tasks_per_type={args.tasks}",
                 "sandbox.workers=1"]
    n_jobs = len(args.generators.split(","))
    work = Path(tempfile.mkdtemp(prefix="launcher-bench-"))
    try:
        sys.path.insert(0, str(ROOT))
        from monitorbench.audit.prepare import build_suite

        build_suite(work / "suites", "bfcl")
        rows = [("basic (in-process)", run_sweep("basic", work / "basic", work / "suites",
                                                 overrides, dict(os.environ)))]
        rows.append(("submitit local", run_sweep("local", work / "local", work / "suites",
                                                 overrides, dict(os.environ))))
        if shutil.which("slurmctld"):
            env = start_cluster(work / "cluster")
            try:
                rows.append(("slurm (local cluster)", run_sweep(
                    "slurm", work / "slurm", work / "suites", overrides, env)))
            finally:
                subprocess.run(["bash", str(LOCALCLUSTER), "stop", str(work / "cluster")],
                               capture_output=True, timeout=120)
        else:
            print("slurmctld not installed: no Slurm row (apt-get install slurm-wlm munge)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = rows[0][1]
    print(f"sweep: {n_jobs} jobs ({args.generators}), task.max_tasks_per_type={args.tasks}, "
          f"sandbox.workers=1, {os.cpu_count()} CPUs")
    print(f"{'launcher':<24}{'wall s':>9}{'vs basic':>10}")
    for name, wall in rows:
        print(f"{name:<24}{wall:>9.1f}{wall / base:>9.2f}x")


if __name__ == "__main__":
    main()
