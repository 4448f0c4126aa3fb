"""``python -m monitorbench.audit suite=bfcl [OVERRIDE ...]``: audit one suite from the shell.

``suite=NAME`` picks ``conf/audit/NAME.yaml`` (which suite, with the options runs use, so the
exclusions land next to the suite runs load); every other argument is a Hydra override of the
main config, e.g. ``task.max_tasks_per_type=3 tracking=off paths.outputs=/tmp/out``. Prints the
totals as JSON on stdout and every excluded task with its reasons and evidence on stderr; exit
status 0 even when tasks are excluded (exclusion is the audit's normal output), 2 on bad input.
``-h``/``--help`` prints this text, the checks and the known suites.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Sequence

from hydra import compose, initialize_config_dir
from hydra.errors import HydraException

from monitorbench.config import register_configs
from monitorbench.errors import InputError, MonitorbenchError

CONF = Path(__file__).resolve().parents[2] / "conf"


def overrides(argv: Sequence[str]) -> list[str]:
    """Hydra overrides for the arguments: ``suite=X`` becomes ``+audit=X``."""
    suites = [a.split("=", 1)[1] for a in argv if a.startswith("suite=")]
    if len(suites) != 1:
        known = sorted(p.stem for p in (CONF / "audit").glob("*.yaml"))
        raise InputError(None, "suite", "give exactly one suite=NAME argument",
                         f"use one of {', '.join(known)}")
    if not (CONF / "audit" / f"{suites[0]}.yaml").is_file():
        known = sorted(p.stem for p in (CONF / "audit").glob("*.yaml"))
        raise InputError(CONF / "audit", "suite", f"no audit config {suites[0]!r}",
                         f"use one of {', '.join(known)}")
    return [f"+audit={suites[0]}", "experiment_name=audit",
            *[a for a in argv if not a.startswith("suite=")]]


def usage() -> str:
    """The --help text: how to call the command, what it checks, which suites it knows."""
    from monitorbench.audit.model import CHECK_NAMES

    known = sorted(p.stem for p in (CONF / "audit").glob("*.yaml"))
    checks = ", ".join(f"{k} {v}" for k, v in CHECK_NAMES.items())
    return (f"usage: python -m monitorbench.audit suite=NAME [OVERRIDE ...]\n\n{__doc__}\n"
            f"checks: {checks}\nsuites: {', '.join(known)}\n")


def main(argv: Sequence[str] | None = None) -> int:
    from monitorbench.audit.run import run_audit
    from monitorbench.pipeline.prepare import typed_config

    args = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in args):
        print(usage())
        return 0
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    register_configs()
    try:
        try:
            with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
                cfg = compose("config", overrides=overrides(args))
        except HydraException as e:
            raise InputError(CONF / "config.yaml", "overrides", str(e).splitlines()[0],
                             "check the key names and values of the overrides") from None
        metrics = run_audit(typed_config(cfg))   # the one conversion, at the entry point
    except MonitorbenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(metrics, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
