"""Hydra callback that gives a sweep one MLflow parent run and a leaderboard when it ends.

The parent run is created in the launching process before any job starts; its id and the
settings the sweep varies reach the jobs through the sweep's record in the sweep directory
(:mod:`monitorbench.tracking.sweep_record`), which in-process, submitit-local and Slurm jobs
all read by the sweep directory their config names: no environment variable, no global state.
"""

from __future__ import annotations

import atexit
import logging
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from monitorbench.errors import MonitorbenchError
from monitorbench.tracking.mlflow_logger import (client_for, code_tags, experiment_id,
                                                 log_params_metrics, start_run, tracking_uri,
                                                 ui_hint)
from monitorbench.tracking.sweep_record import SweepRecord, write_record

log = logging.getLogger(__name__)


SLURM_LAUNCHER = "SlurmLauncher"


class SlurmGuardCallback(Callback):
    """For ``hydra/launcher=slurm`` only: refuse a request the cluster can never satisfy before
    submitting, and watch the submitted jobs for pending reasons that never clear
    (:mod:`monitorbench.launch.slurm_guard`). Listed before the MLflow callback so a refused
    sweep leaves no parent run."""

    def __init__(self) -> None:
        self.watch: Any = None

    def __getstate__(self) -> dict[str, Any]:
        """submitit pickles the callbacks into every job; the watch thread stays behind."""
        return {"watch": None}

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        launcher = config.hydra.launcher
        if not str(launcher.get("_target_", "")).endswith(SLURM_LAUNCHER):
            return
        from monitorbench.launch.slurm_guard import PendingWatch, check_request

        try:
            check_request({k: launcher.get(k) for k in
                           ("partition", "cpus_per_task", "mem_gb", "timeout_min")})
        except MonitorbenchError as e:
            # Hydra turns a callback's exception into a warning and goes on to submit: exit.
            log.error("%s", e)
            raise SystemExit(2) from e
        self.watch = PendingWatch(Path(str(config.hydra.sweep.dir)) / ".submitit")
        self.watch.start()

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        if self.watch is not None:
            self.watch.stop()


class MlflowSweepCallback(Callback):
    """Writes the sweep's record for its jobs (the settings it varies, which name their runs,
    tracked or not) and, when tracked, opens the sweep's MLflow parent run before the jobs and
    closes it with the leaderboard after them."""

    def __init__(self) -> None:
        self.parent_run_id: str | None = None   # open from multirun start to multirun end

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        sweep_dir = Path(str(config.hydra.sweep.dir))
        axes = tuple(sweep_overrides(config)[0])
        write_record(sweep_dir, SweepRecord(None, axes))   # untracked, or the store is down
        if not config.tracking.enabled:
            return
        try:
            self.parent_run_id = self._open_parent(config)
            write_record(sweep_dir, SweepRecord(self.parent_run_id, axes))
        except Exception as e:
            # Hydra would only warn and run the sweep untracked, with no parent run: stop.
            log.error("could not open the sweep's MLflow parent run: %s: %s",
                      type(e).__name__, e)
            raise SystemExit(2) from e

    def _open_parent(self, config: DictConfig) -> str | None:
        """The sweep's parent run, found or created; None when the store is down and
        ``tracking.when_down`` lets the sweep judge now."""
        from monitorbench.tracking.connection import check_when_down, configure_http, probe

        outputs = Path(config.paths.outputs)
        swept, fixed = sweep_overrides(config)
        uri = tracking_uri(config.tracking.tracking_uri, outputs)
        configure_http(float(config.tracking.timeout_s), int(config.tracking.retries))
        down = probe(uri, float(config.tracking.timeout_s))
        if down is not None:
            if check_when_down(str(config.tracking.when_down)) == "fail":
                raise ConnectionError(f"MLflow at {uri} is unreachable ({down}); nothing was "
                                      "judged. Start the server, or set "
                                      "tracking.when_down=log_later, or tracking=off")
            log.warning("MLflow at %s is unreachable (%s): the sweep judges now and its runs "
                        "are logged on a re-run once the server is back", uri, down)
            return None
        client = client_for(uri)
        name = config.tracking.experiment_name or config.experiment_name
        exp = experiment_id(client, name, outputs)
        sweep_dir = Path(str(config.hydra.sweep.dir))
        run_id = _sweep_parent(client, exp, name, swept, fixed, sweep_dir)
        atexit.register(self._close_abandoned, uri, run_id)
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL):
            # `kill` would end the process without running atexit hooks: exit cleanly instead
            signal.signal(signal.SIGTERM, _exit_on_sigterm)
        log.info("MLflow parent run %s for sweep %s", run_id, sweep_dir)
        return run_id

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        run_id, self.parent_run_id = self.parent_run_id, None   # closed here, not at exit
        if not config.tracking.enabled or not run_id:
            return
        from monitorbench.tracking.sweep_report import finish_parent

        outputs = Path(config.paths.outputs)
        uri = tracking_uri(config.tracking.tracking_uri, outputs)
        sweep_dir = Path(str(config.hydra.sweep.dir))
        try:
            client = client_for(uri)
            finish_parent(client, run_id, sweep_dir, outputs / "runs")
        except Exception as e:
            from monitorbench.tracking.connection import is_unreachable, not_logged, reason

            if not is_unreachable(e):
                raise
            log.error("%s", not_logged(uri, reason(e)))
            raise SystemExit(2) from None
        _print_summary(sweep_dir, uri, client.get_run(run_id).info.experiment_id)

    def _close_abandoned(self, uri: str, run_id: str) -> None:
        """At interpreter exit: a sweep that never reached ``on_multirun_end`` (Ctrl-C, a
        crash) marks its parent run KILLED, so the MLflow UI does not show it RUNNING forever.
        Its finished child runs stay as they are; a re-run reopens the parent and reuses their
        judgments."""
        if self.parent_run_id != run_id:
            return  # the sweep ended normally and closed it
        try:
            client_for(uri).set_terminated(run_id, "KILLED")
        except Exception as e:  # the store may be unreachable at exit: say so, keep the exit
            log.warning("could not mark abandoned sweep parent %s KILLED: %s", run_id, e)


def _sweep_parent(client: Any, exp: str, name: str, swept: dict[str, str],
                  fixed: dict[str, str], sweep_dir: Path) -> str:
    """The sweep's parent run, found by what the sweep runs (experiment, swept and fixed
    settings): a re-run of the same sweep reopens its parent, so the experiment keeps one
    parent and one run per configuration instead of a copy per attempt."""
    import hashlib

    from monitorbench.hashing import canonical_json

    key = hashlib.sha256(canonical_json({"experiment": name, "swept": swept,
                                         "fixed": fixed}).encode()).hexdigest()[:20]
    tags = {"monitorbench.sweep_dir": str(sweep_dir), "monitorbench.role": "sweep",
            "monitorbench.sweep_axes": ", ".join(swept) or "none",
            "monitorbench.sweep_key": key}
    found = client.search_runs([exp], filter_string=f"tags.`monitorbench.sweep_key` = '{key}'",
                               order_by=["attributes.start_time DESC"], max_results=1)
    if found:
        run_id = found[0].info.run_id
        client.update_run(run_id, status="RUNNING")
        for k, v in {**code_tags(), **tags}.items():    # this attempt's directory and code
            client.set_tag(run_id, k, v)
        log.info("reopening MLflow parent run %s of this sweep", run_id)
        return run_id
    run_id = start_run(client, exp, f"{name} sweep {time.strftime('%Y-%m-%d %H:%M:%S')}", tags)
    log_params_metrics(client, run_id, {"experiment": name,
                                        **{f"sweep.{k}": v for k, v in swept.items()},
                                        **{f"override.{k}": v for k, v in fixed.items()}}, {})
    return run_id


def _print_summary(sweep_dir: Path, uri: str, experiment: str) -> None:
    """The leaderboard and where to look next, at the end of the sweep's output."""
    board = sweep_dir / "leaderboard.md"
    if board.is_file():
        print("\n" + board.read_text(encoding="utf-8"), flush=True)
    from monitorbench.tracking.console import view_command

    print(f"Outputs: {sweep_dir}", flush=True)
    print(f"View the cases: {view_command(str(sweep_dir))}", flush=True)
    print(f"MLflow:  {ui_hint(uri, f'#/experiments/{experiment}/runs')}", flush=True)


def sweep_overrides(config: DictConfig) -> tuple[dict[str, str], dict[str, str]]:
    """The sweep's overrides, from the command line and the experiment's ``hydra.sweeper.params``,
    split into the swept ones (``generator -> always_accept,always_reject``) and the fixed ones.
    Hydra's own override parser decides what is a sweep (``a,b``, ``range(..)``, ``glob(..)``)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    lines = list(config.hydra.overrides.task)
    params = config.hydra.sweeper.get("params") or {}
    lines += [f"{k}={v}" for k, v in params.items()]
    swept: dict[str, str] = {}
    fixed: dict[str, str] = {}
    for o in OverridesParser.create().parse_overrides(lines):
        key = o.get_key_element().lstrip("+~")
        if key.startswith("hydra"):
            continue
        if o.is_sweep_override():
            swept[key] = ",".join(o.sweep_string_iterator())
        else:
            fixed[key] = o.get_value_element_as_str()
    for key in swept:
        fixed.pop(key, None)
    return swept, fixed


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    log.warning("SIGTERM: stopping the sweep (finished judgments are kept; a re-run resumes)")
    sys.exit(128 + signum)
