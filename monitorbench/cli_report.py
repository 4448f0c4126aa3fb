"""``monitorbench report --experiment NAME``: :func:`monitorbench.report.build.build_report` from
the one command, after checking that the experiment exists in the tracking store.

The check reads the store without creating it: asking MLflow about a local SQLite store that does
not exist yet would create ``outputs/mlflow.db`` (and ``outputs/``) just to say "no such
experiment". So a missing store, or an experiment it does not hold, fails here with the
experiments that do exist and how to make the one asked for.
"""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

from monitorbench.compose import group_options
from monitorbench.errors import InputError

EXAMPLES = """examples:
  monitorbench report --experiment main
  monitorbench report --experiment g4adv --sweep latest --out /tmp/g4adv-report"""


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="monitorbench report",
                                 description="Paper-style tables with bootstrap CIs and plots "
                                             "for a sweep logged to MLflow.", epilog=EXAMPLES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--experiment", required=True, help="experiment name, e.g. main")
    ap.add_argument("--sweep", default="latest", help="`latest` or a sweep parent run id")
    ap.add_argument("--out", type=Path, default=None,
                    help="output directory (default outputs/reports/<experiment>/<sweep run id>)")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    ap.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    return ap


def main(argv: list[str]) -> int:
    from monitorbench.report.build import build_report

    args = build_parser().parse_args(argv)
    outputs = Path(os.environ.get("MONITORBENCH_OUTPUTS", "outputs"))
    check_experiment(args.experiment, outputs)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    report = build_report(args.experiment, sweep=args.sweep, out=args.out, outputs=outputs,
                          n_resamples=args.resamples, seed=args.seed)
    print((report.out_dir / "report.md").read_text(encoding="utf-8"))
    print(f"written to {report.out_dir}; logged to MLflow run {report.parent_run_id} "
          "under report/")
    return 0


def check_experiment(name: str, outputs: Path) -> None:
    """Fail unless the tracking store exists and holds experiment ``name``; create nothing."""
    how = (f"run it first: `monitorbench run +experiment={name}`" if name in
           group_options("experiment") else
           f"configured experiments: {', '.join(group_options('experiment'))}")
    uri = os.environ.get("MLFLOW_TRACKING_URI")
    if not uri:
        db = outputs / "mlflow.db"
        if not db.is_file():
            raise InputError(db, "--experiment", f"no MLflow store at {db}, so no experiment "
                             f"{name!r}", f"{how} (with the same MONITORBENCH_OUTPUTS / "
                             "MLFLOW_TRACKING_URI)")
        uri = f"sqlite:///{db.resolve()}"
    from mlflow.tracking import MlflowClient

    existing = sorted(e.name for e in MlflowClient(tracking_uri=uri).search_experiments()
                      if e.name != "Default")
    if name not in existing:
        raise InputError(uri, "--experiment", f"no experiment {name!r} in the MLflow store",
                         f"existing experiments: {', '.join(existing) or 'none'}; {how}")

