"""``python -m monitorbench +experiment=NAME``: compose the config and run (or sweep) jobs.

This module is where a job stops reading Hydra. :func:`main` (Hydra's task function, run once
per job of a sweep) checks the composed ``DictConfig``, converts it once to the typed
:class:`~monitorbench.config.MonitorbenchConfig` and works out the job's place in its sweep
(:class:`~monitorbench.tracking.sweep_record.SweepPlace`, from the options Hydra chose and the
sweep's own record); everything below takes those typed values only.

:func:`run` is the command line of ``python -m monitorbench ARGS`` and ``monitorbench run ARGS``
alike: it composes the overrides strictly first, so a typo (``generatr=x``) fails with the
"did you mean" of :mod:`monitorbench.compose` before any output directory exists, then calls
:func:`main` in this process with the same arguments.
"""

from __future__ import annotations

import gc
import logging
import sys
from pathlib import Path
from typing import Sequence

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from hydra.utils import to_absolute_path
from omegaconf import DictConfig

from monitorbench.compose import CONF, check_keys, compose_config, sweep_checks
from monitorbench.config import JobKind, MonitorbenchConfig, check_axes, register_configs
from monitorbench.errors import MonitorbenchError
from monitorbench.pipeline.prepare import typed_config
from monitorbench.tracking.job import axis_labels
from monitorbench.tracking.sweep_record import SweepPlace, read_record

register_configs()
log = logging.getLogger("monitorbench")
# Loggers of HTTP clients: one INFO line per request (every chat completion of a model run) or
# retry (the openai SDK's "Retrying request", which names no cause; a failure that persists
# is reported once, with its cause) is noise in a run's log; `-v` keeps them. The openai SDK's
# client is httpx2 (openai 3.x), which logs as "httpx2", not "httpx": both are listed.
HTTP_LOGGERS = ("httpx", "httpcore", "httpx2", "httpcore2", "urllib3", "openai")
VERBOSE_FLAGS = ("-v", "--verbose")
_verbose = False


def quiet_http_logs(verbose: bool) -> None:
    """HTTP client request logs at WARNING unless ``verbose`` (``-v``); called after Hydra has
    configured logging for the job, which would otherwise leave them at INFO."""
    for name in HTTP_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET if verbose else logging.WARNING)


# An absolute path: Hydra finds conf/ the same way whether this module runs as __main__
# (``python -m monitorbench``) or is imported by the console script (``monitorbench run``).
@hydra.main(version_base="1.3", config_path=str(CONF), config_name="config")
def main(cfg: DictConfig) -> float | None:
    """One job: the composed config checked and typed, then judged (or audited)."""
    quiet_http_logs(_verbose)
    try:
        conf = job_config(cfg)
        place = sweep_place(conf)
    except MonitorbenchError as e:
        log.error("%s", e)
        sys.exit(2)
    return _run(conf, place)


def job_config(cfg: DictConfig) -> MonitorbenchConfig:
    """The job's composed config checked, with its paths pinned to the launch directory (jobs
    may run in another working directory: submitit, Slurm), as the typed config."""
    check_keys(cfg)   # `+key=value` force-adds bypass Hydra's struct mode
    for key in ("outputs", "suites", "cache"):
        cfg.paths[key] = to_absolute_path(cfg.paths[key])
    conf = typed_config(cfg)
    check_axes(conf)  # each job of a sweep: its generator and access go together
    return conf


def sweep_place(conf: MonitorbenchConfig) -> SweepPlace:
    """Where this job sits in its sweep: the sweep's MLflow parent run and this job's values of
    the settings the sweep varies, read from the sweep's record in the sweep directory its
    config names and the options Hydra chose; nothing for a single run."""
    hc = HydraConfig.get()
    if hc.mode != RunMode.MULTIRUN:
        return SweepPlace()
    record = read_record(Path(to_absolute_path(hc.sweep.dir)))
    return SweepPlace(record.parent_run_id,
                      axis_labels(conf, record.axes, dict(hc.runtime.choices)))


def _run(conf: MonitorbenchConfig, place: SweepPlace) -> float | None:
    """Judge (or audit) one typed job; bad input exits 2, Ctrl-C exits 130 with the hint."""
    from monitorbench.launch.run import run_job

    try:
        if conf.job == JobKind.audit:
            from monitorbench.audit.run import run_audit

            return run_audit(conf, parent_run_id=place.parent_run_id).get("tasks_excluded")
        metrics = run_job(conf, place=place)
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


def check_overrides(argv: Sequence[str]) -> None:
    """Compose the config (each value of a sweep on its own) with the overrides in ``argv`` the
    strict way, before Hydra: Hydra's own message for ``generatr=x`` names no key that exists,
    and by the time a job could check, Hydra has made its output directory. Hydra's own parser
    reads ``argv``; help, tab completion and another primary config are left to Hydra."""
    from hydra._internal.utils import get_args_parser

    args = get_args_parser().parse_args(list(argv))
    if (args.help or args.hydra_help or args.shell_completion or args.experimental_rerun
            or args.config_name or args.config_path or args.config_dir):
        return
    checks = sweep_checks(args.overrides)
    for checked in checks:
        cfg = compose_config(checked)
    if len(checks) == 1:   # one job: its axes go together (a sweep's jobs check at start)
        check_axes(cfg)


def run(argv: Sequence[str]) -> int:
    """``python -m monitorbench ARGS`` and ``monitorbench run ARGS``: the overrides checked
    (:func:`check_overrides`; exit status 2 with one line), then Hydra's :func:`main` with
    ``argv`` as its command line, in this process; ``-v`` keeps HTTP request logs;
    ``--version`` says monitorbench's version, as ``monitorbench --version`` does."""
    global _verbose
    if "--version" in argv:   # Hydra would answer with its own version ("Hydra 1.3.8")
        from monitorbench.cli_info import version_line

        print(version_line())
        return 0
    _verbose = any(a in VERBOSE_FLAGS for a in argv)
    argv = [a for a in argv if a not in VERBOSE_FLAGS]
    try:
        check_overrides(argv)
    except MonitorbenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sys.argv = [sys.argv[0], *argv]
    main()
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
