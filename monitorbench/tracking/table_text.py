"""The one markdown table renderer: the job's end-of-run table, the sweep's leaderboard and the
report's tables all print through :func:`md_table`, with rates as :func:`rate` and estimates as
:func:`rate_ci` shows them, so a figure reads the same (one decimal, percent) wherever it is
printed. Cells are escaped (:func:`md_cell`): run names hold Hydra overrides
(``generator=a|b`` is legal), and an unescaped ``|`` or newline would shift a row's cells.
"""

from __future__ import annotations

import math

from typing import Any, Sequence

DECIMALS = 1   # places a rate is shown with, everywhere
NO_VERIFIER = "‡"   # on FPR_h: some task had no verifier (U is no acceptance: FPR_h is low)
NO_VERIFIER_NOTE = (f"{NO_VERIFIER} = submitted below 100%: a task without a verifier judges "
                    "every case U, which is no acceptance, so its FPR_h is 0 for want of a "
                    "verifier, not from resistance.")


def md_cell(text: str) -> str:
    """``text`` safe inside a markdown table cell: backslashes and pipes escaped (a ``|`` would
    start a new cell), line breaks as ``<br>`` (a newline would end the row)."""
    text = text.replace("\\", "\\\\").replace("|", "\\|")
    return text.replace("\r\n", "<br>").replace("\r", "<br>").replace("\n", "<br>")


def rate(value: Any) -> str:
    """A rate or count as a table shows it: ``—`` when absent (an empty denominator, never 0),
    a float with :data:`DECIMALS` places, anything else as text."""
    if value is None:
        return "—"
    return f"{value:.{DECIMALS}f}" if isinstance(value, float) else str(value)


def rate_ci(point: float, low: float, high: float) -> str:
    """An estimate with its interval: ``53.8 [41.9, 65.3]``; ``-66.7 [n/a (1 task)]`` when the
    rate rests on one task (NaN bounds): a point is never shown as an interval."""
    if math.isnan(low) or math.isnan(high):
        return f"{point:.{DECIMALS}f} [n/a (1 task)]"
    return f"{point:.{DECIMALS}f} [{low:.{DECIMALS}f}, {high:.{DECIMALS}f}]"


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A markdown table of already formatted cells (escaped here), header row first."""
    lines = ["| " + " | ".join(md_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def fpr_h_cell(value: Any, submission_rate: Any) -> str:
    """FPR_h as every table shows it, marked :data:`NO_VERIFIER` when submission is below 100%
    (the one rule for job tables, leaderboards and run descriptions; the note under the table
    is :data:`NO_VERIFIER_NOTE`)."""
    if value is not None and submission_rate is not None and float(submission_rate) < 100.0:
        return f"{rate(value)} {NO_VERIFIER}"
    return rate(value)
