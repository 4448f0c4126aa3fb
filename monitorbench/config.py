"""Structured configs: the typed schema behind ``conf/``.

Hydra merges the YAML groups into these dataclasses, so a misspelt key or a wrong type fails at
compose time with the full key name, and Enum fields list their allowed values. The schema is
validatable but not selectable: only the root is registered (see :func:`register_configs`), and
:mod:`monitorbench.compose` also refuses keys added with ``+key=value`` that the schema lacks. The four axes of a
sweep are ``generator`` (who writes the verifier), ``scaffold`` (the harness that drives it),
``access`` (what the monitor sees at judgment time) and ``task`` (suites, types, budgets, rounds).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum, StrEnum
from typing import Any, ClassVar, Optional

from monitorbench.task_types import TASK_TYPES, access_modes


class GeneratorKind(str, Enum):
    scripted = "scripted"    # non-LLM baselines written by code (always_accept, schema_check, ...)
    replay = "replay"        # verifiers written elsewhere, one sub-directory per task id
    model = "model"          # a language model driven by a scaffold


# StrEnums: a member is its value wherever a string is read (str(), ==, JSON, a dict key), and
# Hydra refuses any other value at compose time, naming the key and the allowed values.
class SandboxBackend(StrEnum):
    """``sandbox.backend``: the isolation backend (monitorbench.sandbox.factory)."""

    auto = "auto"            # bwrap, falling back to unshare (with its warning)
    bwrap = "bwrap"
    unshare = "unshare"
    docker = "docker"


class Dialect(StrEnum):
    """``generator.request.dialect``: how a request spells the token limit and the reasoning
    effort (monitorbench.providers.openai_sdk; README "Model endpoints")."""

    openai = "openai"
    openrouter = "openrouter"
    enable_thinking = "enable_thinking"
    plain = "plain"


class Baseline(StrEnum):
    """``generator.baseline``: the non-LLM verifier a scripted generator writes
    (monitorbench.generation.baselines)."""

    always_accept = "always_accept"
    always_reject = "always_reject"
    schema_check = "schema_check"
    grounded_check = "grounded_check"


class Effort(str, Enum):
    LOW = "LOW"
    HIGH = "HIGH"
    NONE = "NONE"


@dataclass
class ConditionConfig:
    """Generation condition (paper App. E): effort, sampling, budgets."""

    effort: Effort = Effort.NONE
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    max_tokens: int = 32768          # per reply (paper: 32,768)
    wall_seconds: float = 5400.0     # per task (paper: 5,400 s)
    # Every field can change what a model writes (a shorter wall clock can cut it off).
    IDENTITY: ClassVar[tuple[str, ...]] = ("effort", "temperature", "top_p", "seed", "max_tokens", "wall_seconds")
    NOT_IDENTITY: ClassVar[tuple[str, ...]] = ()


@dataclass
class RequestConfig:
    """HTTP client behaviour for remote providers (the openai SDK's timeouts and retries, with its
    own exponential backoff honouring Retry-After)."""

    timeout_seconds: float = 600.0
    retries: int = 4
    concurrency: int = 4
    # How the request spells the token limit and reasoning effort (README "Model endpoints")
    dialect: Dialect = Dialect.openai


@dataclass
class GeneratorConfig:
    """What every generator has. The fields a kind or a provider needs live in its own subclass
    below, which the generator YAML selects in its ``defaults``
    (``- /schema/generator/openai@_here_``, see :data:`GENERATOR_SCHEMAS`), so a key another
    provider reads (``generator.base_url`` on a scripted baseline) fails at compose time instead
    of being silently ignored. ``kind`` and ``provider`` are fixed by the subclass;
    :mod:`monitorbench.compose` refuses an override."""

    name: str = "always_accept"
    # Short name for run names (MLflow 3.17's runs table shows about 13 characters of a name):
    # "" uses ``name`` (or the model, for a model generator). Names only: in no key.
    alias: str = ""
    kind: GeneratorKind = GeneratorKind.scripted
    # Read by model generators only, but a sweep may set it on any (conf/experiment/effort.yaml).
    condition: ConditionConfig = field(default_factory=ConditionConfig)


@dataclass
class ScriptedGeneratorConfig(GeneratorConfig):
    """A non-LLM baseline written by code."""

    baseline: Baseline = Baseline.always_accept


@dataclass
class ReplayGeneratorConfig(GeneratorConfig):
    """Verifiers written elsewhere, one sub-directory per task id."""

    kind: GeneratorKind = GeneratorKind.replay
    dir: Optional[str] = None                   # directory with <task_id>/main.py


@dataclass
class ModelGeneratorConfig(GeneratorConfig):
    """A language model driven by a scaffold; each provider subclasses it."""

    kind: GeneratorKind = GeneratorKind.model
    provider: str = "openai"
    model: Optional[str] = None                 # model id / local path / name in a recording


@dataclass
class OpenAIGeneratorConfig(ModelGeneratorConfig):
    """Any OpenAI-compatible endpoint through the openai SDK, or a local llama.cpp server that
    monitorbench starts for the run (``serve``)."""

    provider: str = "openai"
    base_url: Optional[str] = None              # the endpoint (…/v1); serve: filled in
    api_key_env: Optional[str] = None           # name of the env var holding the API key
    serve: Optional[str] = None                 # "xllamacpp" starts a local server
    gguf_file: Optional[str] = None             # serve: the GGUF file inside `model`
    request: RequestConfig = field(default_factory=RequestConfig)


@dataclass
class TransformersGeneratorConfig(ModelGeneratorConfig):
    """A local model loaded in-process by transformers (the hf extra)."""

    provider: str = "transformers"
    gguf_file: Optional[str] = None             # GGUF file inside `model`
    adapter: Optional[str] = None               # peft adapter path


@dataclass
class RecordedGeneratorConfig(ModelGeneratorConfig):
    """An exact re-run from the response cache of an earlier run."""

    provider: str = "recorded"
    recording: Optional[str] = None             # file of recorded responses


# The schema each generator YAML selects in its defaults: ``/schema/generator/<key>@_here_``.
GENERATOR_SCHEMAS: dict[str, type[GeneratorConfig]] = {
    "scripted": ScriptedGeneratorConfig,
    "replay": ReplayGeneratorConfig,
    "openai": OpenAIGeneratorConfig,
    "transformers": TransformersGeneratorConfig,
    "recorded": RecordedGeneratorConfig,
}
# Fields a schema fixes: the subclass decides them, an override cannot.
FIXED_GENERATOR_FIELDS = ("kind", "provider")


@dataclass
class HarnessLimits:
    """Bounds on a harness sandbox (the program and every command its model runs), so a hostile
    model cannot take the machine. Defaults fit one harness on a 2-core, 24 GB host with room
    for the framework and a model server; measured needs are in the README's Harnesses section.
    Going past ``processes``, ``disk_mb``/``disk_entries``, ``file_size_mb`` or
    ``session_memory_mb`` (the kernel kills inside the session's memory cgroup) ends the
    generation as ``no_submission`` with the limit in the trace; past ``memory_mb`` or
    ``cpu_seconds`` the kernel refuses the offending process (its command fails)."""

    processes: int = 512        # tasks (threads too): pids cgroup, else RLIMIT_NPROC
    memory_mb: int = 4096       # RLIMIT_DATA per process (Node's reservations are not counted)
    file_size_mb: int = 256     # RLIMIT_FSIZE: the largest file a process may write
    cpu_seconds: int = 3600     # RLIMIT_CPU per process
    disk_mb: int = 1024         # workspace + HOME on disk, checked while it runs and after
    disk_entries: int = 20000   # files and directories in workspace + HOME
    session_memory_mb: int = 6144  # all processes together: a memory cgroup, where the host has one
    # A limit can end a generation early (no_submission), so each is part of its identity.
    IDENTITY: ClassVar[tuple[str, ...]] = ("processes", "memory_mb", "file_size_mb",
                                           "cpu_seconds", "disk_mb", "disk_entries",
                                           "session_memory_mb")
    NOT_IDENTITY: ClassVar[tuple[str, ...]] = ()


@dataclass
class HarnessConfig:
    """A real agent program (Pi, mini-swe-agent, opencode, ...) run isolated against the
    generator's endpoint (``monitorbench/generation/harnesses``). ``name`` None: no harness."""

    name: Optional[str] = None                  # pi|mini_swe|opencode|codex|claude_code|...
    version: Optional[str] = None               # None: the pinned version of that harness
    context_window: int = 8192                  # the endpoint model's window (harness settings)
    tool_calls: bool = False                    # endpoint emits native tool calls (else text)
    output_bytes: int = 4_000_000               # harness stdout+stderr cap: more = flooding
    grammar: Optional[str] = None               # llama.cpp GBNF for chat replies: a shipped name
                                                # (mini_swe_text) or a .gbnf path; None: none
    limits: HarnessLimits = field(default_factory=HarnessLimits)  # sandbox bounds
    # Vendor-side request fields or tool types (web_search, mcp_servers, background, ...) the
    # proxy lets through by name; every other one is stripped (generation/harnesses/
    # field_policy.py). Empty: the generator reaches nothing beyond the model.
    allow_vendor_fields: list[str] = field(default_factory=list)
    IDENTITY: ClassVar[tuple[str, ...]] = ("name", "version", "context_window", "tool_calls",
                                            "output_bytes", "grammar", "limits",
                                            "allow_vendor_fields")
    NOT_IDENTITY: ClassVar[tuple[str, ...]] = ()


@dataclass
class ScaffoldConfig:
    name: str = "oneshot"                       # oneshot|agent|challenge|external|<harness>
    max_steps: int = 30
    run_public_budget: int = 20                 # executions during generation (paper: 20)
    self_test_limit: int = 20
    max_total_tokens: int = 200000
    prompt_version: str = "v1"
    harness: HarnessConfig = field(default_factory=HarnessConfig)
    IDENTITY: ClassVar[tuple[str, ...]] = ("name", "max_steps", "run_public_budget", "self_test_limit",
                                            "max_total_tokens", "prompt_version", "harness")
    NOT_IDENTITY: ClassVar[tuple[str, ...]] = ()


# The access modes every task type declares (monitorbench/task_types.py): a new mode is an entry
# there plus conf/access/<name>.yaml, and compose-time validation knows it at once.
AccessMode = Enum("AccessMode", {m.name: m.name for _, m in access_modes()},  # type: ignore[misc]
                  type=str, module=__name__)


class MonitorKind(str, Enum):
    code = "code"      # the generated verifier program runs in the sandbox on each case
    model = "model"    # model judge: the generator's model reads each case and answers


@dataclass
class AccessConfig:
    """What a monitor sees and can do at judgment time, per task type."""

    name: str = "default"
    alias: str = ""   # short name for run names ("" uses ``name``); changes no judgment
    monitor: MonitorKind = MonitorKind.code
    tool_call: AccessMode = AccessMode.raw_parsed
    state: AccessMode = AccessMode.record_exec
    code: AccessMode = AccessMode.patch_checkout
    judge_budget: int = 20           # run_public executions per judgment (paper: 20)
    # ``name`` changes no judgment (the modes do), but it has been in every run key: two access
    # configs with the same modes under different names stay apart, as before.
    IDENTITY: ClassVar[tuple[str, ...]] = ("name", "monitor", "tool_call", "state", "code",
                                           "judge_budget")
    NOT_IDENTITY: ClassVar[tuple[str, ...]] = ("alias",)

    def mode_for(self, task_type: str) -> "AccessMode":
        """The access mode this config gives a task type (one field per type in task_types)."""
        if task_type not in TASK_TYPES:
            raise KeyError(f"no task type {task_type!r}; known: {', '.join(TASK_TYPES)}")
        return AccessMode(identity(self)[task_type])


@dataclass
class SuiteRef:
    name: str = "bfcl"
    options: dict[str, Any] = field(default_factory=dict)


def _rounds() -> dict[str, int]:
    """Each task type's default number of judgment rounds (paper App. E; task_types.py)."""
    return {t.name: t.rounds for t in TASK_TYPES.values()}


# Keys that were renamed when task-type-named fields became per-type mappings: a config that
# still uses one is refused with the new key in the message (monitorbench.compose).
RENAMED_KEYS = {
    "task.rounds_state_code": "task.rounds.state and task.rounds.code",
    "task.rounds_tool_call": "task.rounds.tool_call",
    "sandbox.code_limits": "sandbox.type_limits.code",
}


@dataclass
class TaskConfig:
    """Which tasks are judged, and how."""

    name: str = "bfcl"
    suites: list[SuiteRef] = field(default_factory=lambda: [SuiteRef()])
    task_types: list[str] = field(default_factory=lambda: list(TASK_TYPES))
    groups: list[str] = field(default_factory=lambda: ["gold", "valid_variant", "ordinary_error",
                                                       "attack"])
    max_tasks_per_type: Optional[int] = None   # None = all; a seeded sample otherwise
    sample_seed: int = 0
    rounds: dict[str, int] = field(default_factory=_rounds)   # judgment rounds per task type
    # A sandbox error (infrastructure, not the verifier) is retried this many times with a fresh
    # session; if it persists the case is an infrastructure failure: never charged to the
    # verifier, counted as diag/infra_failures, and the run fails when they exceed this percent
    # of its judged cases. Neither changes a judgment, so neither is in the run key.
    infra_retries: int = 2
    max_infra_failure_pct: float = 2.0
    IDENTITY: ClassVar[tuple[str, ...]] = ("name", "suites", "task_types", "groups",
                                           "max_tasks_per_type", "sample_seed", "rounds")
    NOT_IDENTITY: ClassVar[tuple[str, ...]] = ("infra_retries", "max_infra_failure_pct")


@dataclass
class LimitsConfig:
    """Per-case resource limits applied inside the sandbox. One definition: the sandbox takes
    them as they are (``monitorbench.sandbox.base.Limits`` is this class)."""

    wall_seconds: float = 10.0
    cpu_seconds: int = 10
    memory_mb: int = 1024
    processes: int = 32
    file_size_mb: int = 16
    open_files: int = 128
    output_bytes: int = 65536
    IDENTITY: ClassVar[tuple[str, ...]] = ("wall_seconds", "cpu_seconds", "memory_mb", "processes",
                                            "file_size_mb", "open_files", "output_bytes")
    NOT_IDENTITY: ClassVar[tuple[str, ...]] = ()


def _type_limits() -> dict[str, "LimitsConfig"]:
    """The per-case limits each task type declares instead of the defaults (task_types.py:
    code verifiers run a library's tests per case, minutes rather than seconds)."""
    return {t.name: LimitsConfig(**t.limits) for t in TASK_TYPES.values() if t.limits}


@dataclass
class SandboxConfig:
    backend: SandboxBackend = SandboxBackend.bwrap
    image: str = ""                            # docker only; "": monitorbench's own image
    workers: int = 2                           # sessions judged in parallel; also the Slurm
    #                                            job's cpus_per_task, so 2 fits a 2-core node
    limits: LimitsConfig = field(default_factory=LimitsConfig)   # every task type, unless:
    type_limits: dict[str, LimitsConfig] = field(                  # per task type, replacing
        default_factory=_type_limits)                                # `limits` for that type
    # The image is the docker backend's Python: in the key for that backend only
    # (launch/run_identity.py); workers only change how many sessions run at once.
    IDENTITY: ClassVar[tuple[str, ...]] = ("backend", "limits", "type_limits")
    NOT_IDENTITY: ClassVar[tuple[str, ...]] = ("image", "workers")


@dataclass
class AttackConfig:
    """The adaptive attacker (g4adv): a budgeted black-box search for invalid candidates that
    a generated verifier accepts. It does not change the judgments, so it is not in run_key."""

    adaptive: bool = False
    budget: int = 50          # verifier queries per task
    seed: int = 0
    # A verifier that accepted none of its task's cases is not searched (no mutant of a rejected
    # case is likely to pass it, and the search would spend the whole budget): true searches it.
    search_reject_all: bool = False


@dataclass
class TrackingConfig:
    enabled: bool = True
    tracking_uri: Optional[str] = None         # None: $MLFLOW_TRACKING_URI, else local store
    experiment_name: Optional[str] = None      # None: the +experiment name
    timeout_s: float = 5.0        # per MLflow request; judging never waits longer on tracking
    retries: int = 1              # per MLflow request, after the first try
    when_down: str = "fail"       # server down at the start: "fail" (one line) or "log_later"


@dataclass
class PathsConfig:
    outputs: str = "outputs"
    suites: str = "outputs/suites"
    cache: str = "outputs/cache"


class JobKind(str, Enum):
    """What one composed job does: judge verifiers (``run``) or audit suites (``audit``, set by
    ``+experiment=audit``). The entry point dispatches on this typed field, never on a name."""

    run = "run"
    audit = "audit"


@dataclass
class MonitorbenchConfig:
    experiment_name: str = "Default"   # MLflow's own default experiment, not a second one
    job: JobKind = JobKind.run
    seed: int = 0
    generator: GeneratorConfig = field(default_factory=GeneratorConfig)
    scaffold: ScaffoldConfig = field(default_factory=ScaffoldConfig)
    access: AccessConfig = field(default_factory=AccessConfig)
    task: TaskConfig = field(default_factory=TaskConfig)
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    attack: AttackConfig = field(default_factory=AttackConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)
    paths: PathsConfig = field(default_factory=PathsConfig)
    # An identical job (same run key) already running: refuse with one line (False) or wait
    # for it and then reuse its judgments (True). Not in the run key.
    wait_for_lock: bool = False


# Every numeric setting of the schema and the least value that makes sense: "> 0" (a wall clock,
# a memory or CPU limit), ">= 1" (a count of workers, rounds, samples) or ">= 0" (retries,
# budgets). Keys are dotted paths; "*" stands for one key (a task type, a limit). A numeric field
# missing here fails tests/test_config.py, so a new limit cannot skip the check.
LIMIT_RULES: dict[str, str] = {
    "sandbox.limits.*": "> 0", "sandbox.type_limits.*.*": "> 0", "sandbox.workers": ">= 1",
    "task.max_tasks_per_type": ">= 1", "task.rounds.*": ">= 1", "task.infra_retries": ">= 0",
    "task.max_infra_failure_pct": ">= 0", "access.judge_budget": ">= 0",
    "attack.budget": ">= 0", "scaffold.max_steps": ">= 1", "scaffold.run_public_budget": ">= 0",
    "scaffold.self_test_limit": ">= 0", "scaffold.max_total_tokens": ">= 1",
    "scaffold.harness.context_window": ">= 1", "scaffold.harness.output_bytes": "> 0",
    "scaffold.harness.limits.*": "> 0", "generator.condition.max_tokens": ">= 1",
    "generator.condition.wall_seconds": "> 0", "generator.condition.temperature": ">= 0",
    "generator.condition.top_p": "> 0", "generator.request.timeout_seconds": "> 0",
    "generator.request.retries": ">= 0", "generator.request.concurrency": ">= 1",
    "tracking.timeout_s": "> 0", "tracking.retries": ">= 0",
}
# Numbers that are not limits (any value is valid).
NOT_LIMITS = ("seed", "task.sample_seed", "attack.seed", "generator.condition.seed")
_BOUNDS = {"> 0": (0, False, "a positive number"), ">= 1": (1, True, "at least 1"),
           ">= 0": (0, True, "0 or more")}


def limit_rule(key: str) -> str | None:
    """The rule of the numeric setting ``key`` (dotted), or None when it is no limit."""
    parts = key.split(".")
    for pattern, rule in LIMIT_RULES.items():
        pat = pattern.split(".")
        if len(pat) == len(parts) and all(p in ("*", k) for p, k in zip(pat, parts)):
            return rule
    return None


def numeric_settings(node: Any, prefix: str = "") -> list[tuple[str, float]]:
    """Every numeric leaf (not bool) of a config as plain containers: (dotted key, value)."""
    if isinstance(node, dict):
        return [kv for k, v in node.items()
                for kv in numeric_settings(v, f"{prefix}{k}.")]
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        return [(prefix[:-1], node)]
    return []


def check_limits(config: Any) -> None:
    """Refuse a limit or budget that no run could use (``sandbox.limits.wall_seconds=-1``,
    ``sandbox.workers=0``, ``task.infra_retries=-1``): one :class:`InputError` naming the key,
    at compose time, before any suite, model or sandbox starts. ``config``: the composed
    DictConfig (interpolations are left to their targets) or the typed config."""
    from dataclasses import asdict, is_dataclass

    from omegaconf import DictConfig, OmegaConf

    from monitorbench.errors import InputError

    if isinstance(config, DictConfig):
        config = OmegaConf.to_container(config, resolve=False)
    elif is_dataclass(config):
        config = asdict(config)
    for key, value in numeric_settings({k: v for k, v in config.items() if k != "hydra"}):
        rule = limit_rule(key)
        if rule is None:
            continue
        least, inclusive, words = _BOUNDS[rule]
        if value > least or (inclusive and value == least):
            continue
        raise InputError(None, key, f"{value} is not a valid value: it must be {words}",
                         f"set {key} to {words} (e.g. {key}={_example(key, least)})")


def check_axes(config: Any) -> None:
    """Refuse a combination of axes no job can run, as one :class:`InputError` before any
    suite, model or sandbox starts: a model judge (``access.monitor: model``) is the
    generator's model reading each case, so it needs a model generator. ``config``: the
    composed DictConfig or the typed config of one job (a sweep's jobs are checked each)."""
    from monitorbench.errors import InputError

    access, gen = config.access, config.generator
    if (MonitorKind(access.monitor) is MonitorKind.model
            and GeneratorKind(gen.kind) is not GeneratorKind.model):
        raise InputError(f"conf/access/{access.name}.yaml", "access.monitor",
                         f"a model judge needs a model generator, got generator {gen.name!r} "
                         f"(kind {GeneratorKind(gen.kind).value})",
                         "use a model generator (generator=smollm2|openai|recorded), or an "
                         "access whose monitor is code (access=raw_parsed)")


def _example(key: str, least: int) -> Any:
    """The schema's default for ``key`` where it has one (a sensible value), else the least."""
    node: Any = MonitorbenchConfig()
    for part in key.split("."):
        node = node.get(part) if isinstance(node, dict) else getattr(node, part, None)
    return node if isinstance(node, (int, float)) and node > least - 1 else max(least, 1)


def register_configs() -> None:
    """Register the root schema so ``conf/config.yaml`` can name it in its defaults list, and the
    generator schemas under ``schema/generator/`` for the generator YAMLs' defaults.

    No schema is stored in a selectable group: the root's typed fields validate every group's
    YAML as it is merged (``access: AccessConfig``, ...), while a group holds only its YAML
    options, so no schema can be picked as an option (``generator=schema`` fails, listing the
    real ones). A generator YAML merges its provider's schema at its own package first, which
    narrows ``generator: GeneratorConfig`` to that subclass. Unknown keys, ``+key=`` force-adds
    included, are refused by :mod:`monitorbench.compose`.
    """
    from hydra.core.config_store import ConfigStore   # here: the sandbox imports this module

    store = ConfigStore.instance()
    if "monitorbench_schema.yaml" in store.repo:  # registered earlier in this process
        return  # (storing turns every dataclass into a config again: ~0.09 CPU-s per compose)
    store.store(name="monitorbench_schema", node=MonitorbenchConfig)
    for name, schema in GENERATOR_SCHEMAS.items():
        store.store(group="schema/generator", name=name, node=schema)


def identity(config: Any) -> dict[str, Any]:
    """The fields of a config dataclass that change judgments (its class's ``IDENTITY``), as
    plain JSON-able data (enums as values). Run keys and generator identities hash this, so a
    field added to a config changes no key until its class declares it: tests/test_identity.py
    fails until every field is declared in ``IDENTITY`` or ``NOT_IDENTITY``."""
    return {name: _plain(getattr(config, name)) for name in type(config).IDENTITY}


def undeclared_fields(cls: type) -> list[str]:
    """Fields of a config dataclass declared neither in ``IDENTITY`` nor in ``NOT_IDENTITY``
    (and declared names that are not fields): what tests/test_identity.py refuses."""
    names = {f.name for f in fields(cls)}
    declared = set(getattr(cls, "IDENTITY", ())) | set(getattr(cls, "NOT_IDENTITY", ()))
    return sorted(names ^ declared)


def _plain(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        declared = getattr(type(value), "IDENTITY", None)
        names = declared if declared is not None else [f.name for f in fields(value)]
        return {name: _plain(getattr(value, name)) for name in names}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value.value if isinstance(value, Enum) else value
