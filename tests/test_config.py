"""Config composition through Hydra's compose API: what users get from the CLI."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest
from cli_in_process import python_m, run_here
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import ConfigKeyError, ValidationError

from monitorbench.config import AccessMode, GeneratorKind, register_configs

CONF = str(Path(__file__).resolve().parents[1] / "conf")
register_configs()


def _compose(overrides: list[str], return_hydra: bool = False):
    with initialize_config_dir(config_dir=CONF, version_base="1.3"):
        return compose("config", overrides=overrides, return_hydra_config=return_hydra)


@functools.cache
def _strict(*overrides: str) -> DictConfig:
    """``compose_config(overrides)``, Hydra's own config included, composed once per test
    process: a compose is a quarter to a third of a CPU-second here, and several tests read the
    same one (each generator YAML, each experiment). Read-only, so no test changes what another
    reads."""
    from monitorbench.compose import compose_config

    cfg = compose_config(list(overrides), return_hydra_config=True)
    OmegaConf.set_readonly(cfg, True)
    return cfg


def test_default_config_composes_to_the_typed_schema() -> None:
    cfg = _compose([])
    assert cfg.generator.kind == GeneratorKind.scripted
    assert cfg.access.tool_call == AccessMode.raw_parsed
    assert [s.name for s in cfg.task.suites] == ["bfcl"]
    assert cfg.sandbox.backend == "bwrap"
    obj = OmegaConf.to_object(cfg)
    assert type(obj).__name__ == "MonitorbenchConfig"


@pytest.mark.parametrize("generator", ["always_accept", "always_reject", "schema_check"])
@pytest.mark.parametrize("access", ["raw_parsed", "parsed", "raw", "no_exec"])
def test_every_generator_and_access_option_composes(generator: str, access: str) -> None:
    cfg = _compose([f"generator={generator}", f"access={access}"])
    assert cfg.generator.name == generator
    assert cfg.access.name == access


def test_g4adv_experiment_is_a_multirun_over_generators_and_access() -> None:
    cfg = _strict("+experiment=g4adv")
    assert cfg.experiment_name == "g4adv"
    assert str(cfg.hydra.mode) == "RunMode.MULTIRUN"
    params = cfg.hydra.sweeper.params
    assert set(params.generator.split(",")) == {"always_accept", "always_reject", "schema_check",
                                                 "grounded_check"}
    assert set(params.access.split(",")) == {"raw_parsed", "parsed", "raw"}
    assert cfg.job.value == "run"
    # README line 1 runs it as is: on the small slices, a sweep of minutes, not a quarter hour.
    assert cfg.task.name == "small"


def test_the_audit_experiment_is_an_audit_job_and_a_wrong_job_is_refused() -> None:
    """The entry point dispatches on the typed ``job`` field, never on the experiment's name."""
    assert _strict("+experiment=audit").job.value == "audit"
    with pytest.raises(Exception, match="job"):
        _compose(["job=audti"])


def test_quickstart_experiment_selects_schema_check() -> None:
    cfg = _strict("+experiment=quickstart")
    assert cfg.generator.baseline == "schema_check"
    assert cfg.experiment_name == "quickstart"


def test_misspelt_key_names_the_full_key() -> None:
    with pytest.raises(ConfigCompositionException) as ei:
        _compose(["sandbox.limits.wall_secondz=3"])
    assert "wall_secondz" in str(ei.value.__cause__ or ei.value)


def test_wrong_enum_value_lists_the_allowed_values() -> None:
    with pytest.raises((ConfigCompositionException, ValidationError)) as ei:
        _compose(["access.tool_call=everything"])
    text = str(ei.value.__cause__ or ei.value)
    assert "everything" in text and "raw_parsed" in text


def test_wrong_type_is_rejected_at_compose_time() -> None:
    with pytest.raises((ConfigCompositionException, ValidationError, ConfigKeyError)) as ei:
        _compose(["sandbox.limits.memory_mb=lots"])
    assert "memory_mb" in str(ei.value.__cause__ or ei.value)


# --- strict composition (monitorbench.compose): typos fail at compose time, listing what exists

@pytest.mark.parametrize("override,key,listed", [
    # the schema is not an option of any group
    ("generator=schema", "generator", ["always_accept", "schema_check"]),
    # a force-add Hydra would accept with struct mode off, and the run would silently ignore
    ("+generatr=always_reject", "generatr", ["did you mean 'generator'", "generator=",
                                             "access=", "+experiment="]),
    ("generatr=always_reject", "generatr", ["did you mean 'generator'", "sandbox"]),
    ("sandbox.limits.wall_secs=5", "sandbox.limits.wall_secs",
     ["did you mean 'sandbox.limits.wall_seconds'", "cpu_seconds", "memory_mb"]),
    ("+sandbox.limits.wall_secs=5", "sandbox.limits.wall_secs", ["wall_seconds"]),
    ("access.tool_call=rawparsed", "access.tool_call", ["rawparsed", "raw_parsed", "parsed"]),
    ("+experiment=nosuch", "experiment", ["g4adv", "quickstart"]),
    # final_state had no view behind it (a bare KeyError at judgment time); it is no mode now
    ("access.state=final_state", "access.state", ["final_state", "record", "record_exec"]),
    ("access=final_state", "access", ["raw_parsed", "no_exec"]),
])
def test_typo_fails_at_compose_time_naming_the_key_and_what_is_allowed(
        override: str, key: str, listed: list[str]) -> None:
    from monitorbench.compose import compose_config
    from monitorbench.errors import InputError

    with pytest.raises(InputError) as ei:
        compose_config([override])
    assert ei.value.field == key
    for word in listed:
        assert word in str(ei.value), (word, str(ei.value))


@pytest.mark.parametrize("overrides,key,near", [
    (["sandbox.backend=bwarp"], "sandbox.backend", "bwrap"),
    (["generator.baseline=schema_chek"], "generator.baseline", "schema_check"),
    (["generator=openai", "generator.request.dialect=open_router"], "generator.request.dialect",
     "openrouter"),
])
def test_a_misspelt_backend_baseline_or_dialect_fails_at_compose_time_with_the_nearest_value(
        overrides: list[str], key: str, near: str) -> None:
    """These were plain strings checked only when the run reached them (the sandbox, the
    baseline, the first request); now the schema's enums refuse a typo before anything runs."""
    from monitorbench.compose import compose_config
    from monitorbench.errors import InputError

    with pytest.raises(InputError) as ei:
        compose_config(overrides)
    assert ei.value.field == key
    assert f"did you mean '{near}'" in ei.value.fix


def test_the_sandbox_providers_and_baselines_accept_exactly_the_schema_enums() -> None:
    from monitorbench.config import Baseline, Dialect, SandboxBackend
    from monitorbench.generation.baselines import BASELINES
    from monitorbench.providers.openai_sdk import DIALECTS
    from monitorbench.sandbox.factory import BACKENDS

    assert BACKENDS == tuple(SandboxBackend) and DIALECTS == tuple(Dialect)
    assert BASELINES == tuple(Baseline)
    cfg = _strict("generator=schema_check")
    assert cfg.sandbox.backend == "bwrap" and str(cfg.generator.baseline) == "schema_check"


def test_plain_hydra_compose_no_longer_offers_the_schema_as_an_option() -> None:
    from hydra.errors import MissingConfigException

    for group in ("generator", "scaffold", "access", "task", "sandbox", "tracking"):
        with pytest.raises(MissingConfigException):
            _compose([f"{group}=schema"])


def test_check_keys_finds_force_added_keys_anywhere_in_the_tree() -> None:
    from monitorbench.compose import unknown_keys

    cfg = _compose(["+generatr=x", "+task.suites.0.nme=bfcl", "+sandbox.limits.wall_secs=5",
                    "+task.suites.0.options.max_tasks=3"])   # options is a free dict: allowed
    assert sorted(unknown_keys(cfg)) == ["generatr", "sandbox.limits.wall_secs",
                                         "task.suites.0.nme"]


@pytest.mark.parametrize("group", ["experiment", "audit"])
def test_every_experiment_and_audit_config_composes_strictly(group: str) -> None:
    from monitorbench.compose import group_options

    names = group_options(group)
    assert names
    for name in names:
        cfg = _strict(f"+{group}={name}")
        assert cfg.generator.name


@pytest.mark.parametrize("group", ["generator", "scaffold", "access", "task", "sandbox",
                                   "tracking"])
def test_every_group_option_composes_strictly(group: str) -> None:
    from monitorbench.compose import group_options

    for name in group_options(group):
        extra = ["generator.dir=/v"] if name in ("replay", "external") else []
        _strict(f"{group}={name}", *extra)


def test_every_access_mode_the_schema_accepts_has_a_view_for_exactly_one_task_type() -> None:
    """A mode the config accepts but no view implements fails only at judgment time (as
    ``final_state`` did, with a bare KeyError); every mode must project for one task type."""
    from monitorbench.config import AccessConfig
    from monitorbench.errors import InputError
    from monitorbench.suites.access import view_for

    for mode in AccessMode:
        served = []
        for task_type in ("tool_call", "state", "code"):
            try:
                view = view_for(AccessConfig(**{task_type: mode}), task_type)
            except InputError:
                continue
            assert view.mode == mode
            served.append(task_type)
        assert len(served) == 1, (mode, served)


# --- one config schema per generator kind and model provider, selected by the YAML's defaults

@pytest.mark.parametrize("generator,schema", [
    ("always_accept", "ScriptedGeneratorConfig"), ("schema_check", "ScriptedGeneratorConfig"),
    ("replay", "ReplayGeneratorConfig"), ("openai", "OpenAIGeneratorConfig"),
    ("local", "OpenAIGeneratorConfig"), ("smollm2", "TransformersGeneratorConfig"),
    ("recorded", "RecordedGeneratorConfig"),
])
def test_each_generator_yaml_selects_its_provider_schema(generator: str, schema: str) -> None:
    cfg = _strict(f"generator={generator}", *(["generator.dir=/v"] if generator == "replay"
                                              else []))
    gen = OmegaConf.to_object(cfg.generator)
    assert type(gen).__name__ == schema
    assert gen.name == generator


def test_provider_fields_are_overridable_on_their_own_provider() -> None:
    from monitorbench.compose import compose_config

    cfg = compose_config(["generator=openai", "generator.model=m2",
                          "generator.base_url=http://h:1/v1", "generator.request.concurrency=7"])
    assert (cfg.generator.model, cfg.generator.base_url) == ("m2", "http://h:1/v1")
    assert cfg.generator.request.concurrency == 7
    external = _strict("scaffold=external", "generator.dir=/v").generator
    assert (external.name, external.kind, external.dir) == ("external", GeneratorKind.replay, "/v")


@pytest.mark.parametrize("override,key,listed", [
    (["generator=always_accept", "generator.model=m"], "generator.model",
     ["this generator's schema is scripted", "'model' belongs to openai, transformers, recorded",
      "baseline"]),
    (["generator=openai", "generator.adapter=/a"], "generator.adapter",
     ["schema is openai", "'adapter' belongs to transformers", "base_url"]),
    (["generator=smollm2", "+generator.base_url=http://h/v1"], "generator.base_url",
     ["schema is transformers", "'base_url' belongs to openai"]),
    (["generator=openai", "generator.provider=recorded"], "generator.provider",
     ["recorded", "fixes openai", "generator=NAME"]),
    (["generator=schema_check", "generator.kind=model"], "generator.kind",
     ["model", "fixes scripted"]),
])
def test_a_field_of_another_provider_is_a_clear_config_error(
        override: list[str], key: str, listed: list[str]) -> None:
    from monitorbench.compose import compose_config
    from monitorbench.errors import InputError

    with pytest.raises(InputError) as ei:
        compose_config(override)
    assert ei.value.field == key
    for word in listed:
        assert word in str(ei.value), (word, str(ei.value))


def test_a_generator_yaml_without_a_schema_names_the_defaults_line_to_add(tmp_path: Path) -> None:
    """A generator YAML written before the per-provider schemas (flat keys, no ``defaults``)."""
    from monitorbench import compose
    from monitorbench.errors import InputError

    conf = tmp_path / "conf"
    shutil.copytree(compose.CONF, conf)
    (conf / "generator" / "my_vllm.yaml").write_text(
        "name: my_vllm\nkind: model\nprovider: openai\nmodel: m\nbase_url: http://h/v1\n")
    old = compose.CONF
    compose.CONF = conf
    try:
        with pytest.raises(InputError) as ei:
            compose.compose_config(["generator=my_vllm"])
    finally:
        compose.CONF = old
    assert ei.value.field == "generator.provider"
    assert str(ei.value.file).endswith("generator/my_vllm.yaml")
    assert "- /schema/generator/NAME@_here_" in str(ei.value)
    assert "'provider' belongs to openai, transformers, recorded" in str(ei.value)


# ---------------------------------------------------------------- limits validated at compose
def _numeric_keys() -> list[str]:
    """Every numeric setting of the schema: the root's, each generator schema's, and each
    per-type limits entry's (dotted keys, as an override names them)."""
    from dataclasses import asdict

    from monitorbench.config import (GENERATOR_SCHEMAS, LIMIT_RULES, MonitorbenchConfig,
                                     numeric_settings)

    keys = {k for k, _ in numeric_settings(asdict(MonitorbenchConfig()))}
    keys |= {k for k in LIMIT_RULES if "*" not in k}   # numbers whose default is None
    for schema in GENERATOR_SCHEMAS.values():
        keys |= {f"generator.{k}" for k, _ in numeric_settings(asdict(schema()))}
    return sorted(keys)


def _limit_cases() -> list[tuple[str, str, list[str]]]:
    """(key, refused value, overrides that select a config having the key) for every limit:
    0 and -1 where the least is above 0, -1 where 0 is allowed."""
    from monitorbench.config import limit_rule

    out = []
    for key in _numeric_keys():
        rule = limit_rule(key)
        if rule is None:
            continue
        pick = (["generator=openai"] if key.startswith("generator.request.")
                else ["generator=openai"] if key.startswith("generator.") else [])
        for value in (["0", "-1"] if rule in ("> 0", ">= 1") else ["-1"]):
            out.append((key, value, pick))
    return out


def test_every_numeric_setting_is_a_checked_limit_or_named_as_none() -> None:
    """A new numeric field must get a rule in LIMIT_RULES (or be listed in NOT_LIMITS)."""
    from monitorbench.config import NOT_LIMITS, limit_rule

    unruled = [k for k in _numeric_keys() if limit_rule(k) is None and k not in NOT_LIMITS]
    assert unruled == []
    assert len(_limit_cases()) > 40


@pytest.mark.parametrize("key,value,pick", _limit_cases())
def test_a_limit_at_zero_or_below_is_refused_by_compose_and_run_naming_the_key(
        key: str, value: str, pick: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """``monitorbench run`` composes the overrides with ``compose_config`` before Hydra runs
    anything (``__main__.check_overrides``) and prints the :class:`InputError` it raises as one
    line, ``field 'KEY': PROBLEM. Fix: FIX``: that one compose (a compose is most of this test's
    time) shows both compose's refusal, its field and fix, and the command's exit status 2."""
    from monitorbench.cli import main as cli_main

    assert cli_main(["run", *pick, f"{key}={value}"]) == 2   # before Hydra runs anything
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
    assert f"field '{key}': " in err[0] and f". Fix: set {key} to" in err[0], err[0]


def test_a_zero_retry_count_or_budget_is_allowed() -> None:
    from monitorbench.compose import compose_config

    for ok in ("task.infra_retries=0", "access.judge_budget=0", "attack.budget=0"):
        compose_config([ok])


def test_python_m_monitorbench_refuses_a_nonsense_limit_before_any_work(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's cases through the Hydra entry point itself: one line, exit 2, no run. The
    first is a real ``python -m monitorbench`` process; the others call what its ``__main__``
    block calls (``run(argv)``) in this process (tests/cli_in_process.py)."""
    import subprocess
    import sys

    root = Path(CONF).parent
    for i, override in enumerate(("sandbox.limits.wall_seconds=-1", "task.infra_retries=-1",
                                  "task.max_tasks_per_type=-1", "access.judge_budget=-1",
                                  "sandbox.workers=0", "attack.budget=-5")):
        args = [override, f"paths.outputs={tmp_path / 'out'}", "tracking.enabled=false",
                f"hydra.run.dir={tmp_path / 'hydra'}"]
        r = (subprocess.run([sys.executable, "-m", "monitorbench", *args], cwd=root,
                            capture_output=True, text=True, timeout=300, check=False) if i == 0
             else run_here(python_m, args, monkeypatch, capsys, cwd=root))
        key, said = override.split("=")[0], r.stdout + r.stderr   # Hydra logs to stdout
        assert r.returncode == 2 and f"field '{key}'" in said, (override, said[-800:])
        assert "Traceback" not in said and not (tmp_path / "out" / "runs").exists()


def test_a_model_judge_with_a_scripted_generator_is_refused_before_any_suite_loads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The generator and access axes must go together: a model judge is the generator's model,
    so ``access=model_judge`` with a baseline generator fails at compose time (it failed only
    after the suites were built and loaded), naming the field and the fix. ``python -m
    monitorbench`` as its ``run(argv)`` in this process (tests/cli_in_process.py)."""
    from monitorbench.cli import main as cli_main
    from monitorbench.compose import compose_config
    from monitorbench.config import check_axes
    from monitorbench.errors import InputError

    with pytest.raises(InputError) as e:
        check_axes(compose_config(["access=model_judge", "generator=schema_check"]))
    assert e.value.field == "access.monitor" and "generator=" in e.value.fix
    check_axes(compose_config(["access=model_judge", "generator=openai"]))   # a model: fine
    assert cli_main(["run", "access=model_judge"]) == 2
    assert "a model judge needs a model generator" in capsys.readouterr().err
    suites = tmp_path / "suites"
    r = run_here(python_m, ["access=model_judge", f"paths.outputs={tmp_path / 'out'}",
                            f"paths.suites={suites}", "tracking.enabled=false",
                            f"hydra.run.dir={tmp_path / 'hydra'}"], monkeypatch, capsys,
                 cwd=Path(CONF).parent)
    said = r.stdout + r.stderr
    assert r.returncode == 2 and "field 'access.monitor'" in said, said[-800:]
    assert not suites.exists() and not (tmp_path / "out" / "runs").exists()


def test_a_sweep_with_a_combination_no_job_can_run_is_refused_before_its_first_job(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The pair check covers a sweep's cross product: ``always_accept`` × ``model_judge`` is the
    sweep's *second* job here, and the sweep must stop before the first one runs. ``python -m
    monitorbench -m ...`` as its ``run(argv)`` in this process, through Hydra's sweep."""
    r = run_here(python_m, ["-m", "generator=openai,always_accept", "access=model_judge,raw",
                            f"paths.outputs={tmp_path / 'out'}", f"paths.suites={tmp_path / 's'}",
                            "tracking.enabled=false", f"hydra.sweep.dir={tmp_path / 'hydra'}"],
                 monkeypatch, capsys, cwd=Path(CONF).parent)
    said = r.stdout + r.stderr
    assert r.returncode == 2 and "a model judge needs a model generator" in said, said[-800:]
    assert "always_accept" in said and "Traceback" not in said
    assert not (tmp_path / "s").exists() and not (tmp_path / "out" / "runs").exists()


@pytest.mark.parametrize("value", ["0", "-3", "nan"])
def test_score_refuses_a_wall_clock_that_is_not_positive(
        value: str, capsys: pytest.CaptureFixture[str]) -> None:
    from monitorbench.score import main as score_main

    with pytest.raises(SystemExit) as e:
        score_main(["some_verifier", "--task", "bfcl.simple_python_1", "--wall-seconds", value])
    assert e.value.code == 2
    assert "--wall-seconds" in capsys.readouterr().err
