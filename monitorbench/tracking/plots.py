"""Figures from metric summaries: TPR vs TNR, per-type bars, false-rejection concentration.

Inputs are the flat dicts of :func:`monitorbench.metrics.summarize` (one per configuration,
keyed by a display label), so a plot can be redrawn from logged metrics without re-judging.
Figures are drawn on a bare Agg canvas (``matplotlib.figure.Figure`` + ``FigureCanvasAgg``)
rather than through pyplot: no global backend switch, no figure registry to leak from a
long-running sweep, safe in worker threads. Each function writes one file (format from the
suffix, e.g. ``.png``) and returns its path.

Public API::

    plot_tpr_tnr(summaries: Mapping[str, Mapping[str, float]], path: str | Path, *,
                 intervals: Mapping[str, Mapping[str, Interval]] | None = None,
                 title: str = "TPR vs TNR") -> Path
    plot_type_bars(summary: Mapping[str, float], path: str | Path, *,
                   title: str = "Per task type") -> Path
    plot_concentration(summaries: Mapping[str, Mapping[str, float]], path: str | Path, *,
                       title: str = "False rejections from all-reject verifiers") -> Path
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from monitorbench.errors import InputError
from monitorbench.metrics.bootstrap import Interval
from monitorbench.suites.format import TASK_TYPES

_ISO_BA = (-50, -25, 0, 25, 50, 75)  # BA_norm levels of the diagonal guide lines


def _require(summary: Mapping[str, float], key: str, where: str) -> float:
    if key not in summary:
        raise InputError(None, f"{where}.{key}", "missing from the metric summary",
                         "pass the dict returned by monitorbench.metrics.summarize")
    return float(summary[key])


def _nonempty(summaries: Mapping[str, Mapping[str, float]]) -> None:
    if not summaries:
        raise InputError(None, "summaries", "no configuration to plot",
                         "pass {label: summarize(records)} for at least one configuration")


def _save(fig: Figure, path: str | Path) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    fig.savefig(out, dpi=120)
    return out


def plot_tpr_tnr(summaries: Mapping[str, Mapping[str, float]], path: str | Path, *,
                 intervals: Mapping[str, Mapping[str, Interval]] | None = None,
                 title: str = "TPR vs TNR") -> Path:
    """Scatter of configurations in (TNR, TPR) space with iso-BA_norm diagonals.

    Points on one diagonal TPR = BA_norm + 100 − TNR score the same; the top-right corner is a
    perfect verifier and the anti-diagonal through (100, 0)/(0, 100) is a constant decision.
    ``intervals`` (from :func:`monitorbench.metrics.bootstrap_ci`) adds CI error bars.
    """
    _nonempty(summaries)
    fig = Figure(figsize=(6.4, 6.0))
    ax = fig.add_subplot()
    grid = np.linspace(0.0, 100.0, 2)
    for level in _ISO_BA:
        ax.plot(grid, level + 100.0 - grid, color="0.8", lw=0.8, zorder=0)
        x_label = min(100.0, 100.0 + level) - 6.0
        ax.text(x_label, level + 100.0 - x_label, f"BA_norm {level}", color="0.5", fontsize=7,
                rotation=-45, ha="center", va="bottom")
    for label, summary in summaries.items():
        tpr = _require(summary, "tpr", f"summaries[{label!r}]")
        tnr = _require(summary, "tnr", f"summaries[{label!r}]")
        ci = (intervals or {}).get(label)
        if ci is not None and "tpr" in ci and "tnr" in ci:
            ax.errorbar(tnr, tpr,
                        xerr=[[tnr - ci["tnr"].low], [ci["tnr"].high - tnr]],
                        yerr=[[tpr - ci["tpr"].low], [ci["tpr"].high - tpr]],
                        fmt="none", ecolor="0.6", lw=0.8)
        ax.scatter([tnr], [tpr], s=30, zorder=3)
        ax.annotate(label, (tnr, tpr), xytext=(4, 4), textcoords="offset points", fontsize=8)
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    ax.set_xlabel("TNR (%)")
    ax.set_ylabel("TPR (%)")
    ax.set_title(title)
    ax.set_aspect("equal")
    fig.tight_layout()
    return _save(fig, path)


def plot_type_bars(summary: Mapping[str, float], path: str | Path, *,
                   title: str = "Per task type") -> Path:
    """Grouped bars of BA_norm, TPR and TNR for each task type present, plus the overall row."""
    groups = [("all", "")] + [(t, f"{t}/") for t in TASK_TYPES if f"{t}/tpr" in summary]
    metrics = ("ba_norm", "tpr", "tnr")
    values = np.array([[_require(summary, f"{prefix}{m}", "summary") for m in metrics]
                       for _, prefix in groups])
    fig = Figure(figsize=(7.0, 4.2))
    ax = fig.add_subplot()
    x = np.arange(len(groups))
    width = 0.8 / len(metrics)
    for j, metric in enumerate(metrics):
        bars = ax.bar(x + (j - 1) * width, values[:, j], width, label=metric)
        ax.bar_label(bars, fmt="%.1f", fontsize=7)
    ax.axhline(0.0, color="0.3", lw=0.8)
    ax.set_xticks(x, [name for name, _ in groups])
    ax.set_ylim(min(0.0, float(values.min()) - 10.0), 120.0)
    ax.set_ylabel("%")
    ax.set_title(title)
    ax.legend(loc="upper center", ncols=len(metrics), fontsize=8)
    fig.tight_layout()
    return _save(fig, path)


def plot_concentration(summaries: Mapping[str, Mapping[str, float]], path: str | Path, *,
                       title: str = "False rejections from all-reject verifiers") -> Path:
    """Per configuration, Q_m weighted by test case and by task, with the all-reject count.

    A configuration without any false rejection has no Q_m; it gets an empty slot marked
    "no false rejections" instead of a misleading zero bar.
    """
    _nonempty(summaries)
    labels = list(summaries)
    fig = Figure(figsize=(max(5.0, 1.2 * len(labels) + 2.0), 4.2))
    ax = fig.add_subplot()
    x = np.arange(len(labels))
    width = 0.38
    legend_pending = True
    for i, label in enumerate(labels):
        summary = summaries[label]
        n_all = _require(summary, "all_reject_tasks", f"summaries[{label!r}]")
        n_tasks = _require(summary, "n_tasks", f"summaries[{label!r}]")
        if "q_m" not in summary:
            ax.text(i, 5.0, "no false\nrejections", ha="center", fontsize=7, color="0.4")
            continue
        q_case = _require(summary, "q_m", f"summaries[{label!r}]")
        q_task = _require(summary, "q_m_task", f"summaries[{label!r}]")
        ax.bar(i - width / 2, q_case, width, color="C0",
               label="test-case weighted" if legend_pending else None)
        ax.bar(i + width / 2, q_task, width, color="C1",
               label="task weighted" if legend_pending else None)
        legend_pending = False
        ax.text(i, max(q_case, q_task) + 2.0, f"{int(n_all)}/{int(n_tasks)} all-reject",
                ha="center", fontsize=7)
    ax.set_xticks(x, labels, rotation=20, ha="right")
    ax.set_xlim(-0.6, len(labels) - 0.4)
    ax.set_ylim(0, 120)
    ax.set_ylabel("Q_m: share of positive FAILs (%)")
    ax.set_title(title)
    if not legend_pending:
        ax.legend(loc="upper center", ncols=2, fontsize=8)
    fig.tight_layout()
    return _save(fig, path)
