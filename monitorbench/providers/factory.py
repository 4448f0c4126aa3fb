"""Build the :class:`ChatModel` a generator config asks for, with clear errors for bad configs."""

from __future__ import annotations

import os
from pathlib import Path

from monitorbench.config import (GeneratorConfig, OpenAIGeneratorConfig, RecordedGeneratorConfig,
                                 TransformersGeneratorConfig)
from monitorbench.errors import InputError
from monitorbench.providers.base import ChatModel
from monitorbench.providers.cache import CachedChatModel, ResponseCache

PROVIDERS = ("openai", "transformers", "recorded")


def config_file_of(gen_cfg: GeneratorConfig) -> str:
    """The YAML file a user edits to change this generator (named in every error)."""
    return f"conf/generator/{gen_cfg.name}.yaml"


def make_chat_model(gen_cfg: GeneratorConfig) -> ChatModel:
    """Instantiate the provider whose config schema ``gen_cfg`` is (no cache around it)."""
    cfg_file = config_file_of(gen_cfg)
    if isinstance(gen_cfg, OpenAIGeneratorConfig):
        if gen_cfg.serve and not gen_cfg.base_url:
            raise InputError(cfg_file, "generator.base_url", f"the {gen_cfg.serve} server of this "
                             "generator is not running", "run it through `python -m "
                             "monitorbench`, or wrap the code in providers.local_server.serving()")
        if not gen_cfg.base_url or not gen_cfg.model:
            raise InputError(cfg_file, "generator.base_url" if not gen_cfg.base_url
                             else "generator.model", "is required for provider openai",
                             "set the endpoint (…/v1) and the model name")
        key = None
        if gen_cfg.api_key_env:
            key = os.environ.get(gen_cfg.api_key_env)
            if not key:
                raise InputError(cfg_file, "generator.api_key_env",
                                 f"environment variable {gen_cfg.api_key_env} is not set",
                                 f"export {gen_cfg.api_key_env}=..., or set "
                                 "generator.api_key_env=null for a server without auth")
        return _openai_model(gen_cfg, key, cfg_file)
    if isinstance(gen_cfg, TransformersGeneratorConfig):
        if not gen_cfg.model:
            raise InputError(cfg_file, "generator.model", "is required for provider transformers",
                             "set it to 'smollm2' or a saved model directory")
        from monitorbench.providers.hf_local import TransformersChatModel

        return TransformersChatModel(gen_cfg.model, gguf_file=gen_cfg.gguf_file,
                                     adapter=gen_cfg.adapter, config_file=cfg_file)
    if isinstance(gen_cfg, RecordedGeneratorConfig):
        if not gen_cfg.recording:
            raise InputError(cfg_file, "generator.recording", "is required for provider recorded",
                             "point it at the responses.jsonl of the run to replay")
        from monitorbench.providers.recorded import RecordedChatModel

        return RecordedChatModel(gen_cfg.recording, model=gen_cfg.model, config_file=cfg_file)
    raise InputError(cfg_file, "generator", f"{gen_cfg.name!r} is no model generator "
                     f"(kind {gen_cfg.kind.value})", "use a generator whose YAML selects one of "
                     f"the provider schemas {', '.join(PROVIDERS)}")


def cached_chat_model(gen_cfg: GeneratorConfig, cache_dir: Path | str
                      ) -> tuple[ChatModel, ResponseCache | None]:
    """The model a generator or a model judge talks to: the provider behind the response cache
    keyed by model identity (a recording is already a cache and is not copied into another).
    Returns the model and its cache (None for a recording), whose counters the run reports."""
    model = make_chat_model(gen_cfg)
    if isinstance(gen_cfg, RecordedGeneratorConfig):
        return model, None
    cache = ResponseCache(Path(cache_dir))
    return CachedChatModel(model, cache), cache


def _openai_model(gen_cfg: OpenAIGeneratorConfig, key: str | None, cfg_file: str) -> ChatModel:
    """The SDK client; a served model is identified by its weights, not by its port."""
    from monitorbench.providers.openai_sdk import DIALECTS, OpenAIChatModel

    r = gen_cfg.request
    if r.dialect not in DIALECTS:
        raise InputError(cfg_file, "generator.request.dialect", f"{r.dialect!r} is not a dialect",
                         f"use one of {', '.join(DIALECTS)} (README, Model endpoints)")
    endpoint = None
    if gen_cfg.serve:
        from monitorbench.providers.local_server import N_CTX, gguf_of, served_identity

        endpoint = served_identity(gguf_of(gen_cfg, cfg_file), N_CTX)
    assert gen_cfg.base_url and gen_cfg.model
    return OpenAIChatModel(base_url=gen_cfg.base_url, model=gen_cfg.model, api_key=key,
                           timeout_seconds=r.timeout_seconds, retries=r.retries,
                           concurrency=r.concurrency, dialect=r.dialect,
                           endpoint_identity=endpoint)
