"""``monitorbench list tasks|suites|experiments``: what there is to run, read from disk.

``list tasks --suite NAME`` prints the task ids of a built suite, one per line (the ids ``score
--task`` takes); a suite that is not built yet is built with ``--build``, otherwise the command says
how to build it and fails. Nothing here starts a sandbox or touches MLflow.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from monitorbench.compose import CONF, group_options
from monitorbench.errors import InputError
from monitorbench.score import default_suites_dir

EXAMPLES = """examples:
  monitorbench list tasks --suite bfcl
  monitorbench list tasks --suite agentdojo --build
  monitorbench list suites
  monitorbench list experiments"""


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="monitorbench list", description=__doc__.splitlines()[0]
                                 .strip("`"), epilog=EXAMPLES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["tasks", "suites", "experiments"])
    ap.add_argument("--suite", default="bfcl", help="tasks: which suite (default bfcl)")
    ap.add_argument("--suites-dir", default=default_suites_dir())
    ap.add_argument("--build", action="store_true",
                    help="tasks: build the suite first if it is not built yet")
    return ap


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.what == "tasks":
        list_tasks(Path(args.suites_dir), args.suite, build=args.build)
    elif args.what == "suites":
        list_suites(Path(args.suites_dir))
    else:
        list_experiments()
    return 0


def list_tasks(suites_dir: Path, name: str, *, build: bool) -> None:
    """Task ids of the suite built with default options (the one ``score`` loads)."""
    from monitorbench.suites.format import load_suite
    from monitorbench.audit.prepare import build_suite
    from monitorbench.suites.registry import check_builder_version, source_info, suite_dir

    source_info(name)                      # an unknown suite name fails here, listing the known
    root = suite_dir(suites_dir, name, {})
    if not root.exists():
        if not build:
            raise InputError(root, "--suite", f"suite {name!r} is not built yet",
                             f"build it: `monitorbench build {name}` (or add --build); "
                             "bfcl takes about half a minute")
        build_suite(suites_dir, name, progress=sys.stderr.isatty())
    check_builder_version(root, name)
    suite = load_suite(root)
    for task_id in sorted(suite.tasks):
        print(task_id)
    print(f"{len(suite.tasks)} tasks in {root}", file=sys.stderr)


def list_suites(suites_dir: Path) -> None:
    """Every task source, with the suite directories built from it under ``suites_dir``."""
    from monitorbench.suites.source_registry import source_names

    for name in source_names():
        built = sorted(p.name for p in suites_dir.glob(f"{name}*")
                       if p.is_dir() and (p.name == name or p.name.startswith(f"{name}-")))
        state = f"built: {', '.join(built)}" if built else f"not built (monitorbench build {name})"
        print(f"{name:<10} {state}")


def list_experiments() -> None:
    """``conf/experiment/*.yaml`` with the first line of each one's description."""
    for name in group_options("experiment"):
        lines = (CONF / "experiment" / f"{name}.yaml").read_text(encoding="utf-8").splitlines()
        comment = []
        for line in lines:
            if not line.startswith("#"):
                break
            if "@package" not in line:
                comment.append(line.lstrip("# ").strip())
        print(f"{name:<12} {' '.join(comment).split('. ')[0].rstrip('.')}")
