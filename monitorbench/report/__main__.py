"""``python -m monitorbench.report --experiment NAME [--sweep latest|RUN_ID] [--out DIR]``."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from monitorbench.errors import MonitorbenchError
from monitorbench.report.build import build_report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m monitorbench.report",
                                 description="Paper-style tables with bootstrap CIs and plots "
                                             "for a sweep logged to MLflow.")
    ap.add_argument("--experiment", required=True, help="experiment name, e.g. main")
    ap.add_argument("--sweep", default="latest", help="`latest` or a sweep parent run id")
    ap.add_argument("--out", type=Path, default=None,
                    help="output directory (default outputs/reports/<experiment>)")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    ap.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    ap.add_argument("--mlflow-ui-url", default=None,
                    help="address of the MLflow UI the logged report.md loads its plots from "
                         "(default: the tracking server, else http://127.0.0.1:5000)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        report = build_report(args.experiment, sweep=args.sweep, out=args.out,
                              n_resamples=args.resamples, seed=args.seed,
                              ui_url=args.mlflow_ui_url)
    except MonitorbenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print((report.out_dir / "report.md").read_text(encoding="utf-8"))
    print(f"written to {report.out_dir}; logged to MLflow run {report.parent_run_id} "
          "under report/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
