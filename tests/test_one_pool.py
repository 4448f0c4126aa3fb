"""One pool per page on a real sweep, cheaply: two verifier writers × two access settings on
three BFCL tasks, with the adaptive attacker, a real sqlite MLflow store and the real report.
``parsed`` sets a task aside, so two rows score more than the common pool and keep own-pool
figures. tests/one_number.py checks every surface (the same check README line 1's sweep gets in
tests/test_mlflow_ui.py): headline, adaptive FPR_h, tasks broken and per-type rates are the
leaderboard CSV's in the console, the report, the runs' metrics and their descriptions.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from one_number import check_surfaces

ROOT = Path(__file__).resolve().parents[1]


def test_every_figure_of_a_sweep_is_on_one_pool_on_every_surface(
        tmp_path: Path, suites_dir: Path, capfd: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from mlflow.tracking import MlflowClient

    from monitorbench.report import build_report

    uri = f"sqlite:///{tmp_path}/mlflow.db"
    env = {**os.environ, "MONITORBENCH_OUTPUTS": str(tmp_path), "MLFLOW_TRACKING_URI": uri}
    r = subprocess.run([sys.executable, "-m", "monitorbench", "+experiment=g4adv", "task=bfcl",
                        "task.max_tasks_per_type=3", f"paths.suites={suites_dir}",
                        "generator=schema_check,grounded_check", "access=raw_parsed,parsed"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    client = MlflowClient(uri)
    exp = client.get_experiment_by_name("g4adv")
    (parent,) = client.search_runs([exp.experiment_id],
                                   filter_string="tags.`monitorbench.role` = 'sweep'")
    children = client.search_runs(
        [exp.experiment_id], filter_string=f"tags.mlflow.parentRunId = '{parent.info.run_id}'")
    monkeypatch.delenv("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", raising=False)
    capfd.readouterr()
    rep = build_report("g4adv", tracking_uri=uri, outputs=tmp_path)
    assert "Downloading artifacts" not in "".join(capfd.readouterr())   # no tqdm bars
    rows = check_surfaces(r.stdout, Path(parent.data.tags["monitorbench.sweep_dir"]),
                          rep.out_dir, children, client.get_run(parent.info.run_id))
    assert len(rows) == 4 and sum(bool(x["more_than_pool"]) for x in rows) == 2
    assert any(x.get("attack/tasks_broken_adaptive") not in (None, "") for x in rows)
