"""Task-type knowledge has one home (monitorbench/task_types.py): the config's defaults, the
access projection, the audit's modes and the prompt read it, and a new access mode is one
descriptor entry plus one conf/access YAML."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from monitorbench.audit.checks import ACCESS_MODES
from monitorbench.config import AccessMode, SandboxConfig, TaskConfig
from monitorbench.generation.prompts import CONTRACT
from monitorbench.task_types import TASK_TYPES, type_of_mode

ROOT = Path(__file__).resolve().parents[1]


def test_defaults_and_tables_come_from_the_descriptors() -> None:
    assert TaskConfig().rounds == {t.name: t.rounds for t in TASK_TYPES.values()}
    assert set(SandboxConfig().type_limits) == {t.name for t in TASK_TYPES.values() if t.limits}
    assert {m.value for m in AccessMode} == {m.name for t in TASK_TYPES.values()
                                             for m in t.modes}
    assert {t: [m.value for m in ms] for t, ms in ACCESS_MODES.items()} == \
        {t.name: list(t.audit_modes) for t in TASK_TYPES.values()}
    for t in TASK_TYPES.values():
        assert f"- {t.name}: {t.candidate}" in CONTRACT
        assert t.audit_modes[0] in {m.name for m in t.modes}


def test_every_access_yaml_names_modes_of_the_right_type() -> None:
    for path in sorted((ROOT / "conf" / "access").glob("*.yaml")):
        body = yaml.safe_load(path.read_text())
        for type_name in TASK_TYPES:
            owner = type_of_mode(body[type_name])
            assert owner is not None and owner.name == type_name, (path.name, type_name)


# Runs in a fresh interpreter: the descriptor entry must exist before the config schema is built
# from it, as it does when the entry is written in monitorbench/task_types.py.
FAKE_MODE = r'''
import dataclasses, json, shutil, sys
from pathlib import Path
from types import MappingProxyType
import monitorbench.task_types as tt

t = tt.TASK_TYPES["tool_call"]
fake = tt.AccessModeSpec("names_fake", ("calls",), False, "a test's mode: parsed calls only")
tt.TASK_TYPES = MappingProxyType({**tt.TASK_TYPES,
                                  "tool_call": dataclasses.replace(t, modes=(*t.modes, fake))})

from hydra import compose, initialize_config_dir
from monitorbench.config import register_configs
from monitorbench.launch.run import run_job
from monitorbench.pipeline.prepare import typed_config

out, suites = Path(sys.argv[1]), sys.argv[2]
conf = out / "conf"
shutil.copytree(sys.argv[3], conf)
(conf / "access" / "names_fake.yaml").write_text(
    "name: names_fake\ntool_call: names_fake\nstate: record_exec\ncode: patch_checkout\n")
register_configs()
with initialize_config_dir(config_dir=str(conf), version_base="1.3"):
    cfg = compose("config", overrides=[
        f"paths.outputs={out}", f"paths.suites={suites}", "tracking.enabled=false",
        "generator=always_reject", "task.max_tasks_per_type=8", f"access={sys.argv[4]}"])
print(json.dumps(run_job(typed_config(cfg))))
'''


def _run(tmp_path: Path, suites_dir: Path, access: str) -> dict[str, float]:
    out = tmp_path / access
    r = subprocess.run([sys.executable, "-c", FAKE_MODE, str(out), str(suites_dir),
                        str(ROOT / "conf"), access], capture_output=True, text=True,
                       timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_a_new_access_mode_is_one_descriptor_entry_and_one_yaml(tmp_path: Path,
                                                                 suites_dir: Path) -> None:
    """A fake mode that reveals the parsed calls only judges exactly as ``parsed`` does: the
    same cases set aside as indistinguishable, the same rates."""
    fake, parsed = _run(tmp_path, suites_dir, "names_fake"), _run(tmp_path, suites_dir, "parsed")
    assert fake["cases_indistinguishable"] == parsed["cases_indistinguishable"] > 0
    assert {k: fake[k] for k in ("n_tasks", "n_cases", "tnr", "tpr")} == \
        {k: parsed[k] for k in ("n_tasks", "n_cases", "tnr", "tpr")}
