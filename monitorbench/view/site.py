"""Write the viewer's static site for a run or a sweep, and serve it on 127.0.0.1.

PATH is one of:

- a run directory, ``outputs/runs/<run_key>`` (what a job's ``Outputs:`` line names);
- a sweep directory (``outputs/hydra/<experiment>/multirun_<time>``) or one Hydra job folder in
  it: each job folder holds the ``results.txt`` its job left, naming its run directory;
- a file holding the output of ``monitorbench score DIR --task ID --json`` (with the suites
  directory for its candidates and, optionally, the scored verifier directory for its code).

The site is static files (an ``index.html`` per run, a page per task), so it opens from disk,
travels as a folder and needs no process; ``serve`` hands the folder to the standard library's
``http.server``, bound to 127.0.0.1 only, for a browser that will not open ``file://`` pages.
"""

from __future__ import annotations

import csv
import functools
import http.server
import re
import shutil
import threading
from pathlib import Path

from monitorbench.errors import InputError
from monitorbench.view.load import RunView, is_run_dir, load_run
from monitorbench.view.render import run_index, sweep_index, task_file, task_page
from monitorbench.view.score_output import is_score_output, load_score_output

_RESULTS = re.compile(r"^results:\s+(\S+)", re.M)


def find_runs(path: Path) -> list[Path]:
    """The run directories ``path`` stands for (see the module docstring), in job order."""
    path = Path(path)
    if is_run_dir(path):
        return [path]
    folders = [path] if (path / "results.txt").is_file() else sorted(
        (p for p in path.glob("*") if (p / "results.txt").is_file()), key=_job_order)
    runs: list[Path] = []
    for folder in folders:
        m = _RESULTS.search((folder / "results.txt").read_text(encoding="utf-8"))
        if m and is_run_dir(Path(m.group(1))) and Path(m.group(1)) not in runs:
            runs.append(Path(m.group(1)))
    if not runs:
        raise InputError(path, None, "not a run directory (no judgments.jsonl) nor a sweep "
                         "directory (no job folder whose results.txt names a run directory)",
                         "pass outputs/runs/<run_key> (a job's 'Outputs:' line names it), a "
                         "sweep directory under outputs/hydra/<experiment>/, or a file saved "
                         "from `monitorbench score ... --json`")
    return runs


def _job_order(folder: Path) -> tuple[int, str]:
    """Hydra numbers job folders 0, 1, ... 10: numeric order, not string order."""
    return (int(folder.name), "") if folder.name.isdigit() else (1 << 30, folder.name)


def default_out(path: Path) -> Path:
    """Where the site goes unless ``--out`` says: ``outputs/views/<run_key>`` for a run (beside
    the runs, not inside the durable run record), ``<sweep dir>/view`` for a sweep."""
    path = Path(path).resolve()
    if is_run_dir(path):
        return path.parent.parent / "views" / path.name
    if is_score_output(path):
        return path.with_name(path.name + ".view")
    return path / "view"


def write_run(run: RunView, out: Path, up: str = "") -> None:
    """A run's index and one page per task under ``out``."""
    (out / "t").mkdir(parents=True, exist_ok=True)
    (out / "index.html").write_text(run_index(run, up), encoding="utf-8")
    for task in run.tasks.values():
        (out / "t" / task_file(task.task_id)).write_text(task_page(run, task),
                                                         encoding="utf-8")


def build_site(path: Path, out: Path | None = None, *, suites_root: Path | None = None,
               verifier: Path | None = None) -> Path:
    """Write the site for ``path`` (a run, a sweep or a score output) under ``out``; return its
    index.html. ``suites_root`` and ``verifier`` serve a score output only."""
    score_output = is_score_output(Path(path))
    runs = [] if score_output else find_runs(Path(path))
    out = Path(out) if out is not None else default_out(Path(path))
    if out.exists():
        shutil.rmtree(out)   # a site is rebuilt whole: no page of an earlier build lingers
    if score_output:
        write_run(load_score_output(Path(path), Path(suites_root or "outputs/suites"),
                                    verifier), out)
        return out / "index.html"
    if len(runs) == 1 and is_run_dir(Path(path)):
        write_run(load_run(runs[0]), out)
        return out / "index.html"
    listed: list[tuple[str, RunView]] = []
    for run_dir in runs:
        run = load_run(run_dir)
        write_run(run, out / "r" / run_dir.name, up="../../index.html")
        listed.append((f"r/{run_dir.name}/index.html", run))
    (out / "index.html").write_text(sweep_index(f"sweep {Path(path).name}", listed,
                                                leaderboard(Path(path))), encoding="utf-8")
    return out / "index.html"


def leaderboard(sweep: Path) -> dict[str, dict[str, str]]:
    """The sweep's ``leaderboard.csv`` rows by ``run_key`` (empty when the sweep wrote none:
    unfinished, or a single job folder was given)."""
    path = sweep / "leaderboard.csv"
    if not path.is_file():
        return {}
    with open(path, newline="", encoding="utf-8") as f:
        return {r["run_key"]: r for r in csv.DictReader(f) if r.get("run_key")}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site folder without a log line per request."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (stdlib name)
        pass


def start_server(site: Path, port: int = 0) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``site`` on 127.0.0.1 (``port`` 0: a free one) in a daemon thread; return the
    server and the index URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/index.html"
