"""Verifier generation speed with the embedded SmolLM2, per scaffold, and the cache on a re-run.

Usage: python bench/generation_speed.py [--suite outputs/suites/bfcl] [--tasks 2]
                                        [--max-tokens 128] [--agent-steps 3]

Prints, from one run: SmolLM2 load time and decode tokens/s; seconds per generated verifier for
the oneshot, agent and challenge scaffolds on the same public tasks (agent and challenge capped at
``--agent-steps`` turns so the run stays in minutes on 2 cores); then the same generations again
against the now-warm response cache, with its hit rate and the speed-up ratio. Tasks come from
the public tree of a built suite at ``--suite`` when there is one, else a small tool-call task is
written and the output says so. The drafts' self-tests run in the real bwrap sandbox.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from monitorbench.config import (ConditionConfig, ScaffoldConfig,  # noqa: E402
                                 TransformersGeneratorConfig)
from monitorbench.generation.model_generator import build_model_generator  # noqa: E402
from monitorbench.sandbox.base import Limits, SandboxSpec  # noqa: E402
from monitorbench.sandbox.factory import make_sandbox  # noqa: E402
from monitorbench.suites.format import Task  # noqa: E402

SYNTHETIC = {"task_id": "synthetic.weather", "task_type": "tool_call", "source": "bench",
             "instruction": "What is the weather in Paris in celsius?",
             "tools": [{"name": "get_weather", "description": "Current weather for a city",
                        "parameters": {"type": "object", "required": ["city"], "properties": {
                            "city": {"type": "string"},
                            "unit": {"type": "string", "enum": ["C", "F"], "default": "C"}}}}]}


def public_tasks(suite: Path, n: int, scratch: Path) -> tuple[list[tuple[Task, Path]], str]:
    pub = suite / "public"
    if pub.is_dir():
        dirs = sorted(p for p in pub.iterdir() if (p / "task.json").is_file())[:n]
        tasks = []
        for d in dirs:
            obj = json.loads((d / "task.json").read_text())
            public = {k: v for k, v in obj.items() if k not in ("task_id", "task_type", "source")}
            tasks.append((Task(obj["task_id"], obj["task_type"], obj["source"], public), d))
        if tasks:
            return tasks, f"suite {suite}"
    d = scratch / "public" / SYNTHETIC["task_id"]
    d.mkdir(parents=True)
    (d / "task.json").write_text(json.dumps(SYNTHETIC, indent=1))
    public = {k: v for k, v in SYNTHETIC.items() if k not in ("task_id", "task_type", "source")}
    return [(Task(SYNTHETIC["task_id"], "tool_call", "bench", public), d)], \
        "synthetic task (no built suite found)"


def _measure(gens: dict, tasks: list, scratch: Path) -> dict:
    """Each scaffold on every task, cold (empty response cache) then warm (immediate re-run):
    (mean s/verifier, tokens, decode s, statuses, cache hits, model calls) per (round, scaffold)."""
    rows: dict = {}
    for rnd in ("cold", "warm"):
        for name, gen in gens.items():
            secs, toks, decode_s, statuses, hits, calls = [], 0.0, 0.0, [], 0.0, 0.0
            for task, public in tasks:
                start = time.monotonic()
                res = gen.generate(task, public, scratch / rnd / name / task.task_id)
                secs.append(time.monotonic() - start)
                print(f"  {rnd:4} {name:9} {task.task_id}: {secs[-1]:.1f} s, {res.status}, "
                      f"{res.stats['completion_tokens']:.0f} tokens", flush=True)
                statuses.append(res.status)
                toks += res.stats["completion_tokens"]
                hits += res.stats["cache_hits"]
                calls += res.stats["model_calls"]
                for line in res.trace_path.read_text().splitlines():
                    e = json.loads(line)
                    if e["event"] == "model" and not e["cached"]:
                        decode_s += e["seconds"]
            rows[(rnd, name)] = (sum(secs) / len(secs), toks, decode_s, statuses, hits, calls)
    return rows


def _report(gens: dict, rows: dict) -> None:
    """The table per scaffold, then decode speed and the re-run's cache hit rate overall."""
    print(f"\n{'scaffold':10} {'cold s/verifier':>16} {'warm s/verifier':>16} {'speed-up':>9} "
          f"{'tokens/s (cold)':>16} {'warm hit rate':>14}  statuses (cold)")
    all_toks = all_s = all_hits = all_calls = 0.0
    for name in gens:
        c, w = rows[("cold", name)], rows[("warm", name)]
        tps = c[1] / c[2] if c[2] else 0.0
        all_toks, all_s = all_toks + c[1], all_s + c[2]
        all_hits, all_calls = all_hits + w[4], all_calls + w[5]
        print(f"{name:10} {c[0]:16.2f} {w[0]:16.3f} {c[0] / w[0]:8.0f}x {tps:16.1f} "
              f"{w[4] / w[5] if w[5] else 0:14.0%}  {', '.join(c[3])}")
    print(f"\nSmolLM2 decode: {all_toks:.0f} tokens in {all_s:.1f} s = {all_toks / all_s:.1f} "
          f"tokens/s (prompt processing included)")
    print(f"immediate re-run: cache hit rate {all_hits / all_calls:.0%} "
          f"({all_hits:.0f}/{all_calls:.0f} model calls)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", type=Path, default=Path("outputs/suites/bfcl"))
    ap.add_argument("--tasks", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--agent-steps", type=int, default=3)
    args = ap.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="mb-genbench-"))
    tasks, origin = public_tasks(args.suite, args.tasks, scratch)
    print(f"tasks: {len(tasks)} from {origin}; max_tokens {args.max_tokens}, "
          f"agent/challenge max_steps {args.agent_steps}")
    gen_cfg = TransformersGeneratorConfig(
        name="smollm2", model="smollm2", gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf",
        condition=ConditionConfig(max_tokens=args.max_tokens, wall_seconds=600))
    sandbox = make_sandbox("bwrap")
    spec = SandboxSpec(limits=Limits(wall_seconds=5, cpu_seconds=5, memory_mb=512))
    scaffolds = {"oneshot": ScaffoldConfig(name="oneshot", max_steps=1),
                 "agent": ScaffoldConfig(name="agent", max_steps=args.agent_steps),
                 "challenge": ScaffoldConfig(name="challenge", max_steps=args.agent_steps)}
    gens = {name: build_model_generator(gen_cfg, sc, sandbox=sandbox, spec_for=lambda t: spec,
                                        cache_dir=scratch / "cache")
            for name, sc in scaffolds.items()}
    model = gens["oneshot"].model.inner  # share one loaded model across scaffolds
    for g in gens.values():
        g.model.inner = model
    t0 = time.monotonic()
    model.load()
    print(f"SmolLM2 load: {time.monotonic() - t0:.1f} s", flush=True)

    _report(gens, _measure(gens, tasks, scratch))


if __name__ == "__main__":
    main()
