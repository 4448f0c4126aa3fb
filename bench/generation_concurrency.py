"""Remote-model generation: tasks one after another vs in parallel up to the request concurrency.

Usage: python bench/generation_concurrency.py [--tasks 12] [--latency 0.5] [--concurrency 4]

A chat-completions server on 127.0.0.1 answers every request after ``--latency`` seconds; it
stands in for a paid API (unreachable here), whose cost per request is likewise waiting, not
local CPU. The same oneshot generations run through the real generation cache twice, with
``generation_workers`` = 1 and = ``--concurrency``, each into a fresh cache, and the script prints
both wall times and their ratio from this one run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from monitorbench.config import (ConditionConfig, OpenAIGeneratorConfig,  # noqa: E402
                                 RequestConfig, ScaffoldConfig)
from monitorbench.generation.factory import (GenerationCache, generate_all,  # noqa: E402
                                             generation_workers, make_generator)
from monitorbench.sandbox.base import Limits, SandboxSpec  # noqa: E402
from monitorbench.sandbox.factory import make_sandbox  # noqa: E402
from monitorbench.suites.format import Task  # noqa: E402

REPLY = "```python\ndef verify(candidate, env):\n    return 'PASS' if candidate else 'FAIL'\n```"


def serve(latency: float) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return None

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            time.sleep(latency)
            payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": REPLY}}],
                                  "usage": {"prompt_tokens": 100, "completion_tokens": 20},
                                  "model": body["model"]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=12)
    ap.add_argument("--latency", type=float, default=0.5)
    ap.add_argument("--concurrency", type=int, default=4)
    args = ap.parse_args()

    httpd = serve(args.latency)
    scratch = Path(tempfile.mkdtemp(prefix="mb-genconc-"))
    tasks = []
    for i in range(args.tasks):
        d = scratch / "public" / f"bench.t{i}"
        d.mkdir(parents=True)
        public = {"instruction": f"call f with x={i}", "tools": [{"name": "f"}]}
        (d / "task.json").write_text(json.dumps({"task_id": f"bench.t{i}",
                                                 "task_type": "tool_call", **public}))
        tasks.append((Task(f"bench.t{i}", "tool_call", "bench", public), d))
    sandbox = make_sandbox("bwrap")
    spec = SandboxSpec(limits=Limits(wall_seconds=5, cpu_seconds=5, memory_mb=512))
    seconds = {}
    for concurrency in (1, args.concurrency):
        gen_cfg = OpenAIGeneratorConfig(
            name="openai",
            model=f"bench-{concurrency}", base_url=f"http://127.0.0.1:{httpd.server_port}/v1",
            api_key_env=None, condition=ConditionConfig(max_tokens=256),
            request=RequestConfig(concurrency=concurrency))
        gen = make_generator(gen_cfg, ScaffoldConfig(name="oneshot"), sandbox=sandbox,
                             spec_for=lambda t: spec, cache_dir=scratch / f"responses{concurrency}")
        cache = GenerationCache(scratch / f"generations{concurrency}")
        start = time.monotonic()
        results = generate_all(gen, cache, tasks, workers=generation_workers(gen_cfg))
        seconds[concurrency] = time.monotonic() - start
        ok = sum(r.status == "submitted" for r in results.values())
        print(f"workers {generation_workers(gen_cfg)}: {len(tasks)} tasks, {ok} submitted, "
              f"{seconds[concurrency]:.2f} s")
    httpd.shutdown()
    print(f"speed-up of concurrency {args.concurrency} over sequential: "
          f"{seconds[1] / seconds[args.concurrency]:.2f}x (latency {args.latency} s per request)")


if __name__ == "__main__":
    main()
