"""What the sandbox's isolation costs per case: this checkout beside an older commit, in one run.

Usage: python bench/isolation_cost.py [--old 3380395] [--repeat 5] [--tasks 20]
                                      [--backend bwrap] [--suite outputs/suites/bfcl]

The older commit is checked out into a temporary git worktree, and ``bench/judge_throughput.py``
of each checkout (its own worker, argv and client) runs ``--repeat`` times, alternating, on the
same tasks (the BFCL suite at ``--suite`` when built, else the script's synthetic ones). Printed:
each side's median sandboxed rate, CPU per case, session start and case p50, and the ratios
(new over old). The default ``--old`` is the last commit before the per-case isolation of issue 43
(run as host root, shared pid counter and IPC, no seccomp), so the ratio is that isolation's price.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^sandboxed \(\w+ worker\)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", re.M)
FIELDS = ("cases/s", "CPU ms/case", "start ms", "case ms p50")


def one_run(checkout: Path, args: argparse.Namespace) -> tuple[float, ...]:
    """One judge_throughput run of ``checkout``'s own code; its sandboxed row."""
    cmd = [sys.executable, "bench/judge_throughput.py", "--repeat", "1", "--tasks",
           str(args.tasks), "--backend", args.backend, "--suite", str(args.suite.resolve())]
    out = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True, timeout=900)
    match = ROW.search(out.stdout)
    if match is None:
        raise SystemExit(f"no sandboxed row from {checkout}:\n{out.stdout}\n{out.stderr}")
    return tuple(float(x) for x in match.groups())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="3380395")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--backend", default="bwrap")
    ap.add_argument("--suite", type=Path, default=ROOT / "outputs/suites/bfcl")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mb-old-") as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(old), args.old],
                       cwd=ROOT, check=True)
        try:
            runs: dict[str, list[tuple[float, ...]]] = {"old": [], "new": []}
            for _ in range(args.repeat):
                runs["old"].append(one_run(old, args))
                runs["new"].append(one_run(ROOT, args))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT)
    med = {side: [statistics.median(r[i] for r in rows) for i in range(len(FIELDS))]
           for side, rows in runs.items()}
    print(f"backend {args.backend}; {args.repeat} alternating runs per side; medians")
    print(f"{'':12}" + "".join(f"{f:>14}" for f in FIELDS))
    for side, label in (("old", f"old {args.old[:9]}"), ("new", "this checkout")):
        print(f"{label:12}" + "".join(f"{v:>14.2f}" for v in med[side]))
    ratios = [n / o if o else float("nan") for n, o in zip(med["new"], med["old"])]
    print(f"{'new / old':12}" + "".join(f"{r:>13.2f}x" for r in ratios))


if __name__ == "__main__":
    main()
