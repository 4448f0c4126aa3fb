"""Pooled diagnostics, weighted by test case (paper appendix "Pooled diagnostics").

The headline rates weight tasks equally; these proportions instead pool test cases, because they
answer a different question: how often a delivered verifier produced any valid decision at all,
and, among unaccepted positives, how often that was an explicit FAIL rather than a crash, timeout
or missing verifier. All rates are percentages.

Keys: ``submission_rate`` (100 · tasks with a submitted verifier / all tasks; "submitted" is
defined once, by :func:`submitted_tasks`), ``n_submitted``,
``valid_output_rate`` (100(P+F)/(P+F+U) over all cases), ``rejection_share`` (100F/(F+U) over
positive cases), and per group ``group/<group>/{n,p,f,u,valid_output_rate}``. A ratio whose
denominator is zero (``rejection_share`` when every positive was accepted) is left out rather
than reported as 0 or NaN. ``diag/infra_failures`` counts judgments the sandbox failed to make
even after the run's retries and ``diag/infra_tasks_unscored`` the tasks that left without a
positive or a negative case; neither is in any other number (they are not the verifier's).

Public API::

    submitted_tasks(table: TaskTable) -> np.ndarray
    pooled_diagnostics(table: TaskTable) -> dict[str, float]
"""

from __future__ import annotations

import numpy as np

from monitorbench.metrics.records import TaskTable
from monitorbench.suites.format import GROUPS

_P, _F, _U = 0, 1, 2


def submitted_tasks(table: TaskTable) -> np.ndarray:
    """Which tasks have a submitted verifier, as a bool array aligned with ``table.task_ids``.

    The one definition of "submitted" (run metrics, the sweep leaderboard and ``report`` all
    come here): a verifier directory whose ``main.py`` the sandbox could load and which defines
    a callable ``verify``. Judging marks every case of any other task ``missing_verifier`` (no
    directory, no ``main.py``, an unreadable one, or one without ``verify``), so a task counts
    as submitted unless all its judgments say ``missing_verifier``. The paper defines
    submission as "tasks with a submitted verifier" and is silent on a ``main.py`` that defines
    no ``verify``; it groups missing verifiers with U outcomes, and a file that cannot be called
    is no verifier under the contract, so it is not counted. A ``main.py`` that does not compile
    was still submitted (its cases are U ``crash``). Because this reads only the judgments, the
    run and a report re-derived from its judgments table cannot disagree.
    """
    return ~table.missing


def pooled_diagnostics(table: TaskTable) -> dict[str, float]:
    """Test-case-weighted diagnostics; see the module docstring for the keys."""
    submitted = submitted_tasks(table)
    out: dict[str, float] = {
        "diag/infra_failures": float(table.infra_failures),
        "diag/infra_tasks_unscored": float(len(table.infra_unscored)),
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
