"""Scaffolds: the harnesses that drive a model to a verifier (oneshot, agent, challenge)."""

from __future__ import annotations

from typing import Callable

from monitorbench.generation.base import GenerationResult
from monitorbench.generation.scaffolds.agent import AgentLoop
from monitorbench.generation.scaffolds.context import RunContext
from monitorbench.generation.scaffolds.oneshot import run_oneshot

# Part of every model generator's identity. Bump it when what a scaffold makes of the same replies
# changes (parsing, loop rules), so verifiers cached under the old rules are never reused.
SCAFFOLD_VERSION = 3

SCAFFOLDS: dict[str, Callable[[RunContext], GenerationResult]] = {
    "oneshot": run_oneshot,
    "agent": lambda ctx: AgentLoop(ctx, challenge=False).run(),
    "challenge": lambda ctx: AgentLoop(ctx, challenge=True).run(),
}

__all__ = ["SCAFFOLDS", "SCAFFOLD_VERSION", "RunContext", "AgentLoop", "run_oneshot"]
