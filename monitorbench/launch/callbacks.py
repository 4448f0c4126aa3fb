"""Hydra callback that gives a sweep one MLflow parent run and a leaderboard when it ends.

The parent run is created in the launching process before any job starts; its id reaches the
jobs through an environment variable (inherited by in-process, submitit-local and Slurm jobs,
since sbatch exports the environment) and a file in the sweep directory.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from monitorbench.tracking.mlflow_logger import (PARENT_FILE, client_for, experiment_id,
                                                 start_run, tracking_uri)

log = logging.getLogger(__name__)
PARENT_ENV = "MONITORBENCH_PARENT_RUN_ID"


class MlflowSweepCallback(Callback):
    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        if not config.tracking.enabled:
            return
        outputs = Path(config.paths.outputs)
        client = client_for(tracking_uri(config.tracking.tracking_uri, outputs))
        name = config.tracking.experiment_name or config.experiment_name
        exp = experiment_id(client, name, outputs)
        sweep_dir = Path(str(config.hydra.sweep.dir))
        run_id = start_run(client, exp, f"{name} sweep {time.strftime('%Y-%m-%d %H:%M:%S')}",
                           {"monitorbench.sweep_dir": str(sweep_dir),
                            "monitorbench.role": "sweep"})
        sweep_dir.mkdir(parents=True, exist_ok=True)
        (sweep_dir / PARENT_FILE).write_text(run_id + "\n")
        os.environ[PARENT_ENV] = run_id
        log.info("MLflow parent run %s for sweep %s", run_id, sweep_dir)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        run_id = os.environ.pop(PARENT_ENV, None)
        if not config.tracking.enabled or not run_id:
            return
        from monitorbench.tracking.sweep_report import finish_parent

        outputs = Path(config.paths.outputs)
        client = client_for(tracking_uri(config.tracking.tracking_uri, outputs))
        finish_parent(client, run_id, Path(str(config.hydra.sweep.dir)))
