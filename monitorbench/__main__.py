"""``python -m monitorbench +experiment=NAME``: compose the config and run (or sweep) jobs."""

from __future__ import annotations

import gc
import logging
import os
import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from hydra.utils import to_absolute_path
from omegaconf import DictConfig

from monitorbench.compose import check_keys
from monitorbench.config import JobKind, register_configs
from monitorbench.errors import MonitorbenchError
from monitorbench.launch.callbacks import PARENT_ENV
from monitorbench.tracking.mlflow_logger import read_parent

register_configs()
log = logging.getLogger("monitorbench")


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def main(cfg: DictConfig) -> float | None:
    from monitorbench.launch.run import run_job

    try:
        check_keys(cfg)   # `+key=value` force-adds bypass Hydra's struct mode
    except MonitorbenchError as e:
        log.error("%s", e)
        sys.exit(2)
    hc = HydraConfig.get()
    # Jobs may run in another working directory (submitit, Slurm): pin paths to the launch dir.
    for key in ("outputs", "suites", "cache"):
        cfg.paths[key] = to_absolute_path(cfg.paths[key])
    parent = None
    if hc.mode == RunMode.MULTIRUN:
        parent = os.environ.get(PARENT_ENV) or read_parent(hc.sweep.dir)
    try:
        if cfg.job == JobKind.audit:
            from monitorbench.audit.run import run_audit

            return run_audit(cfg, parent_run_id=parent).get("tasks_excluded")
        metrics = run_job(cfg, parent_run_id=parent)
    except MonitorbenchError as e:
        log.error("%s", e)
        sys.exit(2)
    except KeyboardInterrupt as e:  # Ctrl-C: the job stopped, its MLflow run is KILLED
        print(str(e) or "interrupted; run the same command again to resume (finished work is "
              "kept)", file=sys.stderr, flush=True)
        # Everything is on disk: skip the collection of the whole heap at interpreter exit
        # (seconds with the suites, MLflow and SQLAlchemy loaded), so Ctrl-C ends at once.
        gc.freeze()
        sys.exit(130)
    return metrics.get("ba_norm")


if __name__ == "__main__":
    main()
