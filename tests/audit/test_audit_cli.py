"""The audit command end to end: CLI, reports on disk, audit.json, and its own MLflow run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitorbench.audit.__main__ import main, overrides
from monitorbench.errors import InputError


@pytest.mark.slow  # ~25 s, most of it creating the MLflow SQLite store
def test_cli_audits_writes_exclusions_and_logs_to_mlflow(tmp_path: Path, suites_dir: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    from mlflow.tracking import MlflowClient

    from monitorbench.audit.exclusions import AUDIT_FILE
    from monitorbench.audit.prepare import build_suite

    out = tmp_path / "out"
    suites = tmp_path / "suites"
    build_suite(suites, "bfcl", {"tasks_per_category": 2})
    uri = f"sqlite:///{out}/mlflow.db"
    rc = main(["suite=bfcl", f"paths.outputs={out}", f"paths.suites={suites}",
               f"tracking.tracking_uri={uri}", "task.suites=[{name: bfcl, options: {tasks_per_category: 2}}]"])
    assert rc == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["tasks"] == 8 and metrics["bfcl/C1_passed"] == 8
    root = next(suites.glob("bfcl-*"))
    body = json.loads((root / AUDIT_FILE).read_text())
    assert len(body["excluded"]) == metrics["tasks_excluded"]
    assert list(out.glob("audit/bfcl-*/*/report.md"))
    client = MlflowClient(tracking_uri=uri)
    exp = client.get_experiment_by_name("audit")
    run, = client.search_runs([exp.experiment_id])
    assert run.data.metrics["tasks"] == 8
    assert run.data.metrics["mutation_configurations"] == metrics["bfcl/mutation_configurations"]
    names = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert {"report.json", "report.md", "decisions.jsonl", AUDIT_FILE} <= names


def test_cli_requires_a_known_suite() -> None:
    with pytest.raises(InputError) as e:
        overrides(["suite=nosuch"])
    assert e.value.field == "suite" and "bfcl" in e.value.fix
    with pytest.raises(InputError):
        overrides(["tracking=off"])


def test_cli_bad_override_is_one_readable_error(capsys: pytest.CaptureFixture) -> None:
    assert main(["suite=bfcl", "task.no_such_key=1"]) == 2
    err = capsys.readouterr().err
    assert "no_such_key" in err and "Fix:" in err


def test_help_names_the_checks_and_suites(capsys: pytest.CaptureFixture) -> None:
    import subprocess
    import sys

    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "suite=NAME" in out and "C7 instruction fidelity" in out
    assert "suites: agentdojo, bfcl, code" in out
    proc = subprocess.run([sys.executable, "-m", "monitorbench.audit", "--help"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0 and proc.stdout == out, proc.stderr
