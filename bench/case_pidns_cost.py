"""What the cases' own PID namespace costs per case, measured side by side in one run.

Usage: python bench/case_pidns_cost.py [--suite outputs/suites/bfcl] [--tasks 10]
                                       [--parallel 2] [--rounds 2]

The cases of a bwrap session run in a PID namespace of their own under a small init, so a
verifier cannot kill its worker (monitorbench/sandbox/worker.py). The worker pays one
``unshare`` and one fork at start; each case is forked into that namespace instead of the
worker's. This script runs the same tasks, cases and verifier as bench/judge_throughput.py
through the same bwrap argv twice, once with ``case_pid_namespace`` off and once on,
alternating ``--rounds`` times so a change of machine load hits both alike, and prints CPU and
wall time per case for each. Sessions here skip the pids cgroup (both arms alike).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled
sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_throughput import Measured, load, measure, report, workspace  # noqa: E402
from monitorbench.sandbox.base import Limits, SandboxSpec  # noqa: E402
from monitorbench.sandbox.bwrap import bwrap_argv  # noqa: E402
from monitorbench.sandbox.client import WorkerSession, minimal_env  # noqa: E402
from monitorbench.sandbox.runtimes import RUNTIMES_DIR  # noqa: E402


def opener(vdir: Path, publics: dict[str, Path], spec: SandboxSpec, case_ns: bool):
    """Sessions on the real bwrap argv, with the per-case PID namespace on or off."""
    def open_session(tid: str) -> WorkerSession:
        argv = bwrap_argv(vdir.resolve(), publics[tid].resolve(), spec, RUNTIMES_DIR,
                          case_pid_namespace=case_ns)
        return WorkerSession(argv, minimal_env(), spec)
    return open_session


def merge(runs: list[Measured]) -> Measured:
    """One arm's rounds as if measured in one go (CPU per case averaged over the rounds)."""
    return Measured(sum(m.seconds for m in runs), [d for m in runs for d in m.decisions],
                    [s for m in runs for s in m.starts], [c for m in runs for c in m.per_case],
                    sum(m.cpu_per_case for m in runs) / len(runs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", type=Path, default=Path("outputs/suites/bfcl"))
    ap.add_argument("--tasks", type=int, default=10)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()

    source, tasks, cases = load(args.suite, args.tasks)
    n_cases = sum(len(cases[t]) for t, _ in tasks)
    _, vdir, publics = workspace(tasks)
    spec = SandboxSpec(limits=Limits(wall_seconds=10, memory_mb=512))
    load_before = os.getloadavg()[0]
    arms: dict[bool, list[Measured]] = {False: [], True: []}
    for _ in range(args.rounds):
        for case_ns in (False, True):
            arms[case_ns].append(measure(opener(vdir, publics, spec, case_ns), tasks, cases,
                                         args.parallel))
    off, on = merge(arms[False]), merge(arms[True])
    print(f"source: {source}; {len(tasks)} tasks, {n_cases} cases x {args.rounds} rounds per "
          f"arm; {args.parallel} parallel sessions; load average at start {load_before:.1f} on "
          f"{os.cpu_count()} cores")
    print(f"{'path':<30}{'cases/s':>10}{'CPU ms/case':>12}{'start ms':>11}{'case ms p50':>13}"
          f"{'p95':>8}")
    report("bwrap, no cases' PID namespace", off, n_cases * args.rounds)
    report("bwrap, cases' PID namespace", on, n_cases * args.rounds)
    print(f"per-case CPU: +{(on.cpu_per_case - off.cpu_per_case) * 1e3:.2f} ms "
          f"({on.cpu_per_case / off.cpu_per_case:.2f}x); decisions agree on "
          f"{sum(a == b for a, b in zip(off.decisions, on.decisions))}/{len(off.decisions)}")
    if off.decisions != on.decisions:
        sys.exit(1)


if __name__ == "__main__":
    main()
