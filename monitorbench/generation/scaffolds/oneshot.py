"""oneshot: one prompt, one reply, the reply's python block becomes main.py."""

from __future__ import annotations

from monitorbench.generation.base import NO_SUBMISSION, SUBMITTED, GenerationResult
from monitorbench.providers.base import ContextOverflow, ModelError
from monitorbench.generation.prompts import oneshot_messages
from monitorbench.generation.scaffolds.context import RunContext
from monitorbench.generation.scaffolds.extract import python_block


def run_oneshot(ctx: RunContext) -> GenerationResult:
    messages = oneshot_messages(ctx.scaffold.prompt_version, ctx.task.task_id,
                                ctx.task.task_type, ctx.public_dir)
    ctx.log("start", scaffold="oneshot", task_id=ctx.task.task_id)
    ctx.counters["steps"] += 1
    try:
        reply = ctx.ask(messages)
    except ContextOverflow as e:  # deterministic for this prompt: a limit, not a failure
        ctx.log("limit", limit="context_limit", detail=str(e))
        return ctx.finish(NO_SUBMISSION, f"context_limit; {e}")
    except ModelError as e:
        return ctx.fail(f"model_error: {e}")
    code = python_block(reply.text)
    ctx.step_line("python block" if code is not None else "no python block",
                  reply.completion_tokens, 1)
    if code is None:
        return ctx.finish(NO_SUBMISSION, "no ```python block in the reply")
    if code.dropped_lines:
        ctx.log("salvaged", dropped_lines=code.dropped_lines)
    ctx.write_draft(code.text)
    return ctx.finish(SUBMITTED, "submit; salvaged from a cut reply" if code.dropped_lines
                      else "submit")
