"""Where false rejections concentrate (paper §3.4 and appendix "Concentration definition").

A verifier is *all-reject* when it returns a valid FAIL on every test case of its task, positive
and negative alike: TPR 0, TNR 100, so it adds nothing to BA_norm, like a constant. The headline
rates cannot tell whether false rejections are spread thin or piled into such verifiers; Q_m can:

    Q_m = sum_{t in all-reject} F+_t / sum_{t} F+_t          (test-case weighted, ``q_m``)

and the equal-task version replaces F+_t with F+_t/|C+_t| in both sums (``q_m_task``), which shows
the concentration is not explained by some tasks having more positive cases. Both in percent.

Keys: ``all_reject_tasks``, ``false_rejections`` (sum of F+_t), ``q_m``, ``q_m_task``. Q_m is
undefined without any false rejection; then ``q_m``/``q_m_task`` are left out (and
``false_rejections`` is 0, which says why) instead of being reported as 0 or NaN.

Public API::

    all_reject_mask(table: TaskTable) -> np.ndarray
    concentration(table: TaskTable) -> dict[str, float]
"""

from __future__ import annotations

import numpy as np

from monitorbench.metrics.records import TaskTable

_F = 1


def all_reject_mask(table: TaskTable) -> np.ndarray:
    """Tasks whose verifier returned a valid FAIL on every case."""
    return table.counts[:, :, _F].sum(axis=1) == table.counts.sum(axis=(1, 2))


def concentration(table: TaskTable) -> dict[str, float]:
    """All-reject count and Q_m in both weightings; see the module docstring."""
    mask = all_reject_mask(table)
    f_pos = table.counts[:, 0, _F].astype(float)
    n_pos = table.counts[:, 0, :].sum(axis=1).astype(float)
    out = {"all_reject_tasks": float(mask.sum()), "false_rejections": float(f_pos.sum())}
    if f_pos.sum() > 0:
        out["q_m"] = 100.0 * float(f_pos[mask].sum() / f_pos.sum())
        per_task = f_pos / n_pos
        out["q_m_task"] = 100.0 * float(per_task[mask].sum() / per_task.sum())
    return out
