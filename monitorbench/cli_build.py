"""``monitorbench build [NAME ...|all] [--force]`` (also ``python -m monitorbench.suites.build``):
build frozen suites, each audited before it is put in place.

Builds are seeded and deterministic (same seed → byte-identical manifests); each prints its
build report (counts per type, group and category; cases the reference verifier contradicted).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from monitorbench.audit.exclusions import read_exclusions
from monitorbench.audit.prepare import build_suite
from monitorbench.cli_info import plain
from monitorbench.errors import MonitorbenchError
from monitorbench.suites.format import load_suite
from monitorbench.suites.source_registry import source_names


def summarize_suite(root: Path) -> dict:
    suite = load_suite(root)
    counts: dict[str, dict[str, int]] = {}
    labels = {"PASS": 0, "FAIL": 0}
    for cases in suite.cases.values():
        for c in cases:
            counts.setdefault(c.group, {}).setdefault(c.category, 0)
            counts[c.group][c.category] += 1
            labels[c.label] += 1
    audit = read_exclusions(root) or {"excluded": []}
    return {"suite": suite.name, "tasks": len(suite.tasks), "cases": suite.n_cases(),
            "excluded_by_audit": {e["task_id"]: e["reasons"] for e in audit["excluded"]},
            "labels": labels, "by_group_category": counts,
            "dropped_by_reference": suite.build_report.get("dropped_total",
                                                           suite.build_report.get("dropped"))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=plain(__doc__),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", default=["bfcl"],
                    help=f"suites to build: {', '.join(source_names())} or all (default bfcl)")
    ap.add_argument("--suites-dir", default=os.environ.get(
        "MONITORBENCH_SUITES", str(Path(os.environ.get("MONITORBENCH_OUTPUTS", "outputs"))
                                   / "suites")))
    ap.add_argument("--seed", type=int, default=None, help="builder seed (default: builder's)")
    ap.add_argument("--force", action="store_true", help="rebuild even if the suite exists")
    ap.add_argument("--search", action="store_true",
                    help="code: rerun the bug search for this build and every configuration "
                         "in monitorbench/sources/code/pinned_bugs.json, rewrite that file, "
                         "then rebuild (implies --force)")
    args = ap.parse_args(argv)
    names = source_names() if args.names == ["all"] else args.names
    if args.search and "code" not in names:
        ap.error("--search reruns the code suite's bug search: name code (or all)")
    try:
        if args.search:
            from monitorbench.sources.code.build import configs, refresh_pins
            refresh_pins(configs(seed=args.seed or 0), progress=sys.stderr.isatty())
            args.force = True
        for name in names:
            options = {} if args.seed is None else {"seed": args.seed}
            t0 = time.time()
            root = build_suite(Path(args.suites_dir), name, options, force=args.force,
                               progress=sys.stderr.isatty())
            info = summarize_suite(root)
            info["seconds"] = round(time.time() - t0, 1)
            info["path"] = str(root)
            print(json.dumps(info, indent=1))
    except MonitorbenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
