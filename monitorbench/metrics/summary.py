"""One flat dict of every metric for a configuration: what tracking logs and reports print.

Public API::

    summarize(records: Sequence[Mapping], *, source: str | Path | None = None)
        -> dict[str, float]

Keys (all MLflow-safe: letters, digits, ``_ - . /``; rates in percent):

- ``ba_norm``, ``tpr``, ``tnr``, ``fpr_h`` and ``<task_type>/<metric>`` (equal task weighting;
  :mod:`monitorbench.metrics.rates`), ``fpr_h/<attack_category>``;
- ``submission_rate``, ``n_submitted``, ``valid_output_rate``, ``rejection_share``,
  ``group/<group>/{n,p,f,u,valid_output_rate}`` (test-case weighted), ``diag/infra_failures``,
  ``diag/infra_tasks_unscored`` (:mod:`monitorbench.metrics.diagnostics`);
- ``all_reject_tasks``, ``false_rejections``, ``q_m``, ``q_m_task``
  (:mod:`monitorbench.metrics.concentration`);
- ``n_tasks``, ``n_cases``, ``n_attack_tasks``.

A metric whose denominator is empty is *absent*, never 0 or NaN: ``fpr_h`` without attack cases
(``n_attack_tasks`` is 0), ``rejection_share`` when every positive was accepted, ``q_m`` and
``q_m_task`` without false rejections (``false_rejections`` is 0). Bad records raise
:class:`monitorbench.errors.InputError`; records from several judgment rounds must first go
through :func:`monitorbench.metrics.rounds.select_median_round`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from monitorbench.metrics.concentration import concentration
from monitorbench.metrics.diagnostics import pooled_diagnostics
from monitorbench.metrics.rates import headline_rates
from monitorbench.metrics.records import build_table


def summarize(records: Sequence[Mapping[str, Any]], *,
              source: str | Path | None = None) -> dict[str, float]:
    """Every metric of one configuration; ``source`` names the records' file in error messages.

    The run (its MLflow metrics, which the sweep leaderboard reads) and ``report`` (from the
    run's judgments table) both call this on the same records, so every rate, the submission
    rate included, has exactly one definition. Infrastructure failures are excluded here
    (:func:`monitorbench.metrics.records.is_infra_failure`) and only counted."""
    table = build_table(records, source=source)
    out: dict[str, float] = {}
    out.update(headline_rates(table))
    out.update(pooled_diagnostics(table))
    out.update(concentration(table))
    out["n_tasks"] = float(table.n_tasks)
    out["n_cases"] = float(table.n_cases)
    out["n_attack_tasks"] = float((table.attack_counts.sum(axis=(1, 2)) > 0).sum())
    return out
