"""``python -m monitorbench +experiment=NAME``: compose the config and run (or sweep) jobs."""

from __future__ import annotations

import gc
import logging
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from hydra.utils import to_absolute_path
from omegaconf import DictConfig

from monitorbench.compose import check_keys
from monitorbench.config import JobKind, check_axes, register_configs
from monitorbench.errors import MonitorbenchError
from monitorbench.tracking.job import axis_labels
from monitorbench.tracking.sweep_record import SweepPlace, read_record

register_configs()
log = logging.getLogger("monitorbench")


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def main(cfg: DictConfig) -> float | None:
    from monitorbench.launch.run import run_job

    try:
        check_keys(cfg)   # `+key=value` force-adds bypass Hydra's struct mode
        check_axes(cfg)   # each job of a sweep: its generator and access go together
    except MonitorbenchError as e:
        log.error("%s", e)
        sys.exit(2)
    hc = HydraConfig.get()
    # Jobs may run in another working directory (submitit, Slurm): pin paths to the launch dir.
    for key in ("outputs", "suites", "cache"):
        cfg.paths[key] = to_absolute_path(cfg.paths[key])
    place = SweepPlace()
    if hc.mode == RunMode.MULTIRUN:   # the sweep's record, by the sweep dir this job's config names
        record = read_record(Path(to_absolute_path(hc.sweep.dir)))
        place = SweepPlace(record.parent_run_id,
                           axis_labels(cfg, record.axes, hc.runtime.choices))
    try:
        if cfg.job == JobKind.audit:
            from monitorbench.audit.run import run_audit

            return run_audit(cfg, parent_run_id=place.parent_run_id).get("tasks_excluded")
        metrics = run_job(cfg, place=place)
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
