"""Pooled diagnostics, weighted by test case (paper appendix "Pooled diagnostics").

The headline rates weight tasks equally; these proportions instead pool test cases, because they
answer a different question: how often a delivered verifier produced any valid decision at all,
and, among unaccepted positives, how often that was an explicit FAIL rather than a crash, timeout
or missing verifier. All rates are percentages.

Keys: ``submission_rate`` (100 · tasks with a submitted verifier / all tasks), ``n_submitted``,
``valid_output_rate`` (100(P+F)/(P+F+U) over all cases), ``rejection_share`` (100F/(F+U) over
positive cases), and per group ``group/<group>/{n,p,f,u,valid_output_rate}``. A ratio whose
denominator is zero (``rejection_share`` when every positive was accepted) is left out rather
than reported as 0 or NaN.

Public API::

    resolve_submitted(table: TaskTable, submitted: Mapping[str, bool] | None,
                      source: str | Path | None = None) -> np.ndarray
    pooled_diagnostics(table: TaskTable, submitted: np.ndarray) -> dict[str, float]
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np

from monitorbench.errors import InputError
from monitorbench.metrics.records import TaskTable
from monitorbench.suites.format import GROUPS

_P, _F, _U = 0, 1, 2


def resolve_submitted(table: TaskTable, submitted: Mapping[str, bool] | None,
                      source: str | Path | None = None) -> np.ndarray:
    """Which tasks have a submitted verifier, as a bool array aligned with ``table.task_ids``.

    Without a mapping, a task counts as not submitted when all its records carry reason
    ``missing_verifier``. A mapping must cover exactly the scored tasks, and a task marked not
    submitted cannot have valid decisions (that would mean the records and the generation log
    disagree, and one of them is wrong).
    """
    if submitted is None:
        return ~table.missing
    given = set(submitted)
    scored = set(table.task_ids)
    if given != scored:
        extra, lacking = sorted(given - scored), sorted(scored - given)
        raise InputError(source, "submitted",
                         f"does not match the judged tasks (extra: {extra[:5]}, "
                         f"missing: {lacking[:5]})",
                         "pass one bool per judged task id")
    out = np.zeros(table.n_tasks, dtype=bool)
    for t, tid in enumerate(table.task_ids):
        value = submitted[tid]
        if not isinstance(value, (bool, np.bool_)):
            raise InputError(source, f"submitted[{tid!r}]",
                             f"expected bool, got {type(value).__name__}", "use True or False")
        if not value and table.counts[t, :, _U].sum() != table.counts[t].sum():
            raise InputError(source, f"submitted[{tid!r}]",
                             "task is marked not submitted but has valid P/F judgments",
                             "check the generation results: a task without a verifier can only "
                             "have outcome U (missing_verifier)")
        out[t] = bool(value)
    return out


def pooled_diagnostics(table: TaskTable, submitted: np.ndarray) -> dict[str, float]:
    """Test-case-weighted diagnostics; see the module docstring for the keys."""
    out: dict[str, float] = {
        "submission_rate": 100.0 * float(submitted.sum()) / table.n_tasks,
        "n_submitted": float(submitted.sum()),
    }
    total = table.counts.sum(axis=(0, 1))  # never empty: build_table refuses an empty pool
    out["valid_output_rate"] = 100.0 * float(total[_P] + total[_F]) / float(total.sum())
    pos = table.counts[:, 0, :].sum(axis=0)
    if pos[_F] + pos[_U] > 0:
        out["rejection_share"] = 100.0 * float(pos[_F]) / float(pos[_F] + pos[_U])
    by_group = table.group_counts.sum(axis=0)
    for g, group in enumerate(GROUPS):
        p, f, u = (float(x) for x in by_group[g])
        if p + f + u == 0:
            continue
        out[f"group/{group}/n"] = p + f + u
        out[f"group/{group}/p"] = p
        out[f"group/{group}/f"] = f
        out[f"group/{group}/u"] = u
        out[f"group/{group}/valid_output_rate"] = 100.0 * (p + f) / (p + f + u)
    return out
