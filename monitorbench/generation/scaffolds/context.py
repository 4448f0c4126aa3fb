"""What every scaffold run shares: the model call with accounting, the trace, the draft on disk.

A :class:`RunContext` lives for one task. It owns the budget counters that go into every trace
line and into :attr:`GenerationResult.stats`, so scaffolds never keep their own tallies.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from monitorbench.config import ConditionConfig, ScaffoldConfig
from monitorbench.generation.base import ERROR, NO_SUBMISSION, SUBMITTED, GenerationResult
from monitorbench.providers.base import ChatModel, Message, Reply
from monitorbench.generation.traces import TRACE_FILE, TraceWriter
from monitorbench.hashing import sha256_text
from monitorbench.sandbox.base import Sandbox, SandboxSpec
from monitorbench.generation.scaffolds.reason import end_reason
from monitorbench.suites.format import Task

log = logging.getLogger(__name__)
# "k/n" of the generation this thread runs, set by generation.factory.generate_all, so a step
# line names its place in the job ("generation 2/3 TASK: step ...") without the scaffolds
# knowing about the job. A ContextVar, since tasks are generated in parallel threads.
GENERATION_PLACE: ContextVar[str] = ContextVar("generation_place", default="")

COUNTERS = ("steps", "model_calls", "prompt_tokens", "completion_tokens", "cache_hits",
            "cache_misses", "executions_used", "executions_blocked", "self_tests",
            "self_tests_blocked", "format_errors")


@dataclass
class RunContext:
    """One generation run of one task."""

    task: Task
    public_dir: Path
    out_dir: Path
    model: ChatModel
    condition: ConditionConfig
    scaffold: ScaffoldConfig
    sandbox: Sandbox | None = None
    spec_for: Callable[[Task], SandboxSpec] | None = None
    counters: dict[str, float] = field(default_factory=lambda: {k: 0.0 for k in COUNTERS})
    draft: str | None = None
    cut_replies: int = 0   # replies whose completion reached condition.max_tokens
    salvaged: int = 0      # drafts kept from a reply cut inside its block
    # the job's "k/n", read where the run is made (a harness's proxy thread logs its steps)
    place: str = field(default_factory=GENERATION_PLACE.get)
    _sent: int = 0

    def __post_init__(self) -> None:
        self.out_dir = Path(self.out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.trace = TraceWriter(self.out_dir / TRACE_FILE)
        self.started = time.monotonic()

    @property
    def verifier_dir(self) -> Path:
        return self.out_dir / "verifier"

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def total_tokens(self) -> float:
        return self.counters["prompt_tokens"] + self.counters["completion_tokens"]

    def log(self, event: str, **fields: object) -> None:
        if event == "salvaged":
            self.salvaged += 1
        self.trace.write(event, self.counters, **fields)

    def step_line(self, action: str, completion_tokens: float, max_steps: int,
                  step: float | None = None) -> None:
        """One INFO line per model turn, so a slow model run says where it is (issue 48):
        ``generation 2/3 TASK: step 4/8, write_verifier, reply 384/384 tokens, 5210/200000
        tokens in all``. ``step``: the scaffold's step counter unless given (a harness counts
        its model calls)."""
        log.info("generation %s%s: step %d/%d, %s, reply %d/%d tokens, %d/%d tokens in all",
                 f"{self.place} " if self.place else "", self.task.task_id,
                 int(self.counters["steps"] if step is None else step), max_steps, action,
                 completion_tokens, self.condition.max_tokens, int(self.total_tokens()),
                 self.scaffold.max_total_tokens)

    def ask(self, messages: list[Message]) -> Reply:
        """One model call under the run's condition; records the messages added since the
        previous call and the reply, so the trace holds the whole conversation once."""
        c = self.condition
        reply = self.model.complete(messages, max_tokens=c.max_tokens, temperature=c.temperature,
                                    top_p=c.top_p, seed=c.seed, effort=c.effort)
        self.counters["model_calls"] += 1
        self.counters["prompt_tokens"] += reply.prompt_tokens
        self.counters["completion_tokens"] += reply.completion_tokens
        self.counters["cache_hits" if reply.cached else "cache_misses"] += 1
        if reply.completion_tokens >= c.max_tokens:
            self.cut_replies += 1
        self.log("model", sent=[dict(m) for m in messages[self._sent:]], reply=reply.text,
                 prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                 cached=reply.cached, seconds=round(reply.seconds, 4))
        self._sent = len(messages) + 1  # the reply itself is appended by the caller
        return reply

    def write_draft(self, code: str) -> None:
        """Replace ``verifier/main.py`` atomically: a kill never leaves a half-written file."""
        self.verifier_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.verifier_dir, prefix=".main.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(code)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.verifier_dir / "main.py")
        self.draft = code
        self.log("write_verifier", chars=len(code), sha256=sha256_text(code)[:16])

    def finish(self, status: str, detail: str) -> GenerationResult:
        """Close the trace with an ``end`` event and build the result."""
        if status == SUBMITTED and self.draft is None:
            status = NO_SUBMISSION
        stats = {**self.counters, "seconds": round(self.elapsed(), 4)}
        if status != ERROR:   # an error's detail is read by pipeline.endpoint: kept as is
            detail = self._with_reason(detail)
        self.log("end", status=status, detail=detail)
        self.trace.close()
        return GenerationResult(task_id=self.task.task_id, status=status,
                                verifier_dir=self.verifier_dir if status == SUBMITTED else None,
                                detail=detail, stats=stats, trace_path=self.trace.path)

    def _with_reason(self, detail: str) -> str:
        """``detail`` (a tag programs read) followed by the end in words (``reason.py``)."""
        limits = {"max_steps": self.scaffold.max_steps,
                  "max_total_tokens": self.scaffold.max_total_tokens,
                  "wall_seconds": self.condition.wall_seconds,
                  "max_tokens": self.condition.max_tokens}
        words = end_reason(detail, self.draft is not None, self.counters, limits,
                           self.cut_replies, self.salvaged)
        return f"{detail} — {words}" if words else detail

    def fail(self, detail: str) -> GenerationResult:
        self.log("error", detail=detail)
        return self.finish(ERROR, detail)
