"""The one interface every language-model provider implements.

Scaffolds and the model judge talk to a :class:`ChatModel` only, so the same loop runs against a
paid API, a local transformers model or a recording. ``identity`` names everything that decides
the model's output (provider, model, weights hash, endpoint); it is part of every cache key, so a
second model can never be served the first model's answers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping, Protocol, Sequence

from monitorbench.config import Effort
from monitorbench.errors import MonitorbenchError

Message = Mapping[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}


class ModelError(MonitorbenchError):
    """The provider could not produce a reply (after retries). Scaffolds record it, not crash."""


# Every EndpointUnreachable message starts with this, so a generation that recorded one (as
# "model_error: <message>") is recognised after the fact by :func:`endpoint_failure`.
ENDPOINT_FAILURE = "endpoint unreachable"


class EndpointUnreachable(ModelError):
    """The endpoint could not be used at all: connection refused, DNS or TLS failure, the key
    refused, 5xx after every retry. That is the infrastructure's fault, never the model's answer,
    so the job stops (a verifier that was never asked for is no result) instead of scoring it."""

    def __init__(self, endpoint: str, cause: str, fix: str) -> None:
        self.endpoint, self.cause, self.fix = endpoint, cause, fix
        super().__init__(f"{ENDPOINT_FAILURE}: {endpoint}: {cause}. Fix: {fix}")

    def __reduce__(self) -> tuple[type, tuple[str, str, str]]:
        return (type(self), (self.endpoint, self.cause, self.fix))


def endpoint_failure(detail: str | None) -> str | None:
    """The :class:`EndpointUnreachable` message inside a recorded failure ``detail``, else None.
    Scaffolds record a model failure as text; this finds the unreachable endpoint in it again."""
    if not detail:
        return None
    at = detail.find(ENDPOINT_FAILURE + ": ")
    return detail[at:] if at >= 0 else None


class ContextOverflow(ModelError):
    """The conversation no longer fits the model's context window. Unlike a transport failure it
    is deterministic for the prompt, so scaffolds treat it as a limit: the agent submits its
    current draft, exactly as at the step limit."""


@dataclass(frozen=True)
class Reply:
    """One completion. ``seconds`` is the provider's own time for it; ``cached`` marks a reply
    served from the response cache (its tokens and seconds are those of the original call)."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached: bool = False
    tokens_estimated: bool = False  # the provider reported no usage; tokens are chars/4

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Reply":
        return cls(text=str(d["text"]), prompt_tokens=int(d["prompt_tokens"]),
                   completion_tokens=int(d["completion_tokens"]), seconds=float(d["seconds"]),
                   cached=bool(d.get("cached", False)),
                   tokens_estimated=bool(d.get("tokens_estimated", False)))


@dataclass(frozen=True)
class Sampling:
    """Sampling parameters of one request; all of them are part of the cache key."""

    max_tokens: int
    temperature: float
    top_p: float
    seed: int
    effort: Effort

    def key_fields(self) -> dict[str, Any]:
        """The fields that decide a reply. Greedy decoding (temperature 0) does not depend on the
        seed, so the seed is dropped there and a re-run under another seed reuses the reply;
        sampled replies are cached per seed."""
        return {"max_tokens": self.max_tokens, "temperature": self.temperature,
                "top_p": self.top_p, "seed": self.seed if self.temperature > 0 else None,
                "effort": Effort(self.effort).value}


class ChatModel(Protocol):
    """A chat-completion model."""

    @property
    def identity(self) -> Mapping[str, Any]:
        """Provider, model name and whatever pins its weights or endpoint."""

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float,
                 top_p: float, seed: int, effort: Effort) -> Reply:
        """Return the assistant's next message. Raises :class:`ModelError` on failure."""


def estimate_tokens(text: str) -> int:
    """Rough token count (4 characters per token) for providers that report no usage."""
    return max(1, len(text) // 4) if text else 0
