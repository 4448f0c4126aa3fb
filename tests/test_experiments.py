"""Experiment configs compose with their sweeps; judgment rounds > 1 reach the scored records."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from pipeline_helpers import ROOT, compose_cfg
from monitorbench.launch.run import run_job


def _compose(overrides: list[str]):
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        return compose("config", overrides=overrides, return_hydra_config=True)


@pytest.mark.parametrize("name,params,fixed", [
    # Table 2: the embedded model endpoint in the common harness (Pi) beside the baselines
    ("main", {"generator": {"local", "always_accept", "always_reject", "schema_check"}},
     {"scaffold": "pi", "task": "mixed_small"}),
    # Table 3: one endpoint (the embedded llama.cpp server) across the real harness programs
    ("harness", {"scaffold": {"pi", "mini_swe", "opencode", "codex", "claude_code", "openclaw"}},
     {"generator": "local", "task": "mixed_small"}),
    ("effort", {"generator": {"schema_check"}, "scaffold": {"oneshot", "agent"},
                "generator.condition.effort": {"LOW", "HIGH"}}, {}),
])
def test_experiment_is_a_multirun_with_the_expected_sweep(name: str, params: dict,
                                                          fixed: dict) -> None:
    cfg = _compose([f"+experiment={name}"])
    assert cfg.experiment_name == name
    assert str(cfg.hydra.mode) == "RunMode.MULTIRUN"
    swept = {k: set(str(v).split(",")) for k, v in cfg.hydra.sweeper.params.items()}
    assert swept == params
    assert cfg.task.max_tasks_per_type is not None  # small enough for 2 cores by default
    for key, value in fixed.items():
        assert cfg[key].name == value


def test_every_swept_value_composes_into_a_job_config() -> None:
    for name in ("main", "harness", "effort"):
        params = _compose([f"+experiment={name}"]).hydra.sweeper.params
        for key, values in params.items():
            for v in str(values).split(","):
                cfg = _compose([f"+experiment={name}", f"{key}={v}"])
                node = cfg
                for part in key.split("."):
                    node = node[part]
                assert (node.name if hasattr(node, "name") else str(node)) == v


def test_sweep_list_is_configurable_for_model_generators() -> None:
    cfg = _compose(["+experiment=effort", "hydra.sweeper.params.generator='smollm2,openai'"])
    assert cfg.hydra.sweeper.params.generator == "smollm2,openai"
    model = _compose(["+experiment=effort", "generator=smollm2",
                      "generator.condition.effort=HIGH"])
    assert model.generator.kind.value == "model" and model.generator.condition.effort.value == "HIGH"


def test_rounds_are_judged_and_the_median_round_is_scored(tmp_path: Path,
                                                          suites_dir: Path) -> None:
    cfg = compose_cfg(tmp_path, suites_dir, ["generator=schema_check", "task.rounds.tool_call=3",
                                             "task.max_tasks_per_type=5",
                                             "tracking.enabled=false"])
    m = run_job(cfg)
    (run_dir,) = (tmp_path / "runs").iterdir()
    stored = [json.loads(x) for x in (run_dir / "judgments.jsonl").read_text().splitlines()]
    per_case = Counter((r["task_id"], r["case_id"]) for r in stored)
    assert set(per_case.values()) == {3}                       # every case judged in 3 rounds
    assert sorted({r["round"] for r in stored}) == [1, 2, 3]
    scored = (run_dir / "judgments.csv").read_text().splitlines()[1:]
    assert len(scored) == len(per_case) == m["n_cases"]       # one round scored per case
    # every type is pooled by one rule; a deterministic verifier's three rounds tie: round 1
    header = (run_dir / "judgments.csv").read_text().splitlines()[0].split(",")
    assert {row.split(",")[header.index("round")] for row in scored} == {"1"}
    assert m["cache/judgments_new"] == 3 * m["n_cases"]


def test_smollm2_experiment_runs_the_real_model_on_every_task_type() -> None:
    cfg = _compose(["+experiment=smollm2"])
    assert cfg.generator.name == "local" and cfg.generator.kind.value == "model"
    assert cfg.generator.serve == "xllamacpp" and cfg.generator.provider == "openai"
    assert cfg.scaffold.name == "agent" and cfg.scaffold.max_steps == 4
    assert set(cfg.task.task_types) == {"tool_call", "state", "code"}
    assert cfg.task.max_tasks_per_type == 2
    # the scaffold stays sweepable and keeps the experiment's step limit
    challenge = _compose(["+experiment=smollm2", "scaffold=challenge"])
    assert challenge.scaffold.name == "challenge" and challenge.scaffold.max_steps == 4


def _documented_narrowed_sweep() -> list[str]:
    """The README's own narrowing command (section "Experiments and reports"), as arguments."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (line,) = [x for x in readme.splitlines()
               if x.startswith("python -m monitorbench +experiment=g4adv generator=")]
    return line.split()[3:]


def test_the_documented_command_narrows_g4adv_to_two_generators_and_one_access_setting(
        tmp_path: Path, suites_dir: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A newcomer's `hydra.sweeper.params.generator=a,b` failed; the README documents naming the
    axis instead. Run the documented line (two tasks per type, untracked) and read which jobs
    Hydra launched: exactly generators × the one access setting, on the one task type."""
    from cli_in_process import python_m, run_here

    args = _documented_narrowed_sweep()
    generators = set(next(a for a in args if a.startswith("generator=")).split("=")[1].split(","))
    assert len(generators) == 2
    r = run_here(python_m, [*args, "task.max_tasks_per_type=2", "tracking.enabled=false",
                            f"paths.outputs={tmp_path / 'out'}", f"paths.suites={suites_dir}",
                            f"hydra.sweep.dir={tmp_path / 'sweep'}"], monkeypatch, capsys)
    assert r.returncode in (0, None), (r.stdout + r.stderr)[-1500:]
    jobs = sorted(d for d in (tmp_path / "sweep").iterdir() if d.is_dir())
    launched = []
    for job in jobs:
        overrides = (job / ".hydra" / "overrides.yaml").read_text()
        gen = re.search(r"- generator=(\w+)", overrides).group(1)
        acc = re.search(r"- access=(\w+)", overrides).group(1)
        launched.append((gen, acc))
    assert sorted(launched) == sorted((g, "parsed") for g in generators), launched
    runs = list((tmp_path / "out" / "runs").iterdir())
    assert len(runs) == 2
    for run in runs:
        metrics = json.loads((run / "metrics.json").read_text())
        assert "tool_call/ba_norm" in metrics, sorted(metrics)
        assert not [k for k in metrics if k.startswith(("state/", "code/"))], sorted(metrics)
