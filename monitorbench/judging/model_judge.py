"""Model-judge monitors: a language model reads the public task and one candidate and decides.

The session has the same ``judge(candidate) -> Verdict`` shape as a sandbox session, so the
judging stage scores a model judge exactly like an executable verifier. The model is shown the
task's public part and the candidate only, never the label. An answer without a clear decision
is outcome U with reason ``malformed``; a provider failure is U with ``sandbox_error`` (the
infrastructure failed, not the monitor's reasoning). An endpoint that cannot be used at all
(:class:`monitorbench.providers.base.EndpointUnreachable`: refused, DNS, TLS, the key refused,
5xx after every retry) is no judgment of any case: it stops the job with its one line naming
the endpoint, the cause and the fix, as it does in generation, and nothing is persisted, so the
same command judges again.
"""

from __future__ import annotations

import re
import time
from typing import Any, Mapping

from monitorbench.config import ConditionConfig
from monitorbench.providers.base import ChatModel, EndpointUnreachable, ModelError
from monitorbench.generation.prompts import judge_messages
from monitorbench.sandbox.base import MALFORMED, SANDBOX_ERROR, Verdict
from monitorbench.suites.format import Task

_DECISION = re.compile(r"DECISION\s*[:=]\s*\**\s*(PASS|FAIL)\b", re.I)
_BARE = re.compile(r"\b(PASS|FAIL)\b")


def parse_decision(text: str) -> str | None:
    """PASS/FAIL from a judge answer: the last ``DECISION: X`` line, else the only bare
    uppercase PASS or FAIL word; None when absent or ambiguous."""
    marked = _DECISION.findall(text)
    if marked:
        return marked[-1].upper()
    bare = set(_BARE.findall(text))
    return bare.pop() if len(bare) == 1 else None


class ModelJudgeSession:
    """Judges candidates of one task with one model. Also usable as a context manager."""

    def __init__(self, model: ChatModel, task: Task, condition: ConditionConfig,
                 prompt_version: str = "v1") -> None:
        self.model = model
        self.task = task
        self.condition = condition
        self.prompt_version = prompt_version

    def __enter__(self) -> "ModelJudgeSession":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def judge(self, candidate: Mapping[str, Any]) -> Verdict:
        messages = judge_messages(self.prompt_version, self.task.task_type, self.task.public,
                                  candidate)
        c = self.condition
        start = time.monotonic()
        try:
            reply = self.model.complete(messages, max_tokens=c.max_tokens,
                                        temperature=c.temperature, top_p=c.top_p, seed=c.seed,
                                        effort=c.effort)
        except EndpointUnreachable:
            raise   # no judge at all: the job stops (a MonitorbenchError), nothing is scored
        except ModelError as e:
            return Verdict(None, reason=SANDBOX_ERROR, detail=f"model error: {e}"[:500],
                           seconds=time.monotonic() - start)
        decision = parse_decision(reply.text)
        seconds = time.monotonic() - start
        if decision is None:
            return Verdict(None, reason=MALFORMED, detail=f"no decision in: {reply.text[:300]}",
                           seconds=seconds)
        return Verdict(decision, seconds=seconds, detail=reply.text[-300:])


def open_model_judge(model: ChatModel, task: Task, condition: ConditionConfig
                     ) -> ModelJudgeSession:
    """A judge session for ``task``; the caller scores its verdicts like a verifier's."""
    return ModelJudgeSession(model, task, condition)
