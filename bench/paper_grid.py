"""What a Slurm sweep of the paper's grid would take, from one finished job measured here.

    python bench/paper_grid.py RUN_DIR [--configs 36] [--parallel 16] [--cpus 2]
                               [--gen-seconds-per-task S] [--timeout-min 60]

The paper scores 36 configurations (19 models in one harness, 17 more model-harness pairs), each
on every task, generation capped at 5,400 s a task. Under ``hydra/launcher=slurm`` each
configuration is one array task (``conf/hydra/launcher/slurm.yaml``: ``array_parallelism`` jobs
at once, ``cpus_per_task`` = ``sandbox.workers``, ``timeout_min`` per job, a job past its limit
requeued and resumed from its judgment store). A configuration costs its generation (the model's
time, not this machine's) and its judging (this machine's: the sandbox's CPU). This script reads
both from ``RUN_DIR`` (a finished job's ``metrics.json`` and ``judgments.jsonl``, e.g. the
``task=all`` job ``bench/task_all.py --keep DIR`` leaves under ``DIR/outputs/runs/``), scales the
judging to ``--cpus`` cores per job from the ``--measured-cpus`` it ran on, and prints the grid.

Generation is the one figure a run on this machine cannot give for a real model: the measured
generator here is a scripted baseline. ``--gen-seconds-per-task`` sets a model's mean seconds per
task (the paper's cap, 5,400, is the worst case); tasks are generated
``--gen-concurrency`` at a time (``generator.request.concurrency``, default 4).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path


def measured(run_dir: Path) -> dict[str, float]:
    """The job's tasks, judgments, generation and judging seconds, from its own files."""
    metrics = json.loads((run_dir / "metrics.json").read_text())
    tasks = set()
    with (run_dir / "judgments.jsonl").open() as f:
        for line in f:
            if line.strip():
                tasks.add(json.loads(line)["task_id"])
    return {"tasks": len(tasks), "judgments": metrics.get("cache/judgments_new", 0.0),
            "generation_s": metrics.get("timing/seconds_generation", 0.0),
            "judging_s": metrics.get("timing/seconds_judging", 0.0)}


def grid(m: dict[str, float], args: argparse.Namespace) -> dict[str, float]:
    """Per configuration and for the whole grid: seconds, waves of array tasks, node-hours."""
    judging = m["judging_s"] * args.measured_cpus / args.cpus
    generation = (m["generation_s"] if args.gen_seconds_per_task is None else
                  math.ceil(m["tasks"] / args.gen_concurrency) * args.gen_seconds_per_task)
    per_config = generation + judging
    waves = math.ceil(args.configs / args.parallel)
    return {"judging_s": judging, "generation_s": generation, "per_config_s": per_config,
            "waves": waves, "wall_h": waves * per_config / 3600,
            "cpu_core_h": args.configs * judging * args.cpus / 3600,
            "requeues_per_job": max(0, math.ceil(per_config / (args.timeout_min * 60)) - 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--configs", type=int, default=36)
    ap.add_argument("--parallel", type=int, default=16, help="hydra.launcher.array_parallelism")
    ap.add_argument("--cpus", type=int, default=2, help="cores per job (sandbox.workers)")
    ap.add_argument("--measured-cpus", type=int, default=2, help="cores the run was judged on")
    ap.add_argument("--gen-seconds-per-task", type=float,
                    help="a model's mean generation seconds per task (default: the run's own)")
    ap.add_argument("--gen-concurrency", type=int, default=4)
    ap.add_argument("--timeout-min", type=int, default=60, help="hydra.launcher.timeout_min")
    ap.add_argument("--max-requeues", type=int, default=3, help="hydra.launcher.max_num_timeout")
    args = ap.parse_args()
    m = measured(args.run_dir)
    g = grid(m, args)
    print(f"measured job: {m['tasks']} tasks, {int(m['judgments'])} judgments, generation "
          f"{m['generation_s']:.1f} s, judging {m['judging_s']:.1f} s on {args.measured_cpus} "
          f"cores ({1000 * m['judging_s'] / max(m['judgments'], 1):.1f} ms a judgment)")
    print(f"one configuration on {args.cpus} cores: generation {g['generation_s']:.0f} s + "
          f"judging {g['judging_s']:.0f} s = {g['per_config_s'] / 60:.1f} min "
          f"({g['requeues_per_job']} requeue(s) at timeout_min={args.timeout_min})")
    if g["requeues_per_job"] > args.max_requeues:
        print(f"  a job outlives its {args.max_requeues} requeues: set hydra.launcher.timeout_min"
              f" to at least {math.ceil(g['per_config_s'] / 60 / (args.max_requeues + 1))}")
    print(f"{args.configs} configurations, {args.parallel} at a time: {g['waves']} wave(s), "
          f"{g['wall_h']:.1f} h wall, {g['cpu_core_h']:.1f} core-hours of judging")


if __name__ == "__main__":
    main()
