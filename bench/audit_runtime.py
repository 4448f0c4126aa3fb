"""Audit runtime per source, measured in one run: seconds per task and per case, with a
reference's decisions run one at a time and concurrently (``parallel_decisions``) side by side.

    python bench/audit_runtime.py [--suites-dir DIR] [--agentdojo-tasks N] [--code]

Builds (or reuses) the default BFCL suite, a small AgentDojo slice and, with ``--code``, the
code slice of ``task=mixed_small`` (toolz and inflection, 2 tasks each), audits each both ways,
and prints one table: tasks, cases, mutation configurations, exclusions, build seconds, audit
seconds with 1 and N decision threads, their ratio, and whether both audits decided the same.
Only references that declare ``parallel_decisions`` (the code grader) use more than one thread.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
import time
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def _one_decision_at_a_time() -> Iterator[None]:
    """The audit as it ran before concurrent decisions: one thread per task."""
    from monitorbench.audit import checks
    saved = checks.decision_workers
    checks.decision_workers = lambda verifier: 1
    try:
        yield
    finally:
        checks.decision_workers = saved


def main() -> None:
    from monitorbench.audit.audit import audit_suite
    from monitorbench.audit.prepare import build_suite

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suites-dir", type=Path, default=Path(tempfile.mkdtemp(prefix="mb-audit-")))
    ap.add_argument("--agentdojo-tasks", type=int, default=2, help="user tasks per AgentDojo suite")
    ap.add_argument("--code", action="store_true", help="also the mixed_small code slice")
    args = ap.parse_args()
    targets = [("bfcl", {})]
    if args.code:
        targets.append(("code", {"libraries": ["toolz", "inflection"], "tasks_per_library": 2}))
    try:
        import agentdojo  # noqa: F401
        targets.append(("agentdojo", {"max_tasks": args.agentdojo_tasks}))
    except ImportError:
        print("agentdojo not installed: skipped")
    workers = len(os.sched_getaffinity(0))
    rows = []
    for name, options in targets:
        t0 = time.perf_counter()
        root = build_suite(args.suites_dir, name, options)
        built = time.perf_counter() - t0
        with _one_decision_at_a_time():
            one = audit_suite(root)
        many = audit_suite(root)
        same = [t.to_json()["checks"] for t in one.tasks] == [t.to_json()["checks"]
                                                             for t in many.tasks]
        rows.append((name, one.metrics(), many.metrics()["seconds"], built, same))
    print(f"{'suite':<10} {'tasks':>5} {'cases':>6} {'mut.cfg':>7} {'excl':>5} {'build s':>8} "
          f"{'audit 1t':>9} {f'audit {workers}t':>9} {'ratio':>6} {'ms/case':>8} same")
    for name, m, par, built, same in rows:
        print(f"{name:<10} {m['tasks']:>5.0f} {m['cases']:>6.0f} {m['mutation_configurations']:>7.0f} "
              f"{m['tasks_excluded']:>5.0f} {built:>8.1f} {m['seconds']:>9.1f} {par:>9.1f} "
              f"{m['seconds'] / max(par, 1e-9):>6.2f} "
              f"{1000 * m['seconds'] / max(m['cases'], 1):>8.1f} {same}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")

if __name__ == "__main__":
    main()
