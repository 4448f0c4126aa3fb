"""Sweeps logging to a real `mlflow server`: the UI renders the runs (headless Chromium), and the
full g4adv experiment reads back through MlflowClient with one parent and nine scored children."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from mlflow_server import MlflowServer, mlflow_server  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.service, pytest.mark.slow]

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--virtual-time-budget=15000", "--window-size=1400,900"]


def _sweep(server: MlflowServer, outputs: Path, suites: Path, args: list[str]) -> None:
    env = dict(os.environ, MLFLOW_TRACKING_URI=server.url, MONITORBENCH_OUTPUTS=str(outputs))
    env.pop("MONITORBENCH_PARENT_RUN_ID", None)
    out = subprocess.run([sys.executable, "-m", "monitorbench", *args, f"paths.suites={suites}"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=2300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert not (outputs / "mlflow.db").exists(), "the sweep logged to a local store, not the server"


def _sweep_runs(server: MlflowServer, experiment: str):
    client = server.client()
    exp = client.get_experiment_by_name(experiment)
    assert exp is not None, f"experiment {experiment!r} not on the server"
    parents = client.search_runs([exp.experiment_id],
                                 filter_string="tags.`monitorbench.role` = 'sweep'")
    assert len(parents) == 1
    parent = parents[0]
    children = client.search_runs(
        [exp.experiment_id], filter_string=f"tags.mlflow.parentRunId = '{parent.info.run_id}'")
    return client, exp, parent, children


def test_runs_page_renders_the_sweep_runs(mlflow_server: MlflowServer, suites_dir: Path,  # noqa: F811
                                          tmp_path: Path) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian chromium is not installed (apt-get install chromium; "
                    "bash scripts/install.sh test does it)")
    _sweep(mlflow_server, tmp_path / "out", suites_dir,
           ["-m", "generator=always_accept,always_reject", "task.max_tasks_per_type=5",
            "experiment_name=ui_check"])
    _, exp, parent, children = _sweep_runs(mlflow_server, "ui_check")
    assert len(children) == 2

    def render(page: str, screenshot: Path) -> str:
        out = subprocess.run(
            [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'chromium'}",
             f"--screenshot={screenshot}", "--dump-dom", f"{mlflow_server.url}/#/{page}"],
            capture_output=True, text=True, timeout=180)
        assert out.returncode == 0, out.stderr[-2000:]
        assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        return out.stdout

    # The runs list shows the sweep's parent run; its children sit collapsed beneath it.
    runs_page = render(f"experiments/{exp.experiment_id}/runs", tmp_path / "runs.png")
    assert parent.info.run_name in runs_page
    assert (tmp_path / "runs.png").stat().st_size > 20_000  # a rendered page, not a blank one
    # The compare page renders the child runs side by side, by name.
    ids = json.dumps([c.info.run_id for c in children])
    compare = render(f"compare-runs?runs={quote(ids)}&experiments="
                     f"{quote(json.dumps([exp.experiment_id]))}", tmp_path / "compare.png")
    missing = [c.info.run_name for c in children if c.info.run_name not in compare]
    assert not missing, f"child runs not rendered on the compare page: {missing}"


@pytest.mark.timeout(2400)  # builds and audits the AgentDojo and code slices, then 9 jobs
def test_full_g4adv_experiment_logs_nine_scored_runs_under_one_parent(
        mlflow_server: MlflowServer, suites_dir: Path, tmp_path: Path) -> None:  # noqa: F811
    # One state/code round instead of the default three: this test checks that nine jobs are
    # logged and scored, not the round selection (tests/test_metrics.py, test_experiments.py),
    # and the two extra rounds cost ~40 s per job (bench/rounds_walltime.py).
    _sweep(mlflow_server, tmp_path, suites_dir, ["+experiment=g4adv", "task.rounds_state_code=1"])
    client, _, parent, children = _sweep_runs(mlflow_server, "g4adv")
    assert len(children) == 9
    combos = {(c.data.tags["monitorbench.generator"], c.data.tags["monitorbench.access"])
              for c in children}
    assert combos == {(g, a) for g in ("always_accept", "always_reject", "schema_check")
                      for a in ("raw_parsed", "parsed", "raw")}
    for c in children:
        m = c.data.metrics
        assert {"ba_norm", "tpr", "tnr", "fpr_h"} <= set(m), c.info.run_name
        gen = c.data.tags["monitorbench.generator"]
        if gen == "always_accept":
            assert (m["tpr"], m["tnr"]) == (100.0, 0.0), c.info.run_name
        elif gen == "always_reject":
            assert (m["tpr"], m["tnr"]) == (0.0, 100.0), c.info.run_name
        assert c.info.status == "FINISHED"
    arts = {a.path for a in client.list_artifacts(parent.info.run_id)}
    assert "leaderboard.md" in arts
    board = Path(client.download_artifacts(parent.info.run_id, "leaderboard.md",
                                           str(tmp_path / "dl"))).read_text()
    assert all(c.info.run_name in board for c in children)
    assert parent.data.metrics["n_jobs"] == 9 and parent.info.status == "FINISHED"
