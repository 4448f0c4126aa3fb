"""Assemble a sweep's report: tables and plots on disk and on the sweep's MLflow parent run.

Public API::

    build_report(experiment: str, *, sweep: str = "latest", out: Path | None = None,
                 tracking_uri: str | None = None, outputs: Path | None = None,
                 n_resamples: int = 1000, seed: int = 0) -> Report
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

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


def build_report(experiment: str, *, sweep: str = "latest", out: Path | None = None,
                 tracking_uri: str | None = None, outputs: Path | None = None,
                 n_resamples: int = 1000, seed: int = 0) -> Report:
    """Read the sweep from MLflow, write every table and plot, log them to its parent run."""
    outputs = Path(outputs or os.environ.get("MONITORBENCH_OUTPUTS", "outputs"))
    client = client_for(resolve_uri(tracking_uri, outputs))
    parent = find_sweep(client, experiment, sweep)
    configs = load_configurations(client, parent, experiment=experiment, outputs=outputs)
    an = Analysis(configs, n_resamples=n_resamples, seed=seed)
    out_dir = Path(out) if out else outputs / "reports" / experiment
    report = Report(parent.info.run_id, out_dir)
    sections = [f"# Report: {experiment}", "",
                f"Sweep parent run `{parent.info.run_id}`, {len(configs)} configurations, "
                f"{n_resamples} bootstrap resamples (seed {seed}).", ""]
    for table in _tables(an):
        report.tables[table.name] = table
        report.files += write_table(table, out_dir / "tables")
        sections.append(markdown(table))
    report.files += _plots(an, out_dir / "plots", experiment)
    sections += ["### Plots", ""] + [f"![{p.stem}](plots/{p.name})" for p in report.files
                                     if p.suffix == ".png"]
    summary = out_dir / "report.md"
    summary.write_text("\n".join(sections) + "\n", encoding="utf-8")
    report.files.append(summary)
    client.log_artifacts(parent.info.run_id, str(out_dir), ARTIFACT_DIR)
    log.info("report for %s (sweep %s) in %s", experiment, parent.info.run_id, out_dir)
    return report
