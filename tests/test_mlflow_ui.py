"""README line 1's g4adv sweep (on task=small) logging to a real `mlflow server`: the UI shows it
while it runs and renders its runs and leaderboard after (headless Chromium), and it reads back
through MlflowClient with one parent and twelve scored children. One sweep serves every check: a
second, 4-job sweep for the UI alone cost about 90 s of a CI worker."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mlflow_server import MlflowServer, mlflow_server  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.service, pytest.mark.slow]

def _start_sweep(server: MlflowServer, outputs: Path, suites: Path,
                 args: list[str]) -> subprocess.Popen:
    """Start the sweep as a user does, logging to ``server``. Its console goes to
    ``outputs/console.txt`` (a pipe nobody reads while the browser works could fill and stall
    it), its stderr to ``outputs/stderr.txt``."""
    env = dict(os.environ, MLFLOW_TRACKING_URI=server.url, MONITORBENCH_OUTPUTS=str(outputs))
    outputs.mkdir(parents=True, exist_ok=True)
    with open(outputs / "console.txt", "w") as out, open(outputs / "stderr.txt", "w") as err:
        return subprocess.Popen([sys.executable, "-m", "monitorbench", *args,
                                 f"paths.suites={suites}"], cwd=ROOT, env=env,
                                stdout=out, stderr=err, text=True)


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


HEADLINE = ("ba_norm", "tpr", "tnr", "fpr_h")


def _browser():
    """Playwright driving Debian's chromium (no browser download: only registries are reached)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian chromium is not installed (apt-get install chromium; "
                    "bash scripts/install.sh test does it)")
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    return pw, pw.chromium.launch(executable_path=chromium,
                                  args=["--no-sandbox", "--disable-gpu"])


# The part of each name the runs table shows: the whole name when it fits the box that clips it
# (the cell, or an ancestor that hides overflow or adds an ellipsis), else the widest prefix
# that fits together with the ellipsis the table draws after it.
VISIBLE_JS = """(names) => names.map(name => {
  const hits = [...document.querySelectorAll('body *')].filter(
      e => e.textContent.trim() === name);
  const el = hits[hits.length - 1];   // the innermost element holding exactly the name
  if (!el) return null;
  const left = el.getBoundingClientRect().left;
  let box = el; let w = el.getBoundingClientRect().width;
  while (box && box !== document.body) {   // every clipping box up to the cell bounds it
    const cs = getComputedStyle(box);
    if (cs.overflow !== 'visible' || cs.textOverflow === 'ellipsis' ||
        ['gridcell', 'cell'].includes(box.getAttribute('role'))) {
      w = Math.min(w, box.getBoundingClientRect().right - left); }
    if (['gridcell', 'cell'].includes(box.getAttribute('role'))) break;
    box = box.parentElement;
  }
  const c = document.createElement('canvas').getContext('2d');
  const f = getComputedStyle(el);   // the shorthand `font` can be empty: build it
  c.font = `${f.fontStyle} ${f.fontWeight} ${f.fontSize} ${f.fontFamily}`;
  if (c.measureText(name).width <= w) return name;
  let n = 0;   // cut: the table shows the widest prefix that fits with its ellipsis
  while (n < name.length && c.measureText(name.slice(0, n + 1) + '\u2026').width <= w) n++;
  return name.slice(0, n) + '\u2026';
})"""


def show_headline_columns(page, group_by: str) -> None:
    """The README's recipe, click by click: Columns -> tick the four headline metrics and the
    access tag, then Group by -> an axis tag."""
    page.get_by_role("button", name="Columns").click()
    box = page.get_by_placeholder("Search columns")
    for column in (*HEADLINE, "monitorbench.access"):
        box.fill(column)
        # the tree item whose whole title is the column (not tool_call/<metric>)
        page.locator(".du-bois-light-tree-title").filter(
            has_text=re.compile(f"^{re.escape(column)}$")).first.click()
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Group by").click()
    page.get_by_text(group_by, exact=True).click()
    page.keyboard.press("Escape")


def _running_job_run(server: MlflowServer, experiment: str, proc: subprocess.Popen):
    """The experiment and one of its job runs (not the sweep's parent) while MLflow shows it
    RUNNING, polled until the sweep ``proc`` ends or 300 s pass."""
    client = server.client()
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        exp = client.get_experiment_by_name(experiment)
        runs = client.search_runs([exp.experiment_id]) if exp else []
        running = next((r for r in runs if r.info.status == "RUNNING"
                        and "monitorbench.role" not in r.data.tags), None)
        if running is not None:
            return exp, running
        time.sleep(0.5)
    raise AssertionError("no job run was RUNNING while the sweep worked")


@pytest.mark.timeout(1200)  # builds and audits the small slices not yet built, then 12 jobs
def test_g4adv_sweep_shows_while_it_runs_and_logs_twelve_scored_runs_under_one_parent(
        mlflow_server: MlflowServer, small_suites_dir: Path, tmp_path: Path,  # noqa: F811
        code_slice, agentdojo_one_per_suite) -> None:
    # README line 1's sweep (every generator x access, task=small by default) with one
    # state/code round and 8 of its 32 BFCL tasks (every state and code task kept): this test
    # checks that twelve jobs are logged and scored under one parent and that the search finds
    # what static attacks miss, not the round selection (tests/test_metrics.py,
    # test_experiments.py) nor rates. With 8 tool-call tasks the twelve jobs judge ~2,800 cases,
    # not ~8,300, and grounded_check's adaptive FPR_h still tops its static one (18.6 -> 27.4,
    # 25.5 -> 32.6). The session's code and AgentDojo slices (tests/conftest.py) are
    # task=small's: the sweep rebuilds neither.
    proc = _start_sweep(mlflow_server, tmp_path, small_suites_dir, [
        "+experiment=g4adv", "task.rounds.state=1", "task.rounds.code=1",
        "task.max_tasks_per_type=8"])
    pw, browser = _browser()
    try:
        _check_the_sweep_shows_while_it_runs(mlflow_server, browser, proc, tmp_path)
        proc.wait(timeout=1200)
        console = (tmp_path / "console.txt").read_text()
        stderr = (tmp_path / "stderr.txt").read_text()
        assert proc.returncode == 0, console[-3000:] + stderr[-3000:]
        assert not (tmp_path / "mlflow.db").exists(), "the sweep logged to a local store"
        _check_the_finished_sweep(mlflow_server, browser, console, tmp_path)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        browser.close()
        pw.stop()


def _check_the_sweep_shows_while_it_runs(server: MlflowServer, browser,
                                         proc: subprocess.Popen, tmp_path: Path) -> None:
    """While the sweep works, a job run is RUNNING on the server, and the sweep's parent run,
    logged before its first job, shows in the UI as Running with that job among its children."""
    exp, running = _running_job_run(server, "g4adv", proc)
    parents = server.client().search_runs(
        [exp.experiment_id], filter_string="tags.`monitorbench.role` = 'sweep'")
    assert len(parents) == 1 and parents[0].info.status == "RUNNING"
    page = browser.new_page(viewport={"width": 2200, "height": 1100})
    page.goto(f"{server.url}/#/experiments/{exp.experiment_id}/runs/"
              f"{parents[0].info.run_id}")
    page.wait_for_selector(f"text={parents[0].info.run_name}", timeout=120_000)
    page.screenshot(path=str(tmp_path / "running.png"))
    text = page.inner_text("body")
    assert "Running" in text, "the sweep's page, read while it worked"
    assert running.info.run_name in text, "the running job among the sweep's child runs"


def _check_the_finished_sweep(mlflow_server: MlflowServer, browser, console: str,
                              tmp_path: Path) -> None:
    """Twelve scored jobs under one parent, one number on every surface, and the runs table and
    the leaderboard artifact as the README tells a user to open them."""
    client, _, parent, children = _sweep_runs(mlflow_server, "g4adv")
    assert len(children) == 12
    combos = {(c.data.tags["monitorbench.generator"], c.data.tags["monitorbench.access"])
              for c in children}
    assert combos == {(g, a) for g in ("always_accept", "always_reject", "schema_check",
                                       "grounded_check")
                      for a in ("raw_parsed", "parsed", "raw")}
    for c in children:
        m = c.data.metrics
        assert {"ba_norm", "tpr", "tnr", "fpr_h"} <= set(m), c.info.run_name
        gen = c.data.tags["monitorbench.generator"]
        if gen == "always_accept":
            assert (m["tpr"], m["tnr"]) == (100.0, 0.0), c.info.run_name
        elif gen == "always_reject":
            assert (m["tpr"], m["tnr"]) == (0.0, 100.0), c.info.run_name
            assert m["attack/queries"] == 0, c.info.run_name  # nothing accepted: not searched
        elif gen == "grounded_check":  # the sweep's point: the search finds what static misses
            assert m["attack/fpr_h_adaptive"] > m["attack/fpr_h_static"], c.info.run_name
        assert c.info.status == "FINISHED"
    arts = {a.path for a in client.list_artifacts(parent.info.run_id)}
    assert "leaderboard.md" in arts
    board = Path(client.download_artifacts(parent.info.run_id, "leaderboard.md",
                                           str(tmp_path / "dl"))).read_text()
    assert all(c.info.run_name in board for c in children)
    assert parent.data.tags["monitorbench.n_jobs"] == "12" and parent.info.status == "FINISHED"
    # one number wherever it is read: console, leaderboard.csv, report.md, every rate plot's
    # data and the MLflow metrics the runs table sorts by; intervals in each; the parent holds
    # the best row's metrics (tests/one_number.py)
    from one_number import check_surfaces
    from monitorbench.report import build_report

    rep = build_report("g4adv", tracking_uri=mlflow_server.url, outputs=tmp_path)
    assert rep.out_dir == tmp_path / "reports" / "g4adv" / parent.info.run_id
    rows = check_surfaces(console, Path(parent.data.tags["monitorbench.sweep_dir"]),
                          rep.out_dir, children, client.get_run(parent.info.run_id))
    # no logged or printed interval is a point while its tasks' values differ
    from one_number import check_widths
    runs_dir = tmp_path / "runs"
    assert check_widths(rows, children, client, runs_dir) >= 12 * 4
    _check_the_view(browser, rows, Path(parent.data.tags["monitorbench.sweep_dir"]), tmp_path)
    for c in children:   # each run's page describes its result table
        assert "| all |" in c.data.tags["mlflow.note.content"], c.info.run_name
    # README line 1's twelve names (here with the sample's '·8/type' after them), grouped by
    # generator as the README says, stay apart in the width the table gives them
    # (grounded_check's raw and raw_parsed once read the same), under the headline columns.
    page = browser.new_page(viewport={"width": 2200, "height": 1100})
    page.goto(f"{mlflow_server.url}/#/experiments/{parent.info.experiment_id}/runs")
    page.wait_for_selector(f"text={parent.info.run_name}", timeout=120_000)
    show_headline_columns(page, "monitorbench.generator")
    page.wait_for_selector("text=Group: grounded_check", timeout=60_000)
    names = sorted(c.info.run_name for c in children)
    visible = page.evaluate(VISIBLE_JS, names)
    page.screenshot(path=str(tmp_path / "g4adv_runs.png"))
    assert None not in visible and len(set(visible)) == len(names), visible
    headers = page.locator("[role=columnheader]").all_inner_texts()
    assert all(any(h.strip() == m for h in headers) for m in HEADLINE), headers
    # The parent's leaderboard, logged as an MLflow table, opens in the artifact view with
    # every job ranked by its headline metrics, without adding a column anywhere.
    page.goto(f"{mlflow_server.url}/#/experiments/{parent.info.experiment_id}/runs/"
              f"{parent.info.run_id}/artifacts/leaderboard_table.json")
    page.wait_for_selector("text=ba_norm", timeout=120_000)
    page.screenshot(path=str(tmp_path / "leaderboard.png"))
    board = page.inner_text("body")
    assert all(n in board for n in names)
    assert all(m in board for m in ("rank", *HEADLINE, "tasks"))


def _check_the_view(browser, rows: list[dict[str, str]], sweep_dir: Path, tmp_path: Path) -> None:
    """``monitorbench view`` on the sweep, in Chromium: its front page ranks the runs with the
    leaderboard's figures on the common pool (one number), and the best run's page opens a task,
    filters to its wrong verdicts and reads a wrong case, its candidate and the verifier's code
    (grounded_check's own source: a baseline writes no generation trace)."""
    from view_browser import read_a_wrong_case
    from monitorbench.view.site import build_site, start_server

    index = build_site(sweep_dir, tmp_path / "view")
    server, url = start_server(index.parent)
    try:
        page = browser.new_page()
        page.goto(url)
        assert "Ranked on the common pool" in page.inner_text("body")
        best = rows[0]
        link = page.locator(f"a[href='r/{best['run_key']}/index.html']")
        ranked = link.locator("xpath=ancestor::tr").locator("td").all_inner_texts()
        assert ranked[0] == best["rank"] and ranked[6] == best["pool_tasks"], ranked
        assert ranked[2].split()[0] == f"{float(best['ba_norm']):.1f}", (ranked, best)
        case = read_a_wrong_case(page, url.rsplit("/", 1)[0] + f"/r/{best['run_key']}/index.html")
        assert case.outcome == {"PASS": "F", "FAIL": "P"}[case.label], case
        assert "calls" in case.candidate or "patch" in case.candidate, case
        source = ROOT / "monitorbench" / "generation" / "baseline_verifiers" / "grounded_check.py"
        assert case.code is not None and case.code.strip() == source.read_text().strip()
        assert case.trace == [] and case.printed == ""
    finally:
        server.shutdown()
