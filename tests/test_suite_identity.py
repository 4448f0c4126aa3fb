"""A suite's audit is part of its identity: no audit (or another suite's) is an error, and the
run key changes with the audit, so excluded tasks never slip into a run under an old key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline_helpers import compose_cfg
from monitorbench.audit.exclusions import AUDIT_FILE
from monitorbench.audit.prepare import ensure_suite
from monitorbench.compose import compose_config
from monitorbench.errors import InputError
from monitorbench.launch.run import run_job
from monitorbench.launch.run_identity import earlier_keys, key_material, run_key
from monitorbench.pipeline.prepare import typed_config
from monitorbench.score import main as score_main
from monitorbench.suites.format import load_suite


@pytest.fixture()
def suites(tmp_path: Path, suites_dir: Path) -> Path:
    """A private copy of the built, audited BFCL suite (the tests edit its audit.json)."""
    shutil.copytree(suites_dir, tmp_path / "suites")
    return tmp_path / "suites"


def test_a_deleted_audit_is_an_error_naming_the_file_and_the_fix(
        tmp_path: Path, suites: Path, capsys: pytest.CaptureFixture[str]) -> None:
    audit = suites / "bfcl" / AUDIT_FILE
    audit.unlink()
    with pytest.raises(InputError) as e:
        ensure_suite(suites, "bfcl")
    assert e.value.file == str(audit) and "no audit" in e.value.problem
    assert "monitorbench audit suite=bfcl" in e.value.fix
    # every entry point: a job (before judging anything) and `score`
    with pytest.raises(InputError, match="has no audit"):
        run_job(compose_cfg(tmp_path / "out", suites, ["tracking.enabled=false",
                                                       "task.max_tasks_per_type=1"]))
    assert not (tmp_path / "out" / "runs").exists()
    task = sorted(load_suite(suites / "bfcl").tasks)[0]
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "main.py").write_text("def verify(candidate, env):\n    return 'PASS'\n")
    assert score_main([str(tmp_path / "v"), "--task", task, "--suites-dir", str(suites)]) == 2
    assert f"file {audit}" in capsys.readouterr().err


def test_an_audit_of_other_files_is_an_error(suites: Path) -> None:
    audit = suites / "bfcl" / AUDIT_FILE
    body = json.loads(audit.read_text())
    audit.write_text(json.dumps({**body, "suite_hash": "0" * 64}))
    with pytest.raises(InputError) as e:
        ensure_suite(suites, "bfcl")
    assert e.value.file == str(audit) and e.value.field == "suite_hash"


def test_the_run_key_changes_with_the_audit(suites: Path) -> None:
    conf = typed_config(compose_config([]))
    suite = ensure_suite(suites, "bfcl")
    identity = {"name": "always_accept"}
    key = run_key(key_material(conf, identity, [suite]))
    legacy = earlier_keys(key_material(conf, identity, [suite]))[-1]
    audit = suites / "bfcl" / AUDIT_FILE
    body = json.loads(audit.read_text())
    more = [*body["excluded"], {"task_id": sorted(suite.tasks)[0], "source": "bfcl",
                                "reasons": [{"code": "test", "evidence": "excluded by hand"}]}]
    audit.write_text(json.dumps({**body, "excluded": more}))
    assert run_key(key_material(conf, identity, [suite])) != key
    # the key from before audits joined it stays: its judgments are adopted
    assert earlier_keys(key_material(conf, identity, [suite]))[-1] == legacy
