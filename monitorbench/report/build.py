"""Assemble a sweep's report: tables and plots on disk and on the sweep's MLflow parent run.

The output directory and the parent run's ``report/`` artifacts hold the same files, laid out
the same way: ``report.md``, ``report.html``, ``tables/`` and ``plots/``. Nothing names a host:

- ``report.md`` links its plots relatively (``plots/x.png``), so they load from the file's
  directory on disk and name the artifacts ``report/plots/x.png`` of the run in MLflow.
- ``report.html`` carries the same tables with the plots inlined as ``data:`` images, so it
  shows them in MLflow's artifact preview on whatever host and port the UI serves. MLflow 3.17's
  markdown preview prints an image with a relative link as the text ``[alt](link)`` (checked
  with a real ``mlflow server`` and headless Chromium, tests/test_report_mlflow_ui.py), and an
  absolute link would break on any other address.

Public API::

    build_report(experiment: str, *, sweep: str = "latest", out: Path | None = None,
                 tracking_uri: str | None = None, outputs: Path | None = None,
                 n_resamples: int = 1000, seed: int = 0) -> Report
"""

from __future__ import annotations

import base64
import logging
import os
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from monitorbench.report.analysis import Analysis
from monitorbench.report.render import html_table, markdown, write_table
from monitorbench.report.source import find_sweep, load_configurations, varying_axes
from monitorbench.report.tables import (DELTA_AXES, Table, attack_table, concentration_table,
                                        delta_table, diagnostics_table, leaderboard,
                                        same_cases_table, type_rankings)
from monitorbench.tracking.mlflow_logger import client_for
from monitorbench.tracking.mlflow_logger import tracking_uri as resolve_uri

log = logging.getLogger(__name__)
ARTIFACT_DIR = "report"


@dataclass
class Report:
    """What was written: the parent run, the output directory, every table and plot file."""

    parent_run_id: str
    out_dir: Path
    tables: dict[str, Table] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)


def _tables(an: Analysis) -> list[Table]:
    configs = an.configs
    out = [leaderboard(an, configs), *type_rankings(an, configs)]
    for axis in varying_axes(configs):
        if axis in DELTA_AXES:
            for by_type in (False, True):
                t = delta_table(an, configs, axis, by_type=by_type)
                if t is not None:
                    out.append(t)
    out += [concentration_table(an, configs), diagnostics_table(an, configs),
            same_cases_table(configs)]
    attack = attack_table(an, configs)
    if attack is not None:
        out.append(attack)
    return out


def _plots(an: Analysis, out_dir: Path, experiment: str) -> list[Path]:
    """The rates plots show the tables' numbers: every configuration on the leaderboard's
    common pool (the same :meth:`Analysis.ci` the tables read), and the title says so."""
    from monitorbench.metrics.ranking import common_pool
    from monitorbench.tracking.plots import (plot_concentration, plot_tpr_tnr,
                                             plot_type_comparison)

    scored = {c.label: an.scored(c) for c in an.configs}
    pool = common_pool(scored)
    ranked = [c for c in an.configs if scored[c.label]]
    intervals = {c.label: an.ci(c, pool) for c in ranked}
    points = {label: {k: iv.point for k, iv in ivs.items()} for label, ivs in intervals.items()}
    on = f"on the common pool ({len(pool)} tasks)"
    summaries = {c.label: an.summary(c) for c in an.configs}
    return [
        plot_tpr_tnr(points, out_dir / "tpr_vs_tnr.png", intervals=intervals,
                     title=f"{experiment}: TPR vs TNR {on}"),
        plot_type_comparison(points, out_dir / "per_type.png", intervals=intervals,
                             title=f"{experiment}: BA_norm per task type {on}"),
        plot_concentration(summaries, out_dir / "concentration.png",
                           title=f"{experiment}: false rejections from all-reject verifiers"),
    ]


def _write_summaries(report: Report, sections: list[str], head: list[str]) -> list[Path]:
    """report.md (plots linked relatively) and report.html (the same tables, plots inlined)
    in the output directory, beside its tables/ and plots/."""
    pngs = [p for p in report.files if p.suffix == ".png"]
    md = report.out_dir / "report.md"
    md.write_text("\n".join(head + sections + ["### Plots", ""]
                            + [f"![{p.stem}](plots/{p.name})" for p in pngs]) + "\n",
                  encoding="utf-8")
    images = "".join(
        f'<p><img alt="{escape(p.stem)}" src="data:image/png;base64,'
        f'{base64.b64encode(p.read_bytes()).decode()}"></p>' for p in pngs)
    page = "".join([f"<h1>{escape(head[0].lstrip('# '))}</h1><p>{escape(head[2].replace('`', ''))}</p>",
                    *(html_table(t) for t in report.tables.values()), "<h3>Plots</h3>",
                    images])
    html = report.out_dir / "report.html"
    html.write_text(f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>{_CSS}"
                    f"</style></head><body>{page}</body></html>\n", encoding="utf-8")
    return [md, html]


_CSS = ("body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}img{max-width:100%}")


def build_report(experiment: str, *, sweep: str = "latest", out: Path | None = None,
                 tracking_uri: str | None = None, outputs: Path | None = None,
                 n_resamples: int = 1000, seed: int = 0) -> Report:
    """Read the sweep from MLflow, write every table and plot, log them to its parent run."""
    outputs = Path(outputs or os.environ.get("MONITORBENCH_OUTPUTS", "outputs"))
    uri = resolve_uri(tracking_uri, outputs)
    client = client_for(uri)
    parent = find_sweep(client, experiment, sweep)
    configs = load_configurations(client, parent, experiment=experiment, outputs=outputs)
    an = Analysis(configs, n_resamples=n_resamples, seed=seed)
    # one directory per sweep, named by its parent run id as the README says: a report of
    # another sweep of the experiment does not overwrite it
    out_dir = Path(out) if out else outputs / "reports" / experiment / parent.info.run_id
    report = Report(parent.info.run_id, out_dir)
    head = [f"# Report: {experiment}", "",
            f"Sweep parent run `{parent.info.run_id}`, {len(configs)} configurations, "
            f"{n_resamples} bootstrap resamples (seed {seed}).", ""]
    sections: list[str] = []
    axes = {c.label: {k: v for k, v in c.axes.items() if v} for c in configs}
    for table in _tables(an):
        table.axes = axes   # the CSVs get one column per axis
        report.tables[table.name] = table
        report.files += write_table(table, out_dir / "tables")
        sections.append(markdown(table))
    report.files += _plots(an, out_dir / "plots", experiment)
    summaries = _write_summaries(report, sections, head)
    report.files += summaries
    run_id = parent.info.run_id
    for sub in ("tables", "plots"):
        client.log_artifacts(run_id, str(out_dir / sub), f"{ARTIFACT_DIR}/{sub}")
    for path in summaries:
        client.log_artifact(run_id, str(path), ARTIFACT_DIR)
    log.info("report for %s (sweep %s) in %s", experiment, run_id, out_dir)
    return report
