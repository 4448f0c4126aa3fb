"""Strict config composition: every key must be one the schema (``monitorbench/config.py``) defines.

Hydra types the composed config against ``MonitorbenchConfig`` and puts its root in struct mode, so
``generatr=x`` and ``sandbox.limits.wall_secs=5`` already fail — but its messages neither list the
keys that exist nor stop there: ``+key=value`` is a *force add* that Hydra applies with struct mode
switched off, so ``+generatr=always_reject`` would be accepted and silently ignored. This module
closes that hole and makes every rejection one readable :class:`InputError` that names the key and
the allowed keys or values:

* :func:`compose_config` — the compose API with those checks (CLI, audit, tests);
* :func:`check_keys` — the check on an already composed config (``python -m monitorbench`` jobs);
* :class:`StrictKeysCallback` — every value of a Hydra sweep checked before it starts, so a typo
  never opens an MLflow parent run (``monitorbench run`` checks the same before calling Hydra).
"""

from __future__ import annotations

import difflib
import logging
import re
import sys
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from hydra import compose, initialize_config_dir
from hydra.errors import HydraException, MissingConfigException
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError

from monitorbench import config as schema_module
from monitorbench.config import (FIXED_GENERATOR_FIELDS, GENERATOR_SCHEMAS, RENAMED_KEYS,
                                 MonitorbenchConfig, check_limits, register_configs)
from monitorbench.errors import InputError

CONF = Path(__file__).resolve().parents[1] / "conf"
# Groups that are selected with `+group=option` because the root config does not default them.
ADDED_GROUPS = ("experiment", "audit")
log = logging.getLogger("monitorbench")


def config_groups() -> list[str]:
    """The selectable config groups of ``conf/`` (``generator=``, ``access=``, ...)."""
    return sorted(p.name for p in CONF.iterdir() if p.is_dir() and p.name != "hydra")


def group_options(group: str) -> list[str]:
    """The options of one config group: the YAML files in ``conf/<group>/``."""
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


def allowed_keys(parent: str, schema: Any = None) -> list[str]:
    """The keys under ``parent`` ("" for the root): those of ``schema`` when the composed node's
    dataclass is known (a generator's provider schema), else of the root schema's field there;
    [] if it is no section."""
    if is_dataclass(schema):
        return [f.name for f in fields(schema)]
    node = OmegaConf.structured(MonitorbenchConfig)
    if parent:
        node = OmegaConf.select(node, parent, default=None)
    return [str(k) for k in node.keys()] if isinstance(node, DictConfig) else []


def _generator_hint(leaf: str, schema: Any) -> str:
    """Where a generator key comes from: the schema its YAML selects, and which ones have it."""
    having = [n for n, s in GENERATOR_SCHEMAS.items() if leaf in {f.name for f in fields(s)}]
    this = next((n for n, s in GENERATOR_SCHEMAS.items() if s is schema), None)
    text = (f"; a generator's keys are those of the schema its YAML selects in `defaults:` "
            f"(`- /schema/generator/NAME@_here_`, NAME one of {', '.join(GENERATOR_SCHEMAS)})")
    if this:
        text += f"; this generator's schema is {this}"
    if having:
        text += f"; '{leaf}' belongs to {', '.join(having)}: pick a generator of that kind"
    return text


def _fix_for(key: str, schema: Any = None) -> str:
    """How to fix an unknown ``key``: its new name if it was renamed, else the keys that exist
    where it was put, nearest first."""
    if key in RENAMED_KEYS:
        return f"'{key}' was renamed: use {RENAMED_KEYS[key]}"
    parent, _, leaf = key.rpartition(".")
    keys = allowed_keys(parent, schema)
    where = f"under '{parent}'" if parent else "at the top level"
    near = difflib.get_close_matches(leaf, keys + ([] if parent else config_groups()), n=1)
    hint = f"did you mean '{(parent + '.') if parent else ''}{near[0]}'? " if near else ""
    text = f"{hint}the keys {where} are: {', '.join(keys)}"
    if not parent:
        groups = [g for g in config_groups() if g not in ADDED_GROUPS]
        text += (f"; config groups: {', '.join(f'{g}=' for g in groups)} and "
                 f"{', '.join(f'+{g}=' for g in ADDED_GROUPS)}")
    if parent == "generator":
        text += _generator_hint(leaf, schema)
    return text


def unknown_keys(node: Any, prefix: str = "") -> Iterator[str]:
    """Full names of the keys in ``node`` that its schema dataclass does not define."""
    if isinstance(node, ListConfig):
        for i, item in enumerate(node):
            yield from unknown_keys(item, f"{prefix}{i}.")
        return
    if not isinstance(node, DictConfig):
        return
    schema = OmegaConf.get_type(node)
    known = {f.name for f in fields(schema)} if is_dataclass(schema) else None
    for key in node.keys():
        if not prefix and key == "hydra":
            continue
        if known is not None and key not in known:
            yield f"{prefix}{key}"
        elif not OmegaConf.is_missing(node, key) and not OmegaConf.is_interpolation(node, key):
            yield from unknown_keys(node[key], f"{prefix}{key}.")


def check_keys(cfg: DictConfig) -> None:
    """Refuse a composed config holding a key the schema does not define (e.g. ``+generatr=x``),
    or a generator whose ``kind``/``provider`` was overridden away from what its schema fixes,
    or a limit no run could use (:func:`monitorbench.config.check_limits`)."""
    for key in unknown_keys(cfg):
        parent = key.rpartition(".")[0]
        node = OmegaConf.select(cfg, parent) if parent else cfg
        raise InputError(CONF / "config.yaml", key, f"unknown config key '{key}'",
                         _fix_for(key, OmegaConf.get_type(node)))
    gen = cfg.get("generator")
    schema = OmegaConf.get_type(gen) if isinstance(gen, DictConfig) else None
    for name in FIXED_GENERATOR_FIELDS if is_dataclass(schema) else ():
        fixed = next((f.default for f in fields(schema) if f.name == name), None)
        if fixed is not None and gen.get(name) != fixed:
            text = getattr(gen.get(name), "value", gen.get(name))
            raise InputError(CONF / "generator", f"generator.{name}",
                             f"{text} where the generator's schema {schema.__name__} fixes "
                             f"{getattr(fixed, 'value', fixed)}",
                             "pick the generator that has it (generator=NAME) instead of "
                             f"overriding generator.{name}")
    check_limits(cfg)


_KEY_ERROR_IN_YAML = re.compile(r"In '(?P<file>[^']+)': ConfigKeyError raised while composing "
                                r"config:.*?full_key: (?P<key>\S+).*?object_type=(?P<schema>\w+)",
                                re.S)


def explain(e: HydraException) -> InputError:
    """Hydra's compose error as an :class:`InputError` that lists the allowed keys or values."""
    cause = e.__cause__
    full_key = getattr(cause, "full_key", None)
    text = str(cause) if cause is not None else str(e)
    first = text.strip().splitlines()[0] if text.strip() else type(e).__name__
    if full_key and isinstance(cause, (ConfigKeyError, ConfigAttributeError)):  # unknown key
        return InputError(CONF / "config.yaml", full_key, f"unknown config key '{full_key}'",
                          _fix_for(full_key, getattr(cause, "object_type", None)))
    in_yaml = _KEY_ERROR_IN_YAML.search(str(e))
    if in_yaml:     # a group's YAML has a key its schema lacks (Hydra keeps only the text)
        key, schema = in_yaml["key"], getattr(schema_module, in_yaml["schema"], None)
        return InputError(CONF / f"{in_yaml['file']}.yaml", key, f"unknown config key '{key}'",
                          _fix_for(key, schema))
    if full_key:                               # a value of the wrong type or outside an enum
        return InputError(CONF / "config.yaml", full_key, first, _value_fix(first))
    if isinstance(e, MissingConfigException) and e.options:   # `group=option`, no such option
        group, _, option = str(e.missing_cfg_file).rpartition("/")
        return InputError(CONF / group, group, f"no option {option!r} in config group {group!r}",
                          f"use one of {', '.join(sorted(e.options))}")
    return InputError(CONF / "config.yaml", None, " ".join(str(e).split()),
                      f"config groups: {', '.join(config_groups())}; keys at the top level: "
                      f"{', '.join(allowed_keys(''))}")


_NOT_IN_ENUM = re.compile(
    r"Invalid value '(?P<value>[^']*)', expected one of \[(?P<allowed>[^]]*)\]")


def _value_fix(problem: str) -> str:
    """The fix for a value Hydra refused: the nearest allowed value of an enum (``bwarp`` ->
    ``did you mean 'bwrap'?``) and the whole list, else the type the message names."""
    enum = _NOT_IN_ENUM.search(problem)
    if not enum:
        return "use a value of the type the message names"
    allowed = [a.strip() for a in enum["allowed"].split(",")]
    near = difflib.get_close_matches(enum["value"], allowed, n=1)
    hint = f"did you mean '{near[0]}'? " if near else ""
    return f"{hint}use one of {', '.join(allowed)}"


def compose_config(overrides: Sequence[str] = (), *, return_hydra_config: bool = False
                   ) -> DictConfig:
    """``conf/config.yaml`` composed with ``overrides``, every key checked against the schema."""
    register_configs()
    try:
        with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
            cfg = compose("config", overrides=list(overrides),
                          return_hydra_config=return_hydra_config)
    except HydraException as e:
        raise explain(e) from None
    check_keys(cfg)
    return cfg


def split_sweep(overrides: Sequence[str]) -> tuple[list[str], dict[str, list[str]]]:
    """A command line's fixed overrides, and each swept key with its values (Hydra's parser)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parsed = OverridesParser.create().parse_overrides(list(overrides))
    fixed = [o.input_line for o in parsed if not o.is_sweep_override()]
    swept = {o.get_key_element(): list(o.sweep_string_iterator())
             for o in parsed if o.is_sweep_override()}
    return fixed, swept


def sweep_checks(overrides: Sequence[str]) -> list[list[str]]:
    """The override lists that cover a sweep's values: the fixed overrides alone, then with each
    swept value on its own (a sweep's jobs combine values that each compose)."""
    fixed, swept = split_sweep(overrides)
    return [fixed] + [fixed + [f"{key}={v}"] for key, values in swept.items() for v in values]


def check_sweep_axes(overrides: Sequence[str],
                     job_config: Callable[[list[str]], DictConfig]) -> None:
    """Every pair of a sweep's generator and access values that no job can run (a model judge
    with a scripted generator: :func:`monitorbench.config.check_axes`) is refused before the
    first job starts, not when its job comes up. Only access values whose monitor is a model
    are paired with every generator value, so a sweep without a model judge composes nothing
    more."""
    from monitorbench.config import MonitorKind, check_axes

    fixed, swept = split_sweep(overrides)
    for access in swept.get("access", [None]):
        with_access = fixed + ([f"access={access}"] if access is not None else [])
        if MonitorKind(job_config(with_access).access.monitor) is not MonitorKind.model:
            continue
        for generator in swept.get("generator", [None]):
            check_axes(job_config(with_access + ([f"generator={generator}"]
                                                 if generator is not None else [])))


class StrictKeysCallback(Callback):
    """Checks every value of a sweep before any job (and the sweep's MLflow parent run) starts:
    the command line's sweeps and the experiment's ``hydra.sweeper.params``."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        from hydra.core.global_hydra import GlobalHydra
        from hydra.types import RunMode

        app = GlobalHydra.instance().hydra
        assert app is not None
        params = config.hydra.sweeper.get("params") or {}
        swept = [*config.hydra.overrides.task, *(f"{k}={v}" for k, v in params.items())]
        try:
            check_keys(config)
            def job_config(overrides: list[str]) -> DictConfig:
                try:
                    return app.compose_config(config.hydra.job.config_name,
                                              [*config.hydra.overrides.hydra, *overrides],
                                              run_mode=RunMode.RUN)
                except HydraException as e:
                    raise explain(e) from None

            for overrides in sweep_checks(swept):
                check_keys(job_config(overrides))
            check_sweep_axes(swept, job_config)
        except InputError as e:
            log.error("%s", e)
            sys.exit(2)
