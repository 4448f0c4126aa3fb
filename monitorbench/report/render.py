"""Write report tables as markdown and CSV.

Markdown shows an estimate as ``point [low, high]`` and a difference as ``+d [low, high]*``;
CSV keeps numbers machine-readable: an estimate column ``X`` becomes ``X``, ``X_low``,
``X_high``, and a difference also gets ``X_significant``. Missing values are ``—`` in markdown
and empty in CSV, never 0. :func:`html_table` renders the same cells as markdown does, for the
report's HTML copy.

Public API::

    write_table(table: Table, out_dir: Path) -> tuple[Path, Path]
    markdown(table: Table) -> str
    html_table(table: Table) -> str
"""

from __future__ import annotations

import csv
from html import escape
import math
from pathlib import Path
from typing import Any

from monitorbench.report.tables import DECIMALS, Diff, Est, Table
from monitorbench.metrics.ranking import MORE_THAN_POOL
from monitorbench.tracking.table_text import md_table, rate, rate_ci


def _text(v: Any) -> str:
    """A cell as the reader sees it, before any markdown or HTML escaping."""
    if isinstance(v, Est):
        return rate_ci(v.point, v.low, v.high)
    if isinstance(v, Diff) and (math.isnan(v.low) or math.isnan(v.high)):
        return f"{v.diff:+.{DECIMALS}f} [n/a (1 task)]"
    if isinstance(v, Diff):
        return (f"{v.diff:+.{DECIMALS}f} [{v.low:+.{DECIMALS}f}, {v.high:+.{DECIMALS}f}]"
                + ("*" if v.significant else ""))
    return rate(v)


def markdown(table: Table) -> str:
    """The table through the one renderer the job's and the sweep's tables use too."""
    lines = [f"### {table.title}", "",
             md_table(table.columns, [[_text(v) for v in row] for row in table.rows])]
    if table.note:
        lines += ["", table.note]
    return "\n".join(lines) + "\n"


def html_table(table: Table) -> str:
    """The table as an HTML section: same title, cells and note as :func:`markdown`."""
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(_text(v))}</td>" for v in row) + "</tr>"
                   for row in table.rows)
    note = f"<p>{escape(table.note)}</p>" if table.note else ""
    return (f"<h3>{escape(table.title)}</h3><table><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>{note}")


FLAG = "more_than_pool"   # the CSV column of a count's ``†`` (the count stays a number)


def _flagged(v: Any) -> bool:
    return isinstance(v, str) and v.endswith(f" {MORE_THAN_POOL}")


def _count_cell(v: Any) -> bool:
    """A task count as the tables show it: ``30`` or ``37 †``."""
    return isinstance(v, str) and bool(v) and v.split()[0].isdigit()


def _csv_columns(table: Table) -> list[str]:
    """Every column, estimates split into point, low and high; after ``configuration`` one
    column per axis (generator, access, ...), and after a count shown with ``†`` the flag."""
    cols: list[str] = []
    for j, name in enumerate(table.columns):
        kinds = {type(row[j]) for row in table.rows if row[j] is not None}
        cols.append(name)
        if name == "configuration":
            cols += list(dict.fromkeys(a for axes in table.axes.values() for a in axes))
        if kinds & {Est, Diff}:
            cols += [f"{name}_low", f"{name}_high"]
        if Diff in kinds:
            cols.append(f"{name}_significant")
        if name.startswith("tasks") and any(_count_cell(row[j]) for row in table.rows):
            cols.append(FLAG)
    return cols


def _csv_values(table: Table, row: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, v in zip(table.columns, row):
        if isinstance(v, Est):
            out.update({name: v.point, f"{name}_low": v.low, f"{name}_high": v.high})
        elif isinstance(v, Diff):
            out.update({name: v.diff, f"{name}_low": v.low, f"{name}_high": v.high,
                        f"{name}_significant": v.significant})
        elif name.startswith("tasks") and _count_cell(v):
            out.update({name: int(v.split()[0]), FLAG: MORE_THAN_POOL if _flagged(v) else ""})
        else:
            out[name] = "" if v is None else v
        if name == "configuration":
            out.update(table.axes.get(str(v), {}))
    return out


def write_table(table: Table, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / f"{table.name}.md"
    md.write_text(markdown(table), encoding="utf-8")
    path = out_dir / f"{table.name}.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=_csv_columns(table), restval="",
                           extrasaction="ignore")
        w.writeheader()
        for row in table.rows:
            w.writerow(_csv_values(table, row))
    return md, path
