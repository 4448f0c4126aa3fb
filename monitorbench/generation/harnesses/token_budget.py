"""The proxy's token budget, held under concurrent calls (issue 44).

Counting only the usage of replies already accounted lets a harness (driven by a hostile model)
send many large prompts at once: every one is admitted while the counter is still low, and the
endpoint serves them all (measured: 12 concurrent 1.2 MB prompts, 3.6M tokens served against a
200k budget). So a call is admitted against what is *used plus reserved*: on admission it
reserves its prompt estimate plus its reply cap, a call whose reservation would pass
``scaffold.max_total_tokens`` is refused before it leaves, and when its reply ends (or fails)
the reservation is released and the real usage counted instead.

The prompt estimate is the re-serialised request body's bytes times a tokens-per-byte rate.
The rate starts at ``1/3`` (typical text and code run about 4 bytes per token, and the body's
JSON structure and ``\\uXXXX`` escapes only add bytes, so this over-estimates ordinary
prompts) and rises to the highest rate any settled reply of the generation reported: a model
whose prompts tokenize densely is then reserved at its own rate from its second reply on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

DEFAULT_TOKENS_PER_BYTE = 1 / 3


@dataclass(eq=False)
class Reservation:
    """One admitted call's hold on the budget: its prompt estimate and reply cap."""

    body_bytes: int
    prompt_estimate: int
    reply_cap: int

    @property
    def tokens(self) -> int:
        return self.prompt_estimate + self.reply_cap


@dataclass
class TokenBudget:
    """Reservations against ``limit`` tokens. Not thread-safe by itself: the proxy calls it
    under its trace lock, the same lock under which usage is counted."""

    limit: int
    reply_cap: int
    tokens_per_byte: float = DEFAULT_TOKENS_PER_BYTE
    in_flight: list[Reservation] = field(default_factory=list)

    @property
    def reserved(self) -> int:
        return sum(r.tokens for r in self.in_flight)

    def estimate(self, body_bytes: int) -> int:
        """The prompt tokens a body of ``body_bytes`` is reserved at (rounded up)."""
        return math.ceil(body_bytes * self.tokens_per_byte)

    def admit(self, used: float, body_bytes: int) -> Reservation | str:
        """A reservation for a call of ``body_bytes``, or the reason it is refused: used plus
        every reservation in flight plus this one would pass the limit."""
        r = Reservation(body_bytes, self.estimate(body_bytes), self.reply_cap)
        reserved = self.reserved
        if used + reserved + r.tokens > self.limit:
            return (f"token limit ({self.limit} tokens: {int(used)} used, {reserved} reserved "
                    f"by calls in flight, this call needs up to {r.tokens})")
        self.in_flight.append(r)
        return r

    def settle(self, r: Reservation, prompt_tokens: float | None) -> None:
        """Release ``r`` (its real usage is counted by the caller); a reported prompt count
        denser than the current rate raises the rate for later admissions."""
        if r in self.in_flight:
            self.in_flight.remove(r)
        if prompt_tokens and r.body_bytes > 0:
            self.tokens_per_byte = max(self.tokens_per_byte, prompt_tokens / r.body_bytes)
