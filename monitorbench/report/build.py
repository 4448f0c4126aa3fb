"""Assemble a sweep's report: tables and plots on disk and on the sweep's MLflow parent run.

``report.md`` exists twice. On disk its images are relative links (``plots/x.png``), which
load when the file is opened from its directory. The copy logged to MLflow links each plot as
``<MLflow URL>/get-artifact?path=report/plots/x.png&run_uuid=<parent run>``: MLflow 3.17's
markdown artifact preview prints an image with a relative link as the text ``[alt](link)`` and
strips ``data:`` URIs (its URL filter passes only http(s)), so only an absolute http(s) link
renders (checked with a real ``mlflow server`` and headless Chromium,
tests/test_report_mlflow_ui.py). The MLflow URL is the tracking URI when that is a server,
else ``ui_url`` (default http://127.0.0.1:5000, where ``mlflow ui`` serves).

Public API::

    build_report(experiment: str, *, sweep: str = "latest", out: Path | None = None,
                 tracking_uri: str | None = None, outputs: Path | None = None,
                 n_resamples: int = 1000, seed: int = 0, ui_url: str | None = None) -> Report
    mlflow_ui_url(tracking_uri: str, ui_url: str | None = None) -> str
"""

from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from urllib.parse import quote

from monitorbench.report.analysis import Analysis
from monitorbench.report.render import markdown, write_table
from monitorbench.report.source import find_sweep, load_configurations, varying_axes
from monitorbench.report.tables import (DELTA_AXES, Table, attack_table, concentration_table,
                                        delta_table, diagnostics_table, leaderboard,
                                        same_cases_table, type_rankings)
from monitorbench.tracking.mlflow_logger import client_for
from monitorbench.tracking.mlflow_logger import tracking_uri as resolve_uri

log = logging.getLogger(__name__)
ARTIFACT_DIR = "report"
DEFAULT_UI_URL = "http://127.0.0.1:5000"  # `mlflow ui` / `mlflow server` without --port


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
    attack = attack_table(configs)
    if attack is not None:
        out.append(attack)
    return out


def _plots(an: Analysis, out_dir: Path, experiment: str) -> list[Path]:
    from monitorbench.tracking.plots import (plot_concentration, plot_tpr_tnr,
                                             plot_type_comparison)

    summaries = {c.label: an.summary(c) for c in an.configs}
    intervals = {c.label: an.ci(c) for c in an.configs}
    return [
        plot_tpr_tnr(summaries, out_dir / "tpr_vs_tnr.png", intervals=intervals,
                     title=f"{experiment}: TPR vs TNR"),
        plot_type_comparison(summaries, out_dir / "per_type.png", intervals=intervals,
                             title=f"{experiment}: BA_norm per task type"),
        plot_concentration(summaries, out_dir / "concentration.png",
                           title=f"{experiment}: false rejections from all-reject verifiers"),
    ]


def mlflow_ui_url(tracking_uri: str, ui_url: str | None = None) -> str:
    """Where the MLflow UI that shows the logged report serves: ``ui_url`` when given, else the
    tracking server, else ``mlflow ui``'s default address (a local store has no URL)."""
    if ui_url:
        return ui_url.rstrip("/")
    if tracking_uri.startswith(("http://", "https://")):
        return tracking_uri.rstrip("/")
    return DEFAULT_UI_URL


def _image_lines(pngs: list[Path], link: Callable[[Path], str]) -> list[str]:
    return ["### Plots", ""] + [f"![{p.stem}]({link(p)})" for p in pngs]


def _write_summaries(report: Report, sections: list[str], base_url: str, tmp: Path
                     ) -> tuple[Path, Path]:
    """report.md on disk (relative image links) and the copy for MLflow (absolute
    get-artifact links to the parent run's plots), written under ``tmp``."""
    pngs = [p for p in report.files if p.suffix == ".png"]
    on_disk = report.out_dir / "report.md"
    on_disk.write_text("\n".join(sections + _image_lines(pngs, lambda p: f"plots/{p.name}"))
                       + "\n", encoding="utf-8")

    def served(p: Path) -> str:
        path = quote(f"{ARTIFACT_DIR}/plots/{p.name}", safe="")
        return f"{base_url}/get-artifact?path={path}&run_uuid={report.parent_run_id}"

    note = [f"Plots load from the MLflow server at {base_url} (`--mlflow-ui-url` if the UI "
            "serves elsewhere); report.md in the output directory links them relatively.", ""]
    logged = tmp / "report.md"
    logged.write_text("\n".join(sections + note + _image_lines(pngs, served)) + "\n",
                      encoding="utf-8")
    return on_disk, logged


def build_report(experiment: str, *, sweep: str = "latest", out: Path | None = None,
                 tracking_uri: str | None = None, outputs: Path | None = None,
                 n_resamples: int = 1000, seed: int = 0, ui_url: str | None = None) -> Report:
    """Read the sweep from MLflow, write every table and plot, log them to its parent run."""
    outputs = Path(outputs or os.environ.get("MONITORBENCH_OUTPUTS", "outputs"))
    uri = resolve_uri(tracking_uri, outputs)
    client = client_for(uri)
    parent = find_sweep(client, experiment, sweep)
    configs = load_configurations(client, parent, experiment=experiment, outputs=outputs)
    an = Analysis(configs, n_resamples=n_resamples, seed=seed)
    # one directory per sweep: a report of another sweep of the experiment does not overwrite it
    out_dir = Path(out) if out else outputs / "reports" / experiment / parent.info.run_id[:8]
    report = Report(parent.info.run_id, out_dir)
    sections = [f"# Report: {experiment}", "",
                f"Sweep parent run `{parent.info.run_id}`, {len(configs)} configurations, "
                f"{n_resamples} bootstrap resamples (seed {seed}).", ""]
    for table in _tables(an):
        report.tables[table.name] = table
        report.files += write_table(table, out_dir / "tables")
        sections.append(markdown(table))
    report.files += _plots(an, out_dir / "plots", experiment)
    run_id = parent.info.run_id
    for sub in ("tables", "plots"):
        client.log_artifacts(run_id, str(out_dir / sub), f"{ARTIFACT_DIR}/{sub}")
    with tempfile.TemporaryDirectory() as tmp:
        on_disk, logged = _write_summaries(report, sections, mlflow_ui_url(uri, ui_url),
                                           Path(tmp))
        client.log_artifact(run_id, str(logged), ARTIFACT_DIR)
    report.files.append(on_disk)
    log.info("report for %s (sweep %s) in %s", experiment, run_id, out_dir)
    return report
