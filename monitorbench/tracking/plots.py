"""Figures from metric summaries: TPR vs TNR, per-type bars, false-rejection concentration.

Inputs are the flat dicts of :func:`monitorbench.metrics.summarize` (one per configuration,
keyed by a display label), so a plot can be redrawn from logged metrics without re-judging.
Figures are drawn on a bare Agg canvas (``matplotlib.figure.Figure`` + ``FigureCanvasAgg``)
rather than through pyplot: no global backend switch, no figure registry to leak from a
long-running sweep, safe in worker threads. Each function writes one figure (format from the
suffix, e.g. ``.png``) and returns its path, and writes the values it drew beside it
(``<name>.json``: label -> metric -> value), so a reader or a test can check that a plot shows
the table's numbers without reading pixels.

Public API::

    plot_tpr_tnr(summaries: Mapping[str, Mapping[str, float]], path: str | Path, *,
                 intervals: Mapping[str, Mapping[str, Interval]] | None = None,
                 title: str = "TPR vs TNR") -> Path
    tpr_tnr_figure(summaries, *, intervals=None, title="TPR vs TNR") -> Figure
    plot_type_bars(summary: Mapping[str, float], path: str | Path, *,
                   title: str = "Per task type") -> Path
    plot_type_comparison(summaries, path, *, intervals=None, metric="ba_norm",
                         title="BA_norm per task type") -> Path
    plot_concentration(summaries: Mapping[str, Mapping[str, float]], path: str | Path, *,
                       title: str = "False rejections from all-reject verifiers") -> Path
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np
from matplotlib import colormaps
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


def _save(fig: Figure, path: str | Path, drawn: Mapping[str, Mapping[str, float]]) -> Path:
    """Write the figure and, beside it, the values it drew (``drawn``: label -> key -> value)."""
    import json

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(
        {label: {k: float(v) for k, v in values.items()} for label, values in drawn.items()},
        indent=1, sort_keys=True) + "\n", encoding="utf-8")
    FigureCanvasAgg(fig)
    # "tight" grows the saved area to every artist (rotated tick labels, legends below the axes),
    # so no label is clipped whatever its length.
    fig.savefig(out, dpi=120, bbox_inches="tight", pad_inches=0.15)
    return out


_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p")
_MARGIN = 6.0  # axis units beyond 0 and 100, so points on the edges are drawn whole


def _style(i: int) -> tuple[str, tuple[float, ...]]:
    """Marker and colour of the i-th configuration: tab10 first, then tab20, markers cycling,
    so neighbours in a sweep never share both."""
    cmap = colormaps["tab10"] if i < 10 else colormaps["tab20"]
    return _MARKERS[i % len(_MARKERS)], tuple(cmap(i % cmap.N))


def _ci_caption(given: int, drawn: int) -> str:
    """What the error bars show, said only where they are drawn: a zero-width interval (a
    constant verifier) has no visible bar, and the title must not promise one."""
    if not given:
        return ""
    if not drawn:
        return "\n(95% bootstrap CIs: all of zero width)"
    if drawn < given:
        return f"\n(bars: 95% bootstrap CI; {given - drawn} of zero width)"
    return "\n(bars: 95% bootstrap CI)"


def tpr_tnr_figure(summaries: Mapping[str, Mapping[str, float]], *,
                   intervals: Mapping[str, Mapping[str, Interval]] | None = None,
                   title: str = "TPR vs TNR") -> Figure:
    """The figure behind :func:`plot_tpr_tnr`, for callers that embed or inspect it.

    Configurations often coincide (scripted baselines ignore the scaffold; two constants share a
    corner), so points are identified by marker and colour in a legend below the axes rather
    than by text next to them; coinciding points are drawn largest-first so every marker stays
    visible, and the axes extend a margin beyond 0 and 100 so edge points are not clipped.
    """
    _nonempty(summaries)
    points = []
    for label, summary in summaries.items():
        points.append((label, _require(summary, "tnr", f"summaries[{label!r}]"),
                       _require(summary, "tpr", f"summaries[{label!r}]")))
    rows = -(-len(points) // 2)
    fig = Figure(figsize=(6.4, 6.4 + 0.28 * rows))
    ax = fig.add_subplot()
    _iso_ba_lines(ax)
    ci_given, ci_drawn = _draw_points(ax, points, intervals or {})
    ax.set_xlim(-_MARGIN, 100.0 + _MARGIN)
    ax.set_ylim(-_MARGIN, 100.0 + _MARGIN)
    ax.set_xticks(range(0, 101, 20))
    ax.set_yticks(range(0, 101, 20))
    ax.set_xlabel("TNR (%)")
    ax.set_ylabel("TPR (%)")
    ax.set_title(title + _ci_caption(ci_given, ci_drawn), pad=10)
    ax.set_aspect("equal")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncols=2, fontsize=8,
              frameon=False, markerscale=0.8)
    FigureCanvasAgg(fig)
    fig.tight_layout()
    return fig


def _iso_ba_lines(ax: Any) -> None:
    """Grey diagonals of equal BA_norm, labelled, behind the points."""
    grid = np.array([-_MARGIN, 100.0 + _MARGIN])
    for level in _ISO_BA:
        ax.plot(grid, level + 100.0 - grid, color="0.85", lw=0.8, zorder=0)
        x_label = min(100.0, 100.0 + level) - 12.0
        ax.text(x_label, level + 100.0 - x_label, f"BA_norm {level}", color="0.55", fontsize=7,
                rotation=-45, rotation_mode="anchor", ha="center", va="bottom", zorder=1)


def _draw_points(ax: Any, points: list[tuple[str, float, float]],
                 intervals: Mapping[str, Mapping[str, Interval]]) -> tuple[int, int]:
    """Each configuration's point (coinciding ones largest-first, with a ×n count) and its CI
    bars; returns (points given a CI, of those with a CI of non-zero width) for the caption."""
    stacked: dict[tuple[float, float], int] = {}
    for tnr, tpr in ((p[1], p[2]) for p in points):
        key = (round(tnr, 6), round(tpr, 6))
        stacked[key] = stacked.get(key, 0) + 1
    drawn: dict[tuple[float, float], int] = {}
    ci_drawn = ci_given = 0
    for i, (label, tnr, tpr) in enumerate(points):
        key = (round(tnr, 6), round(tpr, 6))
        k = drawn.get(key, 0)
        drawn[key] = k + 1
        size = 40.0 + 70.0 * (stacked[key] - 1 - k)  # first of a stack largest, last smallest
        marker, colour = _style(i)
        ci = intervals.get(label)
        if ci is not None and "tpr" in ci and "tnr" in ci and \
                ci["tpr"].has_width and ci["tnr"].has_width:   # one task: no bar to draw
            ci_given += 1
            ci_drawn += (ci["tpr"].high - ci["tpr"].low) + (ci["tnr"].high - ci["tnr"].low) > 0
            ax.errorbar(tnr, tpr,
                        xerr=[[tnr - ci["tnr"].low], [ci["tnr"].high - tnr]],
                        yerr=[[tpr - ci["tpr"].low], [ci["tpr"].high - tpr]],
                        fmt="none", ecolor=colour, alpha=0.6, lw=1.0, capsize=2, zorder=2)
        ax.scatter([tnr], [tpr], s=size, marker=marker, color=colour, edgecolors="white",
                   linewidths=0.6, zorder=3 + k, label=label, clip_on=False)
        if k == 0 and stacked[key] > 1:  # say how many configurations share this point
            ax.annotate(f"×{stacked[key]}", (tnr, tpr), xytext=(7, 7),
                        textcoords="offset points", fontsize=8, color="0.25", zorder=20)
    return ci_given, ci_drawn


def plot_tpr_tnr(summaries: Mapping[str, Mapping[str, float]], path: str | Path, *,
                 intervals: Mapping[str, Mapping[str, Interval]] | None = None,
                 title: str = "TPR vs TNR") -> Path:
    """Scatter of configurations in (TNR, TPR) space with iso-BA_norm diagonals.

    Points on one diagonal TPR = BA_norm + 100 − TNR score the same; the top-right corner is a
    perfect verifier and the anti-diagonal through (100, 0)/(0, 100) is a constant decision.
    ``intervals`` (from :func:`monitorbench.metrics.bootstrap_ci`) adds CI error bars.
    """
    fig = tpr_tnr_figure(summaries, intervals=intervals, title=title)   # checks the summaries
    drawn = {label: {k: s[k] for k in ("tpr", "tnr")} for label, s in summaries.items()}
    return _save(fig, path, drawn)


def plot_type_comparison(summaries: Mapping[str, Mapping[str, float]], path: str | Path, *,
                         intervals: Mapping[str, Mapping[str, Interval]] | None = None,
                         metric: str = "ba_norm",
                         title: str = "BA_norm per task type") -> Path:
    """Grouped bars: one group per task type (plus "all"), one bar per configuration, with CI
    error bars when ``intervals`` has them. A type a configuration did not score is marked
    "n/a" in its slot; every drawn bar carries its value."""
    _nonempty(summaries)
    labels = list(summaries)
    present = [t for t in TASK_TYPES if any(f"{t}/{metric}" in s for s in summaries.values())]
    groups = [("all", "")] + [(t, f"{t}/") for t in present]
    fig = Figure(figsize=(max(6.0, 1.6 * len(groups) * max(1, len(labels)) ** 0.5 + 2.0),
                          4.6 + 0.25 * -(-len(labels) // 3)))
    ax = fig.add_subplot()
    x = np.arange(len(groups))
    width = 0.8 / len(labels)
    low = 0.0
    ci_given = ci_drawn = 0
    drawn: dict[str, dict[str, float]] = {}
    for j, label in enumerate(labels):
        s = summaries[label]
        ci = (intervals or {}).get(label, {})
        vals, errs = [], [[], []]
        for _, prefix in groups:
            key = f"{prefix}{metric}"
            v = float(s[key]) if key in s else np.nan
            vals.append(v)
            if key in s:
                drawn.setdefault(label, {})[key] = v
            iv = ci.get(key)
            iv = iv if iv is not None and iv.has_width else None   # one task: no bar
            errs[0].append(v - iv.low if iv is not None else 0.0)
            errs[1].append(iv.high - v if iv is not None else 0.0)
            if iv is not None:
                low = min(low, iv.low)
                ci_given += 1
                ci_drawn += iv.high > iv.low
        low = min(low, float(np.nanmin(vals)) if not np.all(np.isnan(vals)) else 0.0)
        pos = x + (j - (len(labels) - 1) / 2) * width
        bars = ax.bar(pos, np.nan_to_num(vals), width, yerr=errs, capsize=2,
                      color=_style(j)[1], label=label, error_kw={"lw": 0.8})
        _label_bars(ax, bars, vals)
    ax.axhline(0.0, color="0.3", lw=0.8)
    ax.set_xticks(x, [name for name, _ in groups])
    ax.set_ylim(min(-5.0, low - 5.0), 105.0)
    ax.set_ylabel(f"{metric} (%)")
    ax.set_title(title + _ci_caption(ci_given, ci_drawn), pad=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), ncols=3, fontsize=8,
              frameon=False)
    fig.tight_layout()
    return _save(fig, path, drawn)


def _label_bars(ax, bars, values) -> None:
    """Value on every bar, and "n/a" where a configuration has no data for a group, so a
    zero-height bar (a real 0.0) is never mistaken for a missing one."""
    for bar, v in zip(bars, values):
        x = bar.get_x() + bar.get_width() / 2
        if np.isnan(v):
            ax.text(x, 1.0, "n/a", ha="center", va="bottom", fontsize=6, color="0.45",
                    rotation=90)
        else:
            ax.text(x, v + (1.0 if v >= 0 else -1.0), f"{v:.1f}", ha="center",
                    va="bottom" if v >= 0 else "top", fontsize=6)


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
    return _save(fig, path, {"": {f"{prefix}{m}": float(values[i, j])
                                  for i, (_, prefix) in enumerate(groups)
                                  for j, m in enumerate(metrics)}})


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
    keys = ("q_m", "q_m_task", "all_reject_tasks", "n_tasks")
    return _save(fig, path, {label: {k: s[k] for k in keys if k in s}
                             for label, s in summaries.items()})
