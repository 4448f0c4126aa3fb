"""Durable response cache, keyed by everything that decides a reply.

The key is the sha256 of (model identity, the full message list, the sampling parameters,
max_tokens, effort). The model identity is part of it so a second model never receives the first
model's answers (the lm-eval-harness bug); the seed is part of it for sampled requests so each
seed gets its own reply. The store is one append-only JSONL file; each line is written with a
single ``write`` under a file lock and fsynced, so concurrent runs (threads, processes, Slurm
jobs on a shared disk) can share it and a killed run leaves at most a torn last line, which the
loader skips. The same file doubles as a recording for the ``recorded`` provider.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Mapping, Sequence

from filelock import FileLock

from monitorbench.config import Effort
from monitorbench.providers.base import ChatModel, Message, Reply, Sampling
from monitorbench.hashing import canonical_json, sha256_text

CACHE_FILE = "responses.jsonl"


def response_key(identity: Mapping[str, Any], messages: Sequence[Message],
                 sampling: Sampling) -> str:
    """Content address of one request."""
    return sha256_text(canonical_json({
        "model": dict(identity),
        "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
        "sampling": sampling.key_fields()}))


def read_entries(path: Path, offset: int = 0) -> tuple[dict[str, dict[str, Any]], int]:
    """Parse complete lines from ``offset``; return (key -> entry, offset after the last complete
    line). A torn trailing line (a run killed mid-write) is left for a later read."""
    entries: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return entries, offset
    with open(path, "rb") as f:
        f.seek(offset)
        data = f.read()
    end = data.rfind(b"\n") + 1
    for raw in data[:end].splitlines():
        try:
            entry = json.loads(raw)
            entries[str(entry["key"])] = entry
        except (json.JSONDecodeError, KeyError, TypeError):
            continue  # a torn line followed by newer lines: skip it, keep the rest
    return entries, offset + end


class ResponseCache:
    """Key -> reply store with hit/miss counters for the run's metrics."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._file_lock = FileLock(str(self.path) + ".lock")
        self._entries, self._offset = read_entries(self.path)
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> Reply | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:  # another process may have answered it meanwhile
                new, self._offset = read_entries(self.path, self._offset)
                self._entries.update(new)
                entry = self._entries.get(key)
            if entry is None:
                self.misses += 1
                return None
            self.hits += 1
            return Reply.from_json({**entry["reply"], "cached": True})

    def put(self, key: str, identity: Mapping[str, Any], sampling: Sampling, n_messages: int,
            reply: Reply) -> None:
        entry = {"key": key, "model": dict(identity), "sampling": sampling.key_fields(),
                 "n_messages": n_messages, "reply": {**reply.to_json(), "cached": False}}
        line = (json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock, self._file_lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
            self._entries[key] = entry

    def stats(self) -> dict[str, float]:
        """Counters; the hit rate only when there was a lookup (no lookups is not a 0 % rate)."""
        out = {"cache_hits": float(self.hits), "cache_misses": float(self.misses)}
        if self.hits + self.misses:
            out["cache_hit_rate"] = self.hits / (self.hits + self.misses)
        return out


class CachedChatModel:
    """A :class:`ChatModel` that answers from the cache and stores every new reply."""

    def __init__(self, inner: ChatModel, cache: ResponseCache) -> None:
        self.inner = inner
        self.cache = cache

    @property
    def identity(self) -> Mapping[str, Any]:
        return self.inner.identity

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float,
                 top_p: float, seed: int, effort: Effort) -> Reply:
        sampling = Sampling(max_tokens, temperature, top_p, seed, Effort(effort))
        key = response_key(self.inner.identity, messages, sampling)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        reply = self.inner.complete(messages, max_tokens=max_tokens, temperature=temperature,
                                    top_p=top_p, seed=seed, effort=effort)
        self.cache.put(key, self.inner.identity, sampling, len(messages), reply)
        return reply
