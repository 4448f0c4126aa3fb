"""The proxy's token budget, held under concurrent calls (issue 44).

Counting only the usage of replies already accounted lets a harness (driven by a hostile model)
send many large prompts at once: every one is admitted while the counter is still low, and the
endpoint serves them all (measured: 12 concurrent 1.2 MB prompts, 3.6M tokens served against a
200k budget). So a call is admitted against what is *used plus reserved*: on admission it
reserves its prompt estimate plus its reply cap, a call whose reservation would pass
``scaffold.max_total_tokens`` is refused before it leaves, and when its reply ends (or fails)
the reservation is released and the real usage counted instead.

The prompt estimate is the re-serialised request body's bytes times a tokens-per-byte rate.
A call admitted while no other is in flight (the way harnesses work: one call, its reply, the
next) is reserved at the generation's rate: ``1/3`` at first (typical text and code run about
4 bytes per token, and the body's JSON structure and ``\\uXXXX`` escapes only add bytes, so
this over-estimates ordinary prompts), raised to the highest rate any settled reply reported.
A call admitted while others are in flight is reserved at 1 token per byte at least, a bound
no byte-level tokenizer passes (each token covers at least one byte of the text, and the body
holds the text plus its JSON). So a burst of concurrent calls can exceed the budget by at most
the first call's under-estimate, never by the burst.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

DEFAULT_TOKENS_PER_BYTE = 1 / 3
CONCURRENT_TOKENS_PER_BYTE = 1.0


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
        """The prompt tokens a body of ``body_bytes`` is reserved at (rounded up): the learned
        rate alone, at least 1 token per byte while another call is in flight."""
        rate = self.tokens_per_byte if not self.in_flight else max(self.tokens_per_byte,
                                                                   CONCURRENT_TOKENS_PER_BYTE)
        return math.ceil(body_bytes * rate)

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
