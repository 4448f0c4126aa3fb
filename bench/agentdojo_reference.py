"""AgentDojo reference cost per suite, measured in one run: build seconds per task (injection
pair choice included) and milliseconds per reference ``decide`` (replay + AgentDojo's utility and
security checks), side by side, with each suite's ratio to the fastest.

    python bench/agentdojo_reference.py [--tasks N] [--repeats R] [--suites workspace,travel,...]

Builds a slice of N user tasks per suite (all of them with --tasks 0) into a temp dir, then
decides every shipped case R times. Nothing is cached between suites except the package import.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def main() -> None:
    from monitorbench.sources.agentdojo import source as src
    from monitorbench.sources.agentdojo.build import AgentDojoUtilityReference, build_agentdojo_suite
    from monitorbench.suites.format import load_suite

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=3, help="user tasks per suite (0: all)")
    ap.add_argument("--repeats", type=int, default=2, help="decide passes over the cases")
    ap.add_argument("--suites", default=",".join(src.SUITES))
    args = ap.parse_args()
    suites = [s for s in args.suites.split(",") if s]
    for s in suites:  # import every task module before timing anything
        src.get_suite(s)
    ref = AgentDojoUtilityReference()
    rows = []
    with tempfile.TemporaryDirectory(prefix="mb-adref-") as tmp:
        for s in suites:
            root = Path(tmp) / s
            t0 = time.perf_counter()
            build_agentdojo_suite(root, suites=(s,), max_tasks=args.tasks or None)
            built = time.perf_counter() - t0
            suite = load_suite(root)
            times = []
            for _ in range(args.repeats):
                for task_id, cases in suite.cases.items():
                    task, reference = suite.tasks[task_id], suite.references[task_id]
                    for case in cases:
                        t1 = time.perf_counter()
                        ref.decide(task, reference, case.candidate)
                        times.append(1000 * (time.perf_counter() - t1))
            rows.append((s, len(suite.tasks), suite.n_cases(), built, times))
            print(f"[bench] {s}: {len(suite.tasks)} tasks built in {built:.1f} s", flush=True)
    fastest = min(statistics.mean(r[4]) for r in rows)
    fastest_build = min(r[3] / max(r[1], 1) for r in rows)
    print(f"{'suite':<10} {'tasks':>5} {'cases':>6} {'build s':>8} {'s/task':>7} {'x':>5} "
          f"{'decide ms mean':>15} {'median':>7} {'p95':>7} {'x':>5}")
    for s, n_tasks, n_cases, built, times in rows:
        per_task = built / max(n_tasks, 1)
        mean = statistics.mean(times)
        p95 = sorted(times)[int(0.95 * (len(times) - 1))]
        print(f"{s:<10} {n_tasks:>5} {n_cases:>6} {built:>8.1f} {per_task:>7.2f} "
              f"{per_task / fastest_build:>5.1f} {mean:>15.1f} {statistics.median(times):>7.1f} "
              f"{p95:>7.1f} {mean / fastest:>5.1f}")


if __name__ == "__main__":
    main()
