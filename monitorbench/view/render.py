"""HTML for the viewer's pages: a run's tasks, one task's cases, verifier code and trace.

Everything shown comes from files a hostile party partly wrote: candidates are built to fool
verifiers, a verifier's code and its generation trace come from a model. So every string goes
through :func:`esc` (``html.escape`` with quotes) before it reaches a page, attributes included,
and the pages run no script but the few lines of filter code below, which read only ``data-``
attributes and never insert markup. The pages are self-contained (inline CSS and script), so
the site opens from disk or from any static server.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any, Iterable, Mapping, Sequence

from monitorbench.view.load import CaseView, GenerationView, RunView, TaskView

HEADLINE = ("ba_norm", "tpr", "tnr", "fpr_h")
STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 6px;
vertical-align:top;text-align:left}pre{background:#f6f6f6;padding:6px;overflow:auto;
max-width:110ch;white-space:pre-wrap;margin:2px 0}tr.wrong td.out{background:#fdd}
tr.right td.out{background:#dfd}.note{color:#666}summary{cursor:pointer}"""
FILTER_JS = """function applyFilters(){
 var w=document.getElementById('wrong-only').checked,
     g=document.getElementById('group-filter').value,
     c=document.getElementById('category-filter').value, n=0;
 document.querySelectorAll('tr.case').forEach(function(r){
  var show=(!w||r.dataset.wrong==='1')&&(!g||r.dataset.group===g)&&(!c||r.dataset.category===c);
  r.hidden=!show; if(show){n++;}});
 document.getElementById('shown').textContent=n;}"""


def task_file(task_id: str) -> str:
    """The page name of a task: its id with anything outside ``[A-Za-z0-9_.-]`` replaced, so
    a task id can never name a path outside the site."""
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", task_id).lstrip(".") + ".html"


def esc(value: Any) -> str:
    """``value`` as text safe inside an element or a quoted attribute."""
    return html.escape(str(value), quote=True)


def page(title: str, body: str, script: str = "") -> str:
    """A complete self-contained page."""
    js = f"<script>{script}</script>" if script else ""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
            f"<style>{STYLE}</style></head><body>{body}{js}</body></html>\n")


def table(head: Sequence[str], rows: Iterable[str]) -> str:
    """A table whose header cells are escaped; ``rows`` are ready ``<tr>`` markup."""
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def pct(value: float | None) -> str:
    return "—" if value is None or value != value else f"{value:.1f}"


def pre(text: Any) -> str:
    return f"<pre>{esc(text)}</pre>"


def run_summary(run: RunView) -> str:
    """The run's headline metrics (metrics.json), naming their pool, and where it lives."""
    cells = "".join(f"<td>{esc(k)}: {pct(run.metrics.get(k))}</td>" for k in HEADLINE
                    if k in run.metrics)
    return (f"<p class='note'>over this run's own {len(run.tasks)} tasks (its metrics.json); "
            f"run directory {esc(run.run_dir)}; reported round {run.round}</p>"
            f"<table><tr>{cells}</tr></table>")


def run_index(run: RunView, up: str = "") -> str:
    """The run's tasks with per-task TPR, TNR, verdict counts and generation status."""
    rows = []
    for t in sorted(run.tasks.values(), key=lambda t: t.task_id):
        gen = (f"{t.generation.result.status.value}: {t.generation.result.detail[:160]}"
               if t.generation else "—")
        rows.append(f"<tr><td><a href='t/{esc(task_file(t.task_id))}'>{esc(t.task_id)}</a></td>"
                    f"<td>{esc(t.task_type)}</td><td>{pct(t.tpr)}</td><td>{pct(t.tnr)}</td>"
                    f"<td>{t.count('P')}</td><td>{t.count('F')}</td><td>{t.count('U')}</td>"
                    f"<td>{t.n_wrong}</td><td>{esc(gen)}</td></tr>")
    back = f"<p><a href='{esc(up)}'>all runs</a></p>" if up else ""
    body = (f"{back}<h1>{esc(run.name)}</h1>{run_summary(run)}<h2>Tasks</h2>"
            + table(["task", "type", "TPR", "TNR", "P", "F", "U", "wrong", "generation"],
                    rows))
    return page(f"monitorbench · {run.name}", body)


def case_row(case: CaseView) -> str:
    """One case: group, category, label, outcome, reason, detail and its candidate."""
    j = case.judgment
    mark = "infra" if case.infra else ("wrong" if case.wrong else "right")
    cand = (render_candidate(case.candidate) if case.candidate is not None
            else "<span class='note'>candidate not in the suite (e.g. an attack mutant)</span>")
    cells = [j["case_id"], j["group"], j["category"], j["label"]]
    return (f"<tr class='case {mark}' data-wrong='{int(case.wrong)}' "
            f"data-group='{esc(j['group'])}' data-category='{esc(j['category'])}'>"
            + "".join(f"<td>{esc(c)}</td>" for c in cells)
            + f"<td class='out'>{esc(j['outcome'])}</td><td>{esc(j.get('reason', ''))}</td>"
            f"<td>{pre(j.get('detail', '')) if j.get('detail') else ''}</td>"
            f"<td><details><summary>candidate</summary>{cand}</details></td>"
            f"<td>{_printed(case.output)}</td></tr>")


def _printed(output: str) -> str:
    """What the verifier printed on this case, folded (empty when it printed nothing)."""
    if not output:
        return ""
    return f"<details class='printed'><summary>printed</summary>{pre(output)}</details>"


def render_candidate(candidate: Mapping[str, Any]) -> str:
    """Each field of a candidate readably: text as it is (raw output, a patch), structures
    (tool calls, an interaction record) as an indented outline by :func:`readable`."""
    parts = []
    for key, value in candidate.items():
        text = value if isinstance(value, str) else readable(value)
        parts.append(f"<div><b>{esc(key)}</b>{pre(text)}</div>")
    return "".join(parts)


def readable(value: Any, indent: int = 0) -> str:
    """A structure as an indented outline (YAML-like): a tool's multi-line output reads as the
    text it is, where JSON would show one long line of ``\\n`` escapes. Short values stay JSON,
    so a string is told from a number."""
    pad = " " * indent
    if isinstance(value, dict) and value:
        return "\n".join(f"{pad}{k}:{_after(v, indent)}" for k, v in value.items())
    if isinstance(value, list) and value:
        return "\n".join(f"{pad}-{_after(v, indent)}" for v in value)
    return pad + json.dumps(value, ensure_ascii=False)


def _after(value: Any, indent: int) -> str:
    """What follows ``key:`` or ``-`` in :func:`readable`: a text block, a nested outline, or
    a scalar on the same line."""
    if isinstance(value, str) and "\n" in value.strip("\n"):
        block = "\n".join(" " * (indent + 4) + line for line in value.strip("\n").split("\n"))
        return " |\n" + block
    if isinstance(value, (dict, list)) and value:
        return "\n" + readable(value, indent + 2)
    return " " + json.dumps(value, ensure_ascii=False)


def _select(ident: str, label: str, values: Iterable[str]) -> str:
    opts = "".join(f"<option value='{esc(v)}'>{esc(v)}</option>" for v in sorted(set(values)))
    return (f"<label>{esc(label)} <select id='{ident}' onchange='applyFilters()'>"
            f"<option value=''>all</option>{opts}</select></label> ")


def filters(cases: Sequence[CaseView]) -> str:
    """The wrong-verdict, group and category filters over the case table."""
    return ("<p><label><input type='checkbox' id='wrong-only' onchange='applyFilters()'> "
            "wrong verdicts only</label> "
            + _select("group-filter", "group", (c.judgment["group"] for c in cases))
            + _select("category-filter", "category", (c.judgment["category"] for c in cases))
            + f"<span id='shown'>{len(cases)}</span> of {len(cases)} cases shown</p>")


def task_page(run: RunView, task: TaskView) -> str:
    """One task: its cases with filters, then the verifier's code and its generation."""
    rows = [case_row(c) for c in sorted(task.cases, key=lambda c: c.judgment["case_id"])]
    body = (f"<p><a href='../index.html'>{esc(run.name)}</a></p><h1>{esc(task.task_id)}</h1>"
            f"<p>{esc(task.task_type)} · TPR {pct(task.tpr)} · TNR {pct(task.tnr)} · "
            f"P {task.count('P')} · F {task.count('F')} · U {task.count('U')} · "
            f"wrong {task.n_wrong}</p><h2>Cases</h2>{filters(task.cases)}"
            + table(["case", "group", "category", "label", "outcome", "reason", "detail",
                     "candidate", "verifier output"], rows)
            + generation_section(task.generation, task.verifier_hash))
    return page(f"{task.task_id} · {run.name}", body, FILTER_JS)


def generation_section(gen: GenerationView | None, vhash: str = "") -> str:
    """How the verifier came to be: status, detail, code and trace."""
    if gen is None:
        why = ("a model judged each case itself (access=model_judge): there is no program"
               if vhash.startswith("model-") else
               "no generation-cache entry holds the verifier this run judged (the cache was "
               "moved or cleared)" if vhash else
               "no verifier was submitted and no generation-cache entry for this task remains")
        return f"<h2>Verifier</h2><p class='note'>{esc(why)}</p>"
    r = gen.result
    note = f"<p class='note'>{esc(gen.note)}</p>" if gen.note else ""
    code = (f"<h3 id='verifier-code'>main.py</h3>{pre(gen.code)}" if gen.code is not None
            else "<p class='note'>no verifier code</p>")
    return (f"<h2>Verifier</h2><p>generation: <b>{esc(r.status.value)}</b> "
            f"{esc(r.detail)}</p>{note}<p class='note'>{esc(gen.entry)}</p>{code}"
            + trace_section(gen.trace))


def trace_section(events: Sequence[Mapping[str, Any]]) -> str:
    """The generation trace: one row per event, its scalar fields in the row, its long or
    structured fields (messages, replies, outputs) folded below, and the running budget
    counters every event carries in a column of their own."""
    if not events:
        return "<p class='note'>no generation trace (a scripted generator writes none)</p>"
    rows = []
    for i, ev in enumerate(events):
        counters = ev.get("counters") if isinstance(ev.get("counters"), dict) else {}
        budget = ", ".join(f"{k}={v}" for k, v in counters.items())
        rest = {k: v for k, v in ev.items() if k not in ("event", "counters")}
        short = {k: v for k, v in rest.items() if _scalar(v)}
        long = {k: v for k, v in rest.items() if not _scalar(v)}
        fold = "".join(f"<details><summary>{esc(k)}</summary>"
                       f"{pre(v if isinstance(v, str) else readable(v))}</details>"
                       for k, v in long.items())
        facts = ", ".join(f"{k}={v}" for k, v in short.items())
        rows.append(f"<tr class='event'><td>{i}</td><td>{esc(ev.get('event', '?'))}</td>"
                    f"<td>{esc(facts)}{fold}</td><td class='note'>{esc(budget)}</td></tr>")
    return ("<h2 id='trace'>Generation trace</h2>"
            + table(["#", "event", "what", "budget used so far"], rows))


def _scalar(value: Any) -> bool:
    return (value is None or isinstance(value, (bool, int, float))
            or (isinstance(value, str) and len(value) <= 80 and "\n" not in value))


def sweep_index(title: str, runs: Sequence[tuple[str, RunView]],
                board: Mapping[str, Mapping[str, str]] | None = None) -> str:
    """A sweep's runs, each linking to its own pages (``href`` is the run's index). With the
    sweep's ``leaderboard.csv`` (``board``: its rows by ``run_key``) the figures are the
    leaderboard's, on the common pool, in its order; without it each run's own, and the page
    says so: one pool per page, never two unnamed."""
    if not board:
        rows = [f"<tr><td><a href='{esc(href)}'>{esc(run.name)}</a></td>"
                + "".join(f"<td>{pct(run.metrics.get(k))}</td>" for k in HEADLINE)
                + f"<td>{len(run.tasks)}</td></tr>" for href, run in runs]
        note = ("Each run's figures over its own tasks (this folder has no leaderboard.csv: "
                "the sweep did not finish)"
                + ("; their task counts differ, so the rows are not comparable." if
                   len({len(r.tasks) for _, r in runs}) > 1 else "."))
        body = (f"<h1>{esc(title)}</h1><p class='note'>{note}</p>"
                + table(["run", *HEADLINE, "tasks"], rows))
        return page(f"monitorbench · {title}", body)
    placed = sorted(runs, key=lambda hr: _rank(board.get(hr[1].run_dir.name)))
    rows = [_board_row(href, run, board.get(run.run_dir.name)) for href, run in placed]
    pools = sorted({b["pool_tasks"] for b in board.values() if b.get("pool_tasks")})
    note = (f"Ranked on the common pool: the {'/'.join(pools)} tasks every ranked run scored, "
            "the figures of leaderboard.csv and the console; a run's page shows its figures "
            "over its own tasks.")
    body = (f"<h1>{esc(title)}</h1><p class='note'>{esc(note)}</p>"
            + table(["rank", "run", "BA_norm [95% CI]", "TPR", "TNR", "FPR_h", "pool tasks",
                     "own tasks"], rows))
    return page(f"monitorbench · {title}", body)


def _rank(row: Mapping[str, str] | None) -> float:
    """A leaderboard row's rank for sorting; a run the leaderboard lacks goes last."""
    return float(row["rank"]) if row and row.get("rank") else float("inf")


def _board_row(href: str, run: RunView, row: Mapping[str, str] | None) -> str:
    """One run of a sweep, with its leaderboard figures on the common pool (``—``: unranked)."""
    def num(key: str) -> float | None:
        return float(row[key]) if row and row.get(key) else None

    ba = pct(num("ba_norm"))
    if num("ba_norm_ci_low") is not None:
        ba += f" [{pct(num('ba_norm_ci_low'))}, {pct(num('ba_norm_ci_high'))}]"
    cells = [(row or {}).get("rank") or "—", None, ba, pct(num("tpr")), pct(num("tnr")),
             pct(num("fpr_h")), (row or {}).get("pool_tasks") or "—", str(len(run.tasks))]
    link = f"<td><a href='{esc(href)}'>{esc(run.name)}</a></td>"
    return ("<tr>" + "".join(link if c is None else f"<td>{esc(c)}</td>" for c in cells)
            + "</tr>")
