"""The report command: paper-style tables with uncertainty, read back from a logged sweep.

Modules, one job each: :mod:`.source` (find the sweep's parent run in MLflow, load its finished
jobs and their judgment records), :mod:`.analysis` (task-bootstrap and paired CIs, cached),
:mod:`.tables` (the paper's tables as typed cells), :mod:`.render` (markdown + CSV),
:mod:`.build` (assemble, plot, log to the parent run), ``__main__`` (the CLI).

Public API::

    build_report(experiment, *, sweep="latest", out=None, tracking_uri=None, outputs=None,
                 n_resamples=1000, seed=0) -> Report
"""

from monitorbench.report.build import Report, build_report

__all__ = ["Report", "build_report"]
