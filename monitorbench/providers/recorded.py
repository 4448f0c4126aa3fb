"""Replay recorded replies for an exact re-run without the original model.

A recording is a response-cache file (``responses.jsonl``) from an earlier run: every line holds
the request key, the original model's identity and the reply. Requests are keyed exactly like
the cache, under the *original* model's identity, so the replay answers only the very requests
the original run made; anything else is a clear error naming the file and the missing key.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Mapping, Sequence

from monitorbench.config import Effort
from monitorbench.errors import InputError
from monitorbench.providers.base import Message, ModelError, Reply, Sampling
from monitorbench.providers.cache import read_entries, response_key
from monitorbench.hashing import canonical_json


class RecordingMiss(InputError, ModelError):
    """The recording has no reply for a request: the re-run diverged from the recorded one."""


class RecordedChatModel:
    """Serves replies from a recording; ``model`` picks one model if the file holds several."""

    def __init__(self, recording: str | Path, *, model: str | None = None,
                 config_file: str = "conf/generator/recorded.yaml") -> None:
        self.path = Path(recording)
        if not self.path.is_file():
            raise InputError(config_file, "generator.recording", f"{self.path} does not exist",
                             "point it at the responses.jsonl of the run to replay")
        entries, _ = read_entries(self.path)
        identities = {canonical_json(e["model"]): e["model"] for e in entries.values()}
        if model is not None:
            identities = {k: v for k, v in identities.items() if v.get("model") == model}
        if len(identities) != 1:
            names = sorted({str(e["model"].get("model")) for e in entries.values()})
            raise InputError(self.path, "model",
                             f"the recording holds {len(identities)} matching models "
                             f"(models in file: {names}; generator.model={model!r})",
                             "set generator.model to exactly one of the recorded model names")
        self.recorded_identity: Mapping[str, Any] = next(iter(identities.values()))
        ident_json = canonical_json(self.recorded_identity)
        self._replies = {k: Reply.from_json(e["reply"]) for k, e in entries.items()
                         if canonical_json(e["model"]) == ident_json}
        self._lock = threading.Lock()
        self.served = 0

    @property
    def identity(self) -> Mapping[str, Any]:
        return {"provider": "recorded", "recorded_model": dict(self.recorded_identity)}

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float,
                 top_p: float, seed: int, effort: Effort) -> Reply:
        sampling = Sampling(max_tokens, temperature, top_p, seed, Effort(effort))
        key = response_key(self.recorded_identity, messages, sampling)
        reply = self._replies.get(key)
        if reply is None:
            raise RecordingMiss(self.path, f"key {key}",
                                f"no recorded reply for this request ({len(messages)} messages, "
                                f"sampling {sampling.key_fields()})",
                                "re-run with the original provider to record it, or replay the "
                                "exact configuration (prompts, scaffold, condition) that was "
                                "recorded")
        with self._lock:
            self.served += 1
        return reply
