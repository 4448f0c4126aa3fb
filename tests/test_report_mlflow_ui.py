"""The report in MLflow's own artifact preview: a real `mlflow server`, headless Chromium
(Debian's) loading the logged report.html, its plots and tables rendered, with no link that
names the server's address."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mlflow_server import MlflowServer, mlflow_server  # noqa: F401  (fixture)
from test_report import _sweep

pytestmark = [pytest.mark.service, pytest.mark.slow]


def test_logged_report_html_shows_its_plots_in_the_mlflow_ui(
        mlflow_server: MlflowServer, suites_dir: Path, tmp_path: Path) -> None:  # noqa: F811
    from monitorbench.report import build_report

    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian chromium is not installed (bash scripts/install.sh test does it)")
    from playwright.sync_api import sync_playwright

    # the jobs write to the server's own SQLite store; the report goes through the server
    root = mlflow_server.root
    parent = _sweep(root, suites_dir, "uireport",
                    [["generator=always_accept"], ["generator=schema_check"]], max_tasks=3)
    build_report("uireport", tracking_uri=mlflow_server.url, outputs=root, out=tmp_path / "r",
                 n_resamples=50)
    exp = mlflow_server.client().get_experiment_by_name("uireport").experiment_id
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        page.goto(f"{mlflow_server.url}/#/experiments/{exp}/runs/{parent}/artifacts/"
                  "report/report.html")
        page.wait_for_selector("iframe", timeout=120_000)
        frame = page.frame_locator("iframe").first
        frame.locator("img[alt=concentration]").wait_for(timeout=60_000)
        shown = frame.locator("img[alt]").evaluate_all(
            "els => els.map(e => [e.alt, e.complete ? e.naturalWidth : 0])")
        page.screenshot(path=str(tmp_path / "report_html.png"))
        assert {alt for alt, w in shown if w > 100} == {"tpr_vs_tnr", "per_type",
                                                        "concentration"}
        assert frame.get_by_text("Leaderboard (paper Tables 2/12)").count() == 1
    finally:
        browser.close()
        pw.stop()
