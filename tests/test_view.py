"""``monitorbench view``: pages built from what real runs wrote, read back as a user would.

Two real jobs on the BFCL suite: the ``schema_check`` baseline, and a replayed verifier whose code
tries to break out of the page. The pages must list every judged case with its label and outcome,
offer the wrong-verdict filter, and show candidates, verifier code and a generation trace escaped
(a candidate or a model's code is hostile text, never markup).
"""

from __future__ import annotations

import html
import http.server
import json
import re
import shutil
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from pipeline_helpers import ROOT, compose_cfg
from view_browser import read_a_wrong_case
from monitorbench.errors import InputError
from monitorbench.launch.run import run_job
from monitorbench.view.render import case_row, readable, render_candidate, trace_section
from monitorbench.view.load import CaseView
from monitorbench.view.site import build_site, start_server

HOSTILE = "</pre><script>alert('verifier')</script>"
VERIFIER = f'''# {HOSTILE}
def verify(candidate, env):
    """Rejects everything: every valid case is then a wrong verdict."""
    print("saw", candidate["raw"][:30], {HOSTILE!r})
    return "FAIL"
'''


def _run_dir(outputs: Path) -> Path:
    (run_dir,) = [p for p in (outputs / "runs").iterdir() if p.is_dir()]
    return run_dir


def _judgments(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "judgments.jsonl").read_text().splitlines()]


def _cases(suites: Path, task_id: str) -> dict[str, dict]:
    path = suites / "bfcl" / "hidden" / task_id / "cases.jsonl"
    return {c["case_id"]: c for c in map(json.loads, path.read_text().splitlines())}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, suites_dir: Path) -> dict[str, Path]:
    """A schema_check run, and a replay run of a hostile always-FAIL verifier for its first
    task (its second task has no verifier: no submission)."""
    base = tmp_path_factory.mktemp("view")
    small = ["task.max_tasks_per_type=2", "tracking.enabled=false"]
    run_job(compose_cfg(base / "schema", suites_dir, ["generator=schema_check", *small]))
    schema = _run_dir(base / "schema")
    first = sorted({j["task_id"] for j in _judgments(schema)})[0]
    (base / "verifiers" / first).mkdir(parents=True)
    (base / "verifiers" / first / "main.py").write_text(VERIFIER)
    run_job(compose_cfg(base / "replay", suites_dir, [
        "generator=replay", f"generator.dir={base / 'verifiers'}", *small]))
    return {"schema": schema, "replay": _run_dir(base / "replay"), "base": base,
            "first": Path(first)}


def test_a_task_page_lists_every_case_with_label_outcome_and_escaped_candidate(
        runs: dict[str, Path], suites_dir: Path) -> None:
    index = build_site(runs["schema"], runs["base"] / "site-schema")
    judgments = _judgments(runs["schema"])
    task_ids = sorted({j["task_id"] for j in judgments})
    front = index.read_text()
    assert all(f"t/{t}.html" in front for t in task_ids)
    for task_id in task_ids:
        page = (index.parent / "t" / f"{task_id}.html").read_text()
        cases = _cases(suites_dir, task_id)
        rows = re.findall(r"<tr class='case (\w+)'.*?</tr>", page, re.S)
        mine = [j for j in judgments if j["task_id"] == task_id]
        assert len(rows) == len(mine) > 0
        for j in mine:
            row = re.search(rf"<tr class='case \w+'[^>]*><td>{re.escape(j['case_id'])}</td>"
                            r"(.*?)</tr>", page, re.S).group(1)
            cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
            assert cells[:4] == [j["group"], j["category"], j["label"], j["outcome"]]
            assert html.escape(cases[j["case_id"]]["candidate"]["raw"], quote=True) in row
        assert "id='wrong-only'" in page and "r.dataset.wrong==='1'" in page
        wrong = sum(1 for j in mine if j["outcome"] != ("P" if j["label"] == "PASS" else "F"))
        assert page.count("data-wrong='1'") == wrong
        assert "<h3 id='verifier-code'>main.py</h3>" in page    # schema_check's own main.py


def test_hostile_verifier_code_is_shown_escaped_and_no_submission_says_so(
        runs: dict[str, Path]) -> None:
    index = build_site(runs["replay"], runs["base"] / "site-replay")
    task_ids = sorted({j["task_id"] for j in _judgments(runs["replay"])})
    first = str(runs["first"])
    page = (index.parent / "t" / f"{first}.html").read_text()
    assert html.escape(HOSTILE, quote=True) in page and page.count("<script>") == 1
    assert page.count("data-wrong='1'") == sum(
        1 for j in _judgments(runs["replay"]) if j["task_id"] == first and j["label"] == "PASS")
    mine = [j for j in _judgments(runs["replay"]) if j["task_id"] == first]
    printed = [json.loads(line) for line in
               (runs["replay"] / "judgments.outputs.jsonl").read_text().splitlines()]
    assert sorted(p["key"][1] for p in printed) == sorted(j["case_id"] for j in mine)
    assert page.count("<details class='printed'>") == len(mine)
    for out in printed:
        assert out["stdout"].startswith("saw ") and HOSTILE in out["stdout"]
        assert f"<pre>{html.escape(out['stdout'], quote=True)}</pre>" in page
    other = (index.parent / "t" / f"{[t for t in task_ids if t != first][0]}.html").read_text()
    assert "generation: <b>no_submission</b>" in other and "verifier-code" not in other
    front = index.read_text()      # the run's task list says why a task has no verifier
    assert html.escape(f"no_submission: no {task_ids[1] if task_ids[0] == first else task_ids[0]}"
                       f"/main.py under", quote=True) in front


def test_a_generation_trace_is_shown_event_by_event_escaped(runs: dict[str, Path]) -> None:
    """The replay run's cache entry given the trace a model generation leaves."""
    cache = runs["base"] / "replay" / "cache" / "generations"
    (entry,) = [p.parent for p in cache.glob("*/result.json")
                if json.loads(p.read_text())["status"] == "submitted"]
    events = [{"event": "start", "task": str(runs["first"])},
              {"event": "model", "step": 1, "tokens": 384, "reply": f"no action {HOSTILE}\n...",
               "counters": {"model_calls": 1, "prompt_tokens": 900}},
              {"event": "end", "reason": "step_limit", "submitted": True}]
    (entry / "trace.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    index = build_site(runs["replay"], runs["base"] / "site-trace")
    page = (index.parent / "t" / f"{runs['first']}.html").read_text()
    trace = page[page.index("<h2 id='trace'>"):]
    assert re.findall(r"<tr class='event'><td>\d+</td><td>(\w+)</td>", trace) == [
        "start", "model", "end"]
    assert "reason=step_limit" in trace and "step=1, tokens=384" in trace
    assert "<td class='note'>model_calls=1, prompt_tokens=900</td>" in trace
    assert html.escape(HOSTILE, quote=True) in trace
    assert page.count("<script>") == 1          # the page's own filter code, nothing else


def test_a_sweep_folder_lists_its_runs_and_links_their_pages(runs: dict[str, Path]) -> None:
    sweep = runs["base"] / "sweep"
    for i, key in enumerate(("schema", "replay")):
        (sweep / str(i)).mkdir(parents=True)
        (sweep / str(i) / "results.txt").write_text(f"results: {runs[key]}  (metrics.json)\n")
    index = build_site(sweep)
    front = index.read_text()
    assert index == sweep / "view" / "index.html"
    for key in ("schema", "replay"):
        link = f"r/{runs[key].name}/index.html"
        assert link in front and (index.parent / link).is_file()
    assert front.index("schema_check") < front.index("replay")
    # no leaderboard.csv (an unfinished sweep): the figures are named as each run's own, and
    # the schema run's 2 tasks beside the replay run's 2 are one pool size
    assert "Each run's figures over its own tasks" in front
    run_page = (index.parent / f"r/{runs['schema'].name}/index.html").read_text()
    assert "over this run's own 2 tasks" in run_page


def test_a_path_that_is_no_run_is_refused_naming_the_fix(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a run directory.*outputs/runs/<run_key>"):
        build_site(tmp_path)


def test_a_hostile_candidate_cell_is_text() -> None:
    case = CaseView({"case_id": "x.c00", "group": "attack", "category": "a'><b>",
                     "label": "FAIL", "outcome": "P", "reason": "", "detail": HOSTILE},
                    {"raw": HOSTILE, "calls": [{"name": HOSTILE, "arguments": {}}]})
    row = case_row(case)
    assert "<script>" not in row and "data-category='a&#x27;&gt;&lt;b&gt;'" in row
    assert "<script>" not in trace_section([{"event": "<script>", "x": HOSTILE}])


def test_the_command_serves_the_pages_and_prints_the_url(runs: dict[str, Path]) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "monitorbench.cli", "view",
                             str(runs["schema"]), "--out", str(runs["base"] / "served"),
                             "--serve"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/index\.html", line).group(0)
        with urllib.request.urlopen(url, timeout=10) as reply:
            assert "<h2>Tasks</h2>" in reply.read().decode()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_in_chromium_a_task_page_filters_to_wrong_verdicts_and_reads_case_and_code(
        runs: dict[str, Path]) -> None:
    """A real browser on the served pages: open the run, open a task, filter to wrong verdicts,
    open a wrong case's candidate and what the verifier printed on it, read the verifier's code
    as the text it is."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian chromium is not installed (bash scripts/install.sh test does it)")
    from playwright.sync_api import sync_playwright

    index = build_site(runs["replay"], runs["base"] / "site-browser")
    server, url = start_server(index.parent)
    first = str(runs["first"])
    wrong = [j for j in _judgments(runs["replay"]) if j["task_id"] == first
             and j["label"] == "PASS"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium,
                                     args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            case = read_a_wrong_case(page, url, task=first)
            assert case.n_wrong == len(wrong) and (case.label, case.outcome) == ("PASS", "F")
            assert "raw" in case.candidate
            assert HOSTILE in case.printed                        # its output, as text
            assert case.code.rstrip("\n") == VERIFIER.rstrip("\n")   # the hostile code, as text
            assert page.evaluate("document.querySelectorAll('script').length") == 1
        finally:
            browser.close()
            server.shutdown()


def test_a_score_json_output_is_viewed_with_its_candidates_and_verifier_code(
        runs: dict[str, Path], suites_dir: Path) -> None:
    """`score --json` saved to a file: its cases, the suite's candidates and the scored code."""
    first = str(runs["first"])
    verifier = runs["base"] / "verifiers" / first
    scored = subprocess.run([sys.executable, "-m", "monitorbench.cli", "score", str(verifier),
                             "--task", first, "--json", "--suites-dir", str(suites_dir),
                             "--outputs-dir", str(runs["base"] / "score-out")],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert scored.returncode == 0, scored.stderr
    saved = runs["base"] / "scored.jsonl"
    saved.write_text(scored.stdout)
    index = build_site(saved, suites_root=suites_dir, verifier=verifier)
    assert index == runs["base"] / "scored.jsonl.view" / "index.html"
    page = (index.parent / "t" / f"{first}.html").read_text()
    lines = [json.loads(line) for line in scored.stdout.splitlines()][:-1]
    cases = _cases(suites_dir, first)
    assert page.count("<tr class='case ") == len(lines) == len(cases)
    for line in lines:
        assert f"<td>{line['case_id']}</td>" in page
        assert html.escape(cases[line["case_id"]]["candidate"]["raw"], quote=True) in page
    assert page.count("data-wrong='1'") == sum(1 for c in cases.values() if c["label"] == "PASS")
    assert html.escape(HOSTILE, quote=True) in page and page.count("<script>") == 1
    with pytest.raises(InputError, match="no summary line"):
        build_site(_write(runs["base"] / "cut.jsonl", scored.stdout.splitlines()[0]))


def _write(path: Path, text: str) -> Path:
    path.write_text(text + "\n")
    return path


def test_an_interaction_record_reads_as_an_outline_with_tool_output_as_text() -> None:
    """A state candidate's tool output is multi-line text: shown as its lines, not as one JSON
    string of escapes; short values stay JSON so "1" and 1 differ."""
    record = [{"name": "get_webpage", "arguments": {"url": "a.com", "n": 1, "s": "1"},
               "output": "line one\n<INFORMATION>\nline three"}]
    assert readable(record) == (
        '-\n  name: "get_webpage"\n  arguments:\n    url: "a.com"\n    n: 1\n    s: "1"\n'
        '  output: |\n      line one\n      <INFORMATION>\n      line three')
    cell = render_candidate({"calls": record, "final_message": "done"})
    assert "      &lt;INFORMATION&gt;\n" in cell and "<b>final_message</b><pre>done</pre>" in cell


MODEL_VERIFIER = '''def verify(candidate, env):
    """Accepts a candidate with at least one call."""
    return "PASS" if candidate.get("calls") else "FAIL"
'''


class _ScriptedModel:
    """An OpenAI-compatible chat endpoint whose replies are the agent scaffold's actions, one per
    turn: write a verifier, self-test it, submit. A test double for the model only: the scaffold,
    sandbox, trace and judging that write what the viewer reads are the real ones."""

    def __init__(self, candidate: dict) -> None:
        replies = ["```write_verifier\n" + MODEL_VERIFIER + "```",
                   f"```self_test PASS\n{json.dumps(candidate)}\n```", "```submit\n\n```"]

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return None

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
                text = replies[min(turn, len(replies) - 1)]
                payload = json.dumps({
                    "id": "x", "object": "chat.completion", "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 20}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


def test_a_model_written_verifier_shows_its_real_generation_trace(
        tmp_path: Path, suites_dir: Path, runs: dict[str, Path]) -> None:
    """The agent scaffold's own trace of a (scripted) model: turns, the draft, the self-test
    and how it ended, on the task's page with the code it submitted."""
    first = str(runs["first"])
    gold = next(c for c in _cases(suites_dir, first).values() if c["group"] == "gold")
    model = _ScriptedModel(gold["candidate"])
    try:
        run_job(compose_cfg(tmp_path, suites_dir, [
            "generator=openai", f"generator.base_url={model.base_url}", "generator.model=m",
            "generator.api_key_env=null", "generator.request.dialect=plain", "scaffold=agent",
            "task.max_tasks_per_type=1", "tracking.enabled=false"]))
    finally:
        model.httpd.shutdown()
    (run_dir,) = (tmp_path / "runs").iterdir()
    (task_id,) = {j["task_id"] for j in _judgments(run_dir)}
    page = (build_site(run_dir).parent / "t" / f"{task_id}.html").read_text()
    trace = page[page.index("<h2 id='trace'>"):]
    events = re.findall(r"<tr class='event'><td>\d+</td><td>(\w+)</td>", trace)
    assert events.count("model") == 3 and events[-1] == "end"
    assert {"write_verifier", "self_test"} <= set(events)
    assert "status=submitted" in trace and "model_calls=3" in trace
    assert "generation: <b>submitted</b>" in page
    assert f"<pre>{html.escape(MODEL_VERIFIER, quote=True)}</pre>" in page
