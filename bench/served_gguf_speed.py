"""Prompt reading on llama.cpp's server: the embedded SmolLM2 from its Q4_1 file as shipped and
from the Q8_0 copy monitorbench serves (providers/gguf_requant.py), side by side.

Usage: python bench/served_gguf_speed.py [--words 3000] [--repeats 3]

A harness call is nearly all prompt reading (each harness's own system prompt is 4-6k tokens),
so this is what decides a harness test's or a local run's time. Both servers are up at once,
one thread each, and take turns: each request sends the same long prompt with prompt caching off
and asks for one token. What is compared is the server process's CPU seconds per prompt token
(from /proc); the median of ``--repeats`` and the ratio Q4_1/Q8_0 are printed last.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_throughput import tree_cpu  # noqa: E402  (bench/judge_throughput.py)
from monitorbench.providers.local_server import LocalServer, smollm2_gguf  # noqa: E402


def read_prompt(server: LocalServer, text: str) -> tuple[int, float]:
    """(prompt tokens, server CPU seconds) of one 1-token reply to ``text``, no prompt cache."""
    body = {"model": server.model_name, "messages": [{"role": "user", "content": text}],
            "max_tokens": 1, "temperature": 0, "cache_prompt": False}
    req = urllib.request.Request(server.base_url + "/chat/completions", method="POST",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    assert server.pid is not None
    before = tree_cpu(server.pid)
    with urllib.request.urlopen(req, timeout=1200) as r:
        out = json.loads(r.read())
    return int(out["usage"]["prompt_tokens"]), tree_cpu(server.pid) - before


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    words = ("the verifier reads each tool call and checks its arguments against the task "
             "before it answers PASS or FAIL ").split()
    text = " ".join(words[i % len(words)] for i in range(a.words))
    with tempfile.TemporaryDirectory() as tmp:
        as_shipped = Path(tmp) / smollm2_gguf().name  # another path: served exactly as it is
        shutil.copy(smollm2_gguf(), as_shipped)
        with LocalServer(as_shipped, n_ctx=16384, threads=1) as q4_1, \
                LocalServer(n_ctx=16384, threads=1) as q8_0:
            read_prompt(q4_1, "warm up"), read_prompt(q8_0, "warm up")
            per_token: dict[str, list[float]] = {"Q4_1 as shipped": [], "Q8_0 copy": []}
            for _ in range(a.repeats):
                for name, server in (("Q4_1 as shipped", q4_1), ("Q8_0 copy", q8_0)):
                    tokens, cpu = read_prompt(server, text)
                    per_token[name].append(cpu / tokens)
    med = {k: statistics.median(v) for k, v in per_token.items()}
    for k, v in per_token.items():
        print(f"{k:>16}: {tokens} prompt tokens; server CPU ms/token "
              + ", ".join(f"{1000 * x:.1f}" for x in v) + f" (median {1000 * med[k]:.1f}; "
              f"{1 / med[k]:.0f} tokens per CPU-s)")
    print(f"ratio Q4_1/Q8_0 (median CPU per prompt token): "
          f"{med['Q4_1 as shipped'] / med['Q8_0 copy']:.2f}x")


if __name__ == "__main__":
    main()
