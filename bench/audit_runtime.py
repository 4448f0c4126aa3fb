"""Audit runtime per source, measured in one run: seconds per task, per case, and the share the
mutation check (C6) takes next to the reference reruns (C1/C2).

    python bench/audit_runtime.py [--suites-dir DIR] [--agentdojo-tasks N]

Builds (or reuses) the default BFCL suite and a small AgentDojo slice, audits each, and prints one
table: tasks, cases, mutation configurations, exclusions, seconds, seconds per task.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def main() -> None:
    from monitorbench.audit.audit import audit_suite
    from monitorbench.suites.registry import build_suite

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suites-dir", type=Path, default=Path(tempfile.mkdtemp(prefix="mb-audit-")))
    ap.add_argument("--agentdojo-tasks", type=int, default=2, help="user tasks per AgentDojo suite")
    args = ap.parse_args()
    targets = [("bfcl", {})]
    try:
        import agentdojo  # noqa: F401
        targets.append(("agentdojo", {"max_tasks": args.agentdojo_tasks}))
    except ImportError:
        print("agentdojo not installed: skipped")
    rows = []
    for name, options in targets:
        t0 = time.perf_counter()
        root = build_suite(args.suites_dir, name, options)
        built = time.perf_counter() - t0
        audit = audit_suite(root)
        m = audit.metrics()
        rows.append((name, m, built))
    print(f"{'suite':<10} {'tasks':>5} {'cases':>6} {'mut.cfg':>7} {'excl':>5} {'build s':>8} "
          f"{'audit s':>8} {'s/task':>7} {'ms/case':>8}")
    for name, m, built in rows:
        print(f"{name:<10} {m['tasks']:>5.0f} {m['cases']:>6.0f} {m['mutation_configurations']:>7.0f} "
              f"{m['tasks_excluded']:>5.0f} {built:>8.1f} {m['seconds']:>8.1f} "
              f"{m['seconds'] / max(m['tasks'], 1):>7.2f} "
              f"{1000 * m['seconds'] / max(m['cases'], 1):>8.1f}")
    if len(rows) > 1:
        per_task = {n: m["seconds"] / max(m["tasks"], 1) for n, m, _ in rows}
        print("ratio s/task agentdojo : bfcl = "
              f"{per_task['agentdojo'] / per_task['bfcl']:.1f} : 1")


if __name__ == "__main__":
    main()
