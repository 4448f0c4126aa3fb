"""Plots are written as real PNG files from metric summaries, and refuse incomplete input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.image
import pytest

from monitorbench.errors import InputError
from monitorbench.metrics import bootstrap_ci, summarize
from monitorbench.tracking.plots import plot_concentration, plot_tpr_tnr, plot_type_bars

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def records(accept: str, reject: str) -> list[dict[str, Any]]:
    """Two tasks per type; positives get ``accept``, negatives ``reject`` on task 0 and the
    correct outcome on task 1."""
    out = []
    for ttype in ("tool_call", "state", "code"):
        for i in range(2):
            tid = f"{ttype}-{i}"
            for k in range(3):
                out.append({"task_id": tid, "task_type": ttype, "case_id": f"p{k}",
                            "group": "gold" if k == 0 else "valid_variant", "category": "c",
                            "label": "PASS", "outcome": accept if i == 0 else "P",
                            "suite_hash": "s"})
                out.append({"task_id": tid, "task_type": ttype, "case_id": f"n{k}",
                            "group": "attack" if k == 0 else "ordinary_error",
                            "category": "omission", "label": "FAIL",
                            "outcome": reject if i == 0 else "F", "suite_hash": "s"})
    return out


def assert_png(path: Path, min_bytes: int = 10_000) -> None:
    assert path.is_file()
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC
    assert len(data) > min_bytes
    image = matplotlib.image.imread(path)
    assert image.shape[0] > 300 and image.shape[1] > 300
    assert image.std() > 0.01  # something was drawn, not a blank canvas


def test_tpr_tnr_scatter_with_intervals(tmp_path: Path) -> None:
    rejecting, accepting = records("F", "F"), records("P", "P")
    summaries = {"rejecting": summarize(rejecting), "accepting": summarize(accepting)}
    cis = {"rejecting": bootstrap_ci(rejecting, n_resamples=200)}
    out = plot_tpr_tnr(summaries, tmp_path / "figs" / "tpr_tnr.png", intervals=cis)
    assert out == tmp_path / "figs" / "tpr_tnr.png"
    assert_png(out)


def test_type_bars(tmp_path: Path) -> None:
    out = plot_type_bars(summarize(records("U", "P")), tmp_path / "types.png")
    assert_png(out)


def test_concentration_plot_including_configuration_without_false_rejections(
        tmp_path: Path) -> None:
    summaries = {"all-reject": summarize(records("F", "F")),
                 "never rejects a positive": summarize(records("P", "F"))}
    assert "q_m" not in summaries["never rejects a positive"]
    out = plot_concentration(summaries, tmp_path / "concentration.png")
    assert_png(out)


def test_plots_refuse_incomplete_summaries(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        plot_tpr_tnr({"x": {"tpr": 50.0}}, tmp_path / "a.png")
    assert err.value.field == "summaries['x'].tnr"
    with pytest.raises(InputError, match="no configuration"):
        plot_concentration({}, tmp_path / "b.png")
    with pytest.raises(InputError):
        plot_type_bars({"tpr": 1.0, "tnr": 2.0}, tmp_path / "c.png")
    assert not list(tmp_path.iterdir())


def _overlaps(a, b) -> bool:
    return not (a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0)


def test_sweep_scatter_stays_readable_when_configurations_coincide() -> None:
    from monitorbench.tracking.plots import tpr_tnr_figure

    accepting, rejecting = summarize(records("P", "P")), summarize(records("F", "F"))
    summaries = {f"always_accept | {s}": accepting for s in ("oneshot", "agent", "challenge")}
    summaries.update({"always_reject | oneshot": summarize(records("F", "F")) | {
        "tpr": 0.0, "tnr": 100.0}, "rejecting": rejecting})
    fig = tpr_tnr_figure(summaries, title="Sweep: TPR vs TNR")
    fig.canvas.draw()  # tpr_tnr_figure attaches an Agg canvas
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == list(summaries)  # every label, once
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    assert x0 < 0 and x1 > 100 and y0 < 0 and y1 > 100  # edge points drawn whole
    renderer = fig.canvas.get_renderer()
    title = ax.title.get_window_extent(renderer)
    others = [t.get_window_extent(renderer) for t in ax.texts] + \
        [legend.get_window_extent(renderer), ax.get_window_extent(renderer)]
    assert not any(_overlaps(title, box) for box in others[:-1])
    assert title.y0 >= others[-1].y1 - 1  # the title sits above the axes
    # coinciding points get distinct markers, drawn largest first so all stay visible
    stack = [c for c in ax.collections if c.get_label().startswith("always_accept")]
    sizes = [float(c.get_sizes()[0]) for c in stack]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == 3
    markers = {tuple(map(tuple, c.get_paths()[0].vertices.round(3))) for c in stack}
    assert len(markers) == 3


def test_ci_caption_promises_only_the_bars_that_are_drawn() -> None:
    """A constant verifier's CI has zero width: the title says so instead of promising bars."""
    from monitorbench.metrics.bootstrap import Interval
    from monitorbench.tracking.plots import tpr_tnr_figure

    def iv(v: float, half: float) -> Interval:
        return Interval(v, v - half, v + half, 0.95, 100, 100)

    const = {"tpr": 100.0, "tnr": 0.0}
    real = {"tpr": 70.0, "tnr": 60.0}
    zero = {"a": {"tpr": iv(100, 0), "tnr": iv(0, 0)}}
    title = tpr_tnr_figure({"a": const}, intervals=zero).axes[0].get_title()
    assert "all of zero width" in title
    mixed = {**zero, "b": {"tpr": iv(70, 5), "tnr": iv(60, 4)}}
    title = tpr_tnr_figure({"a": const, "b": real}, intervals=mixed).axes[0].get_title()
    assert "bars: 95% bootstrap CI; 1 of zero width" in title
    assert "CI" not in tpr_tnr_figure({"a": const}).axes[0].get_title()


def test_coinciding_configurations_are_counted_on_the_plot() -> None:
    from monitorbench.tracking.plots import tpr_tnr_figure

    fig = tpr_tnr_figure({"x": {"tpr": 100.0, "tnr": 0.0}, "y": {"tpr": 100.0, "tnr": 0.0},
                          "z": {"tpr": 50.0, "tnr": 50.0}})
    assert [t.get_text() for t in fig.axes[0].texts if t.get_text().startswith("×")] == ["×2"]
