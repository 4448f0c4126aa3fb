"""Judging wall time per task type for one configuration over a whole task setting.

    python bench/full_benchmark.py [--task all] [--generator schema_check] [--rounds 3]
                                   [--max-tasks-per-type N] [--suites outputs/suites]

Runs one in-process job per task type of the task setting (``task.task_types=[<type>]``), each
with fresh outputs (no judgment store or generation cache to reuse) and the already built suites,
so the numbers are what judging that type costs for this one configuration: generator,
``task.rounds.state`` and ``task.rounds.code`` set to ``--rounds`` (tool-call tasks are judged
once, as in every run), default access and limits. Prints per type the judging seconds
(``seconds_judging`` of the job), the judgments made, milliseconds per judgment and the whole
job's wall time, then the totals.

The suites must already be built: a missing suite would otherwise be built inside the timed job
(the whole code suite runs every library's test suite per candidate bug, hours on 2 cores), so the
script stops first and prints the build command. ``--max-tasks-per-type`` keeps a run short
(``task.max_tasks_per_type``, a seeded sample).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout, uninstalled

from hydra.core.override_parser.overrides_parser import OverridesParser  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

from monitorbench.suites.registry import suite_dir  # noqa: E402
from cli_job import run_cli_job  # noqa: E402  (bench/cli_job.py)


def task_setting(name: str) -> tuple[list[str], list[tuple[str, dict]]]:
    """The task types and (suite, options) pairs of ``conf/task/<name>.yaml``."""
    path = ROOT / "conf" / "task" / f"{name}.yaml"
    if not path.is_file():
        sys.exit(f"no task setting {name!r}: choose one of "
                 f"{sorted(p.stem for p in path.parent.glob('*.yaml'))}")
    cfg = OmegaConf.to_container(OmegaConf.load(path), resolve=True)
    suites = [(s["name"], dict(s.get("options") or {})) for s in cfg.get("suites", [])]
    return list(cfg.get("task_types", ["tool_call", "state", "code"])), suites


def missing_suites(suites_root: Path, suites: list[tuple[str, dict]]) -> list[str]:
    """Suites of the setting that are not built yet, as build commands."""
    out = []
    for name, options in suites:
        if not (suite_dir(suites_root, name, options) / "manifest.json").is_file():
            out.append(f"{name} with options {options or '{}'} (python -m "
                       f"monitorbench.suites.build {name}{' ...' if options else ''})")
    return out


def run_job(args: argparse.Namespace, task_type: str) -> dict[str, float]:
    """One CLI job judging only ``task_type``; returns its metrics plus wall time."""
    overrides = [f"task={args.task}", f"generator={args.generator}",
                 f"task.task_types=[{task_type}]", f"task.rounds.state={args.rounds}",
                 f"task.rounds.code={args.rounds}"]
    if args.max_tasks_per_type is not None:
        overrides.append(f"task.max_tasks_per_type={args.max_tasks_per_type}")
    return run_cli_job(overrides + list(args.overrides), args.suites, task_type)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="all", help="task setting (conf/task/<name>.yaml)")
    ap.add_argument("--generator", default="schema_check")
    ap.add_argument("--rounds", type=int, default=3, help="task.rounds.state and task.rounds.code")
    ap.add_argument("--max-tasks-per-type", type=int, default=None)
    ap.add_argument("--suites", type=Path, default=ROOT / "outputs" / "suites")
    ap.add_argument("overrides", nargs="*", help="further Hydra overrides for every job, e.g. "
                    "'task.suites=[{name:bfcl,options:{}}]' to judge a subset of the setting")
    args = ap.parse_args()
    args.suites = args.suites.resolve()
    types, suites = task_setting(args.task)
    for o in OverridesParser.create().parse_overrides(args.overrides):
        if o.key_or_group == "task.suites":  # replaces the setting's suites
            suites = [(x["name"], dict(x.get("options") or {})) for x in o.value()]
        elif o.key_or_group == "task.task_types":
            types = list(o.value())
    missing = missing_suites(args.suites, suites)
    if missing:
        sys.exit("not built under " + str(args.suites) + ", build first:\n  "
                 + "\n  ".join(missing))
    print(f"task={args.task} generator={args.generator} rounds(state,code)={args.rounds} "
          f"max_tasks_per_type={args.max_tasks_per_type}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'task type':<12}{'judging s':>10}{'judgments':>10}{'ms/judgment':>12}"
          f"{'job wall s':>11}")
    total_s = total_n = total_wall = 0.0
    for task_type in types:
        m = run_job(args, task_type)
        n = int(m["cache/judgments_new"])
        per = 1000 * m["timing/seconds_judging"] / n if n else float("nan")
        print(f"{task_type:<12}{m['timing/seconds_judging']:>10.1f}{n:>10}{per:>12.1f}"
              f"{m['wall']:>11.1f}", flush=True)
        total_s, total_n, total_wall = total_s + m["timing/seconds_judging"], total_n + n, \
            total_wall + m["wall"]
    print(f"{'total':<12}{total_s:>10.1f}{int(total_n):>10}"
          f"{1000 * total_s / max(total_n, 1):>12.1f}{total_wall:>11.1f}")


if __name__ == "__main__":
    main()
