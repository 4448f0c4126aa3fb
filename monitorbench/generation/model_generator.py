"""The generator for ``generator.kind=model``: a language model driven by a scaffold.

``build_model_generator`` is the factory's entry point. The generator only ever sees the task's
public directory; its drafts run inside the sandbox it is handed. Replies are cached under the
model's identity (see ``models.cache``), so an immediate re-run is served from disk and a
different model or seed never receives another's replies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping


from monitorbench.config import ModelGeneratorConfig, ScaffoldConfig, identity
from monitorbench.errors import InputError
from monitorbench.generation.base import GenerationResult
from monitorbench.generation.prompts import prompts_sha256
from monitorbench.generation.scaffolds import SCAFFOLD_VERSION, SCAFFOLDS, RunContext
from monitorbench.providers.base import ChatModel
from monitorbench.providers.cache import ResponseCache
from monitorbench.providers.factory import cached_chat_model
from monitorbench.sandbox.base import Sandbox, SandboxSpec
from monitorbench.suites.format import Task


class ModelGenerator:
    """Implements :class:`monitorbench.generation.base.Generator` for model generators."""

    def __init__(self, model: ChatModel, gen_cfg: ModelGeneratorConfig, scaffold_cfg: ScaffoldConfig,
                 *, sandbox: Sandbox | None, spec_for: Callable[[Task], SandboxSpec] | None,
                 cache: ResponseCache | None) -> None:
        if scaffold_cfg.name not in SCAFFOLDS:
            raise InputError(f"conf/scaffold/{scaffold_cfg.name}.yaml", "scaffold.name",
                             f"{scaffold_cfg.name!r} is not a model scaffold",
                             f"use one of {', '.join(SCAFFOLDS)}")
        self.model = model
        self.gen_cfg = gen_cfg
        self.scaffold_cfg = scaffold_cfg
        self.sandbox = sandbox
        self.spec_for = spec_for
        self.cache = cache
        self._identity = {
            "kind": "model",
            "model": dict(model.identity),
            "condition": identity(gen_cfg.condition),
            "scaffold": identity(scaffold_cfg),
            "scaffold_version": SCAFFOLD_VERSION,
            "prompts": {"version": scaffold_cfg.prompt_version,
                        "sha256": prompts_sha256(scaffold_cfg.prompt_version)},
        }

    @property
    def identity(self) -> Mapping[str, Any]:
        return self._identity

    def generate(self, task: Task, public_dir: Path, out_dir: Path) -> GenerationResult:
        ctx = RunContext(task=task, public_dir=Path(public_dir), out_dir=Path(out_dir),
                         model=self.model, condition=self.gen_cfg.condition,
                         scaffold=self.scaffold_cfg, sandbox=self.sandbox,
                         spec_for=self.spec_for)
        return SCAFFOLDS[self.scaffold_cfg.name](ctx)

    def cache_stats(self) -> dict[str, float]:
        """Hit/miss counters of the response cache over this generator's lifetime."""
        return self.cache.stats() if self.cache is not None else {}


def build_model_generator(gen_cfg: ModelGeneratorConfig, scaffold_cfg: ScaffoldConfig, *,
                          sandbox: Sandbox, spec_for: Callable[[Task], SandboxSpec],
                          cache_dir: Path) -> ModelGenerator:
    """Entry point for ``generation.factory``: provider + response cache + scaffold."""
    model, cache = cached_chat_model(gen_cfg, cache_dir)
    return ModelGenerator(model, gen_cfg, scaffold_cfg, sandbox=sandbox, spec_for=spec_for,
                          cache=cache)
