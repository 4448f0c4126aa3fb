"""A job's ``judgments.csv`` read back as judgment records (numbers restored from their text).

The sweep's leaderboard ranks its jobs on their common task pool, which needs their per-task
judgments, not only their logged rates; ``report`` reads the same files. One reader serves both.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from monitorbench.errors import InputError

_INT_FIELDS = ("round", "executions")
_FLOAT_FIELDS = ("seconds", "confidence")


def parse_csv_records(path: Path) -> list[dict[str, Any]]:
    """Judgment rows from a judgments.csv, with numbers restored from their CSV text."""
    out: list[dict[str, Any]] = []
    with open(path, newline="", encoding="utf-8") as f:
        for lineno, row in enumerate(csv.DictReader(f), 2):
            rec: dict[str, Any] = dict(row)
            try:
                for k in _INT_FIELDS:
                    rec[k] = int(rec[k])
                for k in _FLOAT_FIELDS:
                    rec[k] = float(rec[k]) if rec.get(k) not in (None, "") else None
            except (KeyError, ValueError) as e:
                raise InputError(path, f"line {lineno}", f"unreadable judgment row ({e})",
                                 "re-run the job so it rewrites judgments.csv") from None
            out.append(rec)
    return out
