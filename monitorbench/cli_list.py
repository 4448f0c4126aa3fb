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
    """Task ids of a source's built suites (the default build and its slices, e.g. the 12
    AgentDojo tasks of ``task=mixed_small``), or of one slice named by its directory
    (``agentdojo-<hash>``); the ids ``score --task`` takes, which finds them in the same place.
    Tasks the audit excluded are never judged, so they are counted, not listed."""
    from monitorbench.audit.exclusions import AUDIT_FILE, apply_exclusions
    from monitorbench.audit.prepare import build_suite, load_built
    from monitorbench.suites.locate import built_dirs, split_dir_name
    from monitorbench.suites.registry import source_info

    source, slice_dir = split_dir_name(name)
    source_info(source)                    # an unknown suite name fails here, listing the known
    roots = [suites_dir / slice_dir] if slice_dir else built_dirs(suites_dir, source)
    if slice_dir and not (roots[0] / "manifest.json").is_file():
        raise InputError(roots[0], "--suite", f"no built suite {slice_dir!r}",
                         "`monitorbench list suites` lists the built ones")
    if not roots:
        if not build:
            raise InputError(suites_dir / source, "--suite", f"suite {source!r} is not built yet",
                             f"build it: `monitorbench build {source}` (or add --build); "
                             "bfcl takes about half a minute")
        roots = [build_suite(suites_dir, source, progress=sys.stderr.isatty())]
    for root in roots:
        built = load_built(root, source)
        suite = apply_exclusions(built)
        for task_id in sorted(suite.tasks):
            print(task_id)
        n = len(suite.tasks)
        excluded = len(built.tasks) - n
        print(f"{n} task{'' if n == 1 else 's'} in {root}"
              + (f" ({excluded} more excluded by the audit, never judged: {root / AUDIT_FILE})"
                 if excluded else ""), file=sys.stderr)


def list_suites(suites_dir: Path) -> None:
    """Every task source, with the suite directories built from it under ``suites_dir``."""
    from monitorbench.suites.locate import built_dirs
    from monitorbench.suites.source_registry import source_names

    for name in source_names():
        built = [p.name for p in built_dirs(suites_dir, name)]
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
