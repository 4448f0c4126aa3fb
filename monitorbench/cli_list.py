"""``monitorbench list tasks|suites|experiments``: what there is to run, read from disk.

``list tasks --suite NAME`` prints the tasks of a built suite, one per line: the id ``score --task``
takes, the task type, the category, the number of hidden cases and the first line of the
instruction (``--json``: one object per task); a suite that is not built yet is built with
``--build``, otherwise the command says how to build it and fails. ``show TASK_ID`` prints a
task's public part (what a verifier author sees). Nothing here starts a sandbox or touches MLflow.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from monitorbench.cli_info import plain
from monitorbench.compose import CONF, group_options
from monitorbench.errors import InputError
from monitorbench.score import default_suites_dir
from monitorbench.suites.format import Suite, Task
from monitorbench.suites.source_registry import source_names

EXAMPLES = """examples:
  monitorbench list tasks --suite bfcl
  monitorbench list tasks --suite bfcl --json
  monitorbench list tasks --suite agentdojo --build
  monitorbench list suites
  monitorbench list experiments"""
SHOW_EXAMPLES = """examples:
  monitorbench show bfcl.simple_python_12
  monitorbench show bfcl.simple_python_12 | python -c 'import json,sys; print(json.load(sys.stdin)["instruction"])'"""


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="monitorbench list", description=plain(__doc__.splitlines()[0]),
                                 epilog=EXAMPLES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["tasks", "suites", "experiments"])
    ap.add_argument("--suite", default="bfcl",
                    help=f"tasks: which suite, {', '.join(source_names())} or a built slice "
                         "directory such as agentdojo-<hash> (default bfcl)")
    ap.add_argument("--json", action="store_true", help="tasks: one JSON object per task")
    ap.add_argument("--suites-dir", default=default_suites_dir())
    ap.add_argument("--build", action="store_true",
                    help="tasks: build the suite first if it is not built yet")
    return ap


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.what == "tasks":
        list_tasks(Path(args.suites_dir), args.suite, build=args.build, as_json=args.json)
    elif args.what == "suites":
        list_suites(Path(args.suites_dir))
    else:
        list_experiments()
    return 0


def list_tasks(suites_dir: Path, name: str, *, build: bool, as_json: bool = False) -> None:
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
        rows = [task_row(suite, suite.tasks[t]) for t in sorted(suite.tasks)]
        print_rows(rows, as_json=as_json)
        n = len(suite.tasks)
        excluded = len(built.tasks) - n
        print(f"{n} task{'' if n == 1 else 's'} in {root}"
              + (f" ({excluded} more excluded by the audit, never judged: {root / AUDIT_FILE})"
                 if excluded else ""), file=sys.stderr)


def task_row(suite: Suite, task: Task) -> dict[str, object]:
    """One task's line of ``list tasks``: id, type, category, hidden cases, instruction's first
    line (the category is the source's, e.g. BFCL's ``multiple``; ``-`` where it has none)."""
    instruction = str(task.public.get("instruction") or "").strip()
    return {"task_id": task.task_id, "task_type": task.task_type,
            "category": str(task.public.get("category") or "-"),
            "cases": len(suite.cases.get(task.task_id, [])),
            "instruction": instruction.splitlines()[0] if instruction else ""}


def print_rows(rows: list[dict[str, object]], *, as_json: bool) -> None:
    """Rows as JSON lines, or as aligned columns with the instruction cut to 80 characters."""
    if as_json:
        for row in rows:
            print(json.dumps(row))
        return
    width = max((len(str(r["task_id"])) for r in rows), default=0)
    cat = max((len(str(r["category"])) for r in rows), default=0)
    for r in rows:
        text = str(r["instruction"])
        text = text if len(text) <= 80 else text[:79] + "…"
        print(f"{r['task_id']:<{width}}  {r['task_type']:<9} {r['category']:<{cat}} "
              f"{r['cases']:>4} cases  {text}")


def show_main(argv: list[str]) -> int:
    """``monitorbench show TASK_ID``: the public task (``public/<id>/task.json``) of the built
    suite that holds it, found as ``score --task`` finds it."""
    from monitorbench.score import not_built_error
    from monitorbench.suites.locate import dir_holding, split_dir_name

    ap = argparse.ArgumentParser(prog="monitorbench show", epilog=SHOW_EXAMPLES,
                                 description="Print a task's public part: what a verifier's "
                                             "author (and a generator) sees.",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("task_id")
    ap.add_argument("--suites-dir", default=default_suites_dir())
    args = ap.parse_args(argv)
    name, _ = split_dir_name(args.task_id.split(".", 1)[0])
    held = dir_holding(Path(args.suites_dir), name, args.task_id)
    if held is None:
        raise not_built_error(Path(args.suites_dir), name, args.task_id)
    public = held / "public" / args.task_id
    print(json.dumps(json.loads((public / "task.json").read_text(encoding="utf-8")), indent=1))
    files = sorted(p.relative_to(public) for p in public.rglob("*") if p.is_file())
    print(f"{args.task_id} in {held}; public files: {', '.join(map(str, files))}",
          file=sys.stderr)
    return 0


def list_suites(suites_dir: Path) -> None:
    """Every task source, with the suite directories built from it under ``suites_dir``."""
    from monitorbench.suites.locate import built_dirs

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
