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
from pathlib import Path
from typing import Any

from monitorbench.report.tables import DECIMALS, Diff, Est, Table
from monitorbench.tracking.sweep_report import md_cell


def _text(v: Any) -> str:
    """A cell as the reader sees it, before any markdown or HTML escaping."""
    if v is None:
        return "—"
    if isinstance(v, Est):
        return f"{v.point:.{DECIMALS}f} [{v.low:.{DECIMALS}f}, {v.high:.{DECIMALS}f}]"
    if isinstance(v, Diff):
        return (f"{v.diff:+.{DECIMALS}f} [{v.low:+.{DECIMALS}f}, {v.high:+.{DECIMALS}f}]"
                + ("*" if v.significant else ""))
    if isinstance(v, float):
        return f"{v:.{DECIMALS}f}"
    return str(v)


def _md_cell(v: Any) -> str:
    return md_cell(_text(v))


def markdown(table: Table) -> str:
    lines = [f"### {table.title}", "", "| " + " | ".join(md_cell(c) for c in table.columns) + " |",
             "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in table.rows]
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


def _csv_columns(table: Table) -> list[str]:
    cols: list[str] = []
    for j, name in enumerate(table.columns):
        kinds = {type(row[j]) for row in table.rows if row[j] is not None}
        cols.append(name)
        if kinds & {Est, Diff}:
            cols += [f"{name}_low", f"{name}_high"]
        if Diff in kinds:
            cols.append(f"{name}_significant")
    return cols


def _csv_values(table: Table, row: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, v in zip(table.columns, row):
        if isinstance(v, Est):
            out.update({name: v.point, f"{name}_low": v.low, f"{name}_high": v.high})
        elif isinstance(v, Diff):
            out.update({name: v.diff, f"{name}_low": v.low, f"{name}_high": v.high,
                        f"{name}_significant": v.significant})
        else:
            out[name] = "" if v is None else v
    return out


def write_table(table: Table, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / f"{table.name}.md"
    md.write_text(markdown(table), encoding="utf-8")
    path = out_dir / f"{table.name}.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=_csv_columns(table), restval="")
        w.writeheader()
        for row in table.rows:
            w.writerow(_csv_values(table, row))
    return md, path
