"""agent and challenge: a small action loop in the spirit of mini-swe-agent.

Each turn the model sends exactly one action block (protocol in ``prompts.AGENT_PROTOCOL``); the
scaffold runs it and answers with the result. The loop stops on ``submit`` or on a limit:
``scaffold.max_steps`` turns, ``scaffold.max_total_tokens`` (prompt + completion tokens summed
over calls, i.e. what is billed), ``condition.wall_seconds``, or the model's context window. At
a limit the current draft is submitted and the reason recorded; with no draft the run ends as
``no_submission``. Budget exhaustion is recorded, never fatal.

The challenge scaffold (paper §5) additionally refuses ``submit`` until the *current* draft has
passed at least one self-test that expected PASS; rewriting the draft resets that. The listing of
acceptance conditions and their variations/violations is asked for by the prompt and recorded in
the trace (action ``conditions``), not machine-checked. A challenge run that reaches a limit
without meeting the rule submits its draft with ``challenge_unmet`` in the detail.
"""

from __future__ import annotations

import json

from monitorbench.generation.base import NO_SUBMISSION, SUBMITTED, GenerationResult
from monitorbench.providers.base import ContextOverflow, Message, ModelError
from monitorbench.generation.prompts import agent_messages
from monitorbench.generation.scaffolds.context import RunContext
from monitorbench.generation.scaffolds.extract import parse_actions
from monitorbench.generation.scaffolds.tools import read_public, run_public, self_test
from monitorbench.generation.traces import cap

AGENT_ACTIONS = ("read", "run_public", "write_verifier", "self_test", "submit")
CHALLENGE_ACTIONS = AGENT_ACTIONS + ("conditions",)


class AgentLoop:
    """One agent (or challenge) run over one task."""

    def __init__(self, ctx: RunContext, *, challenge: bool) -> None:
        self.ctx = ctx
        self.challenge = challenge
        self.actions = CHALLENGE_ACTIONS if challenge else AGENT_ACTIONS
        self.draft_confirmed = False  # current draft passed a self-test that expected PASS
        self.last_action = ""         # the latest reply's action, for the step line

    def _limit_hit(self) -> str | None:
        ctx = self.ctx
        if ctx.counters["steps"] >= ctx.scaffold.max_steps:
            return "step_limit"
        if ctx.total_tokens() >= ctx.scaffold.max_total_tokens:
            return "token_limit"
        if ctx.elapsed() >= ctx.condition.wall_seconds:
            return "wall_limit"
        return None

    def _end_at_limit(self, limit: str) -> GenerationResult:
        ctx = self.ctx
        ctx.log("limit", limit=limit)
        if ctx.draft is None:
            return ctx.finish(NO_SUBMISSION, f"{limit}; no verifier written")
        if self.challenge and not self.draft_confirmed:
            return ctx.finish(SUBMITTED, f"challenge_unmet; {limit}; draft submitted")
        return ctx.finish(SUBMITTED, f"{limit}; draft submitted")

    def _submit_refusal(self) -> str | None:
        if self.ctx.draft is None:
            return "Error: nothing to submit; use write_verifier first"
        if self.challenge and not self.draft_confirmed:
            return ("submit refused: your current main.py has not returned PASS on a complete "
                    "valid solution. Run ```self_test PASS with one and get PASS first.")
        return None

    def _act(self, reply: str) -> tuple[str, bool]:
        """Run the reply's action and trace it; returns (observation, submitted)."""
        name, observation, submitted = self._dispatch(reply)
        self.last_action = name
        self.ctx.log("action", name=name, observation=cap(observation), submitted=submitted)
        return observation, submitted

    def _dispatch(self, reply: str) -> tuple[str, str, bool]:
        ctx = self.ctx
        actions = parse_actions(reply, self.actions)
        if len(actions) != 1:
            ctx.counters["format_errors"] += 1
            ctx.log("format_error", found=[a.name for a in actions])
            return ("format_error", f"Format error: found {len(actions)} action blocks; send "
                    f"exactly one of {', '.join(self.actions)} as a fenced block.", False)
        a = actions[0]
        if a.name == "read":
            out = read_public(ctx, a.body or a.arg)
            ctx.log("read", path=(a.body or a.arg).strip(), chars=len(out))
            return a.name, out, False
        if a.name == "run_public":
            return a.name, run_public(ctx, a.body or a.arg), False
        if a.name == "write_verifier":
            ctx.write_draft(a.body.rstrip("\n") + "\n")
            self.draft_confirmed = False
            if a.dropped_lines:
                ctx.log("salvaged", dropped_lines=a.dropped_lines)
                return a.name, (f"Your reply was cut inside the block: main.py written with the "
                                f"lines that parse; the last {a.dropped_lines} line(s) were "
                                f"dropped. Keep replies shorter."), False
            return a.name, "main.py written.", False
        if a.name == "self_test":
            out, verdict = self_test(ctx, a.arg, a.body)
            if verdict is not None and verdict.decision == "PASS" and a.arg.upper() == "PASS":
                self.draft_confirmed = True
            return a.name, out, False
        if a.name == "conditions":
            try:
                listed = json.loads(a.body)
            except json.JSONDecodeError as e:
                return a.name, f"Error: conditions must be a JSON list ({e.msg})", False
            ctx.log("conditions", conditions=listed)
            return a.name, "conditions recorded.", False
        refusal = self._submit_refusal()
        if refusal is not None:
            ctx.log("submit_refused", why=refusal)
            return a.name, refusal, False
        return a.name, "submitted.", True

    def run(self) -> GenerationResult:
        ctx = self.ctx
        messages: list[Message] = agent_messages(
            ctx.scaffold.prompt_version, ctx.task.task_id, ctx.task.task_type, ctx.public_dir,
            run_public_budget=ctx.scaffold.run_public_budget, challenge=self.challenge)
        ctx.log("start", scaffold="challenge" if self.challenge else "agent",
                task_id=ctx.task.task_id)
        while True:
            limit = self._limit_hit()
            if limit is not None:
                return self._end_at_limit(limit)
            ctx.counters["steps"] += 1
            try:
                reply = ctx.ask(messages)
            except ContextOverflow as e:
                ctx.log("context_overflow", detail=str(e))
                return self._end_at_limit("context_limit")
            except ModelError as e:
                return ctx.fail(f"model_error: {e}")
            observation, submitted = self._act(reply.text)
            ctx.step_line(self.last_action, reply.completion_tokens, ctx.scaffold.max_steps)
            if submitted:
                return ctx.finish(SUBMITTED, "submit")
            messages = [*messages, {"role": "assistant", "content": reply.text},
                        {"role": "user", "content": observation}]
