"""``monitorbench``: one command for everything (the console script ``pyproject.toml`` installs).

Each subcommand is the existing entry point under one name, so there is one vocabulary (the config
groups' option names, e.g. the ``access=`` options for ``score --access``) and one place to look:

    monitorbench run [OVERRIDE ...]        a job or sweep (Hydra; ``python -m monitorbench`` too)
    monitorbench score DIR --task ID       one verifier on one task, in the sandbox
    monitorbench report --experiment NAME  paper-style tables for a sweep in MLflow
    monitorbench audit suite=NAME          the V4V audit of one suite
    monitorbench build [NAME ...|all]      build frozen suites
    monitorbench list tasks|suites|experiments

``run`` composes the config once with the overrides before handing them to Hydra, so a typo fails
with the strict message of :mod:`monitorbench.compose` before any output directory exists.
"""

from __future__ import annotations

import os
import runpy
import sys
from typing import Callable, Sequence

from monitorbench.compose import compose_config, config_groups, group_options, sweep_checks
from monitorbench.config import check_axes
from monitorbench.errors import MonitorbenchError

TOP_HELP = """usage: monitorbench COMMAND [ARGS ...]

Measure how well agents write executable verifiers (VerifierBench method).

commands:
  run        run a job or a sweep; arguments are Hydra overrides
  score      score one verifier directory on one task, in the sandbox
  report     tables with bootstrap CIs and plots for a sweep logged to MLflow
  audit      the V4V audit of one suite
  build      build frozen suites (bfcl, agentdojo, code, all)
  list       list tasks of a suite, the suites, or the experiments

examples:
  monitorbench run +experiment=quickstart
  monitorbench score my_verifier --task bfcl.simple_python_101
  monitorbench list tasks --suite bfcl

`monitorbench COMMAND --help` shows each command's options and an example."""

RUN_HELP = """usage: monitorbench run [-m] [OVERRIDE ...]

Run one job (or, with -m or a sweep experiment, a sweep) through Hydra; the same as
`python -m monitorbench OVERRIDE ...`. Every key is typed: a misspelt key, a `+key=` the schema
does not define or a value outside an enum fails before anything runs, listing what exists.

examples:
  monitorbench run +experiment=quickstart
  monitorbench run generator=schema_check access=parsed task.max_tasks_per_type=20
  monitorbench run -m generator=always_accept,schema_check access=raw_parsed,raw

config groups (GROUP=OPTION):
{groups}

Hydra's own help: monitorbench run --hydra-help"""

AUDIT_HELP = """usage: monitorbench audit suite=NAME [OVERRIDE ...]

Re-run the V4V audit (replay, repeatability, provenance, input-label consistency, trivial
baselines, mutation testing) of one built suite; other arguments are config overrides.
suites: {suites}

examples:
  monitorbench audit suite=bfcl
  monitorbench audit suite=bfcl task.max_tasks_per_type=3 tracking=off"""

BUILD_EXAMPLES = """examples:
  monitorbench build bfcl
  monitorbench build all --force"""


def _wants_help(argv: Sequence[str]) -> bool:
    return any(a in ("-h", "--help") for a in argv)


# Hydra flags followed by a value, which is not an override.
_VALUE_FLAGS = {"--cfg", "-c", "--package", "-p", "--info", "-i", "--shell-completion", "-sc",
                "--experimental-rerun"}
# With another primary config the pre-check (which composes conf/config.yaml) does not apply.
_CONFIG_FLAGS = ("--config-name", "-cn", "--config-path", "-cp", "--config-dir", "-cd")


def _overrides_of(argv: Sequence[str]) -> list[str] | None:
    """The overrides among Hydra's arguments; None when they name another primary config."""
    overrides: list[str] = []
    skip = False
    for a in argv:
        if a.startswith(_CONFIG_FLAGS):
            return None
        if skip or a.startswith("-"):
            skip = a in _VALUE_FLAGS
            continue
        overrides.append(a)
    return overrides


def run_cmd(argv: Sequence[str]) -> int:
    """``monitorbench run``: check the overrides strictly, then hand them to Hydra."""
    if _wants_help(argv):
        groups = "\n".join(f"  {g}: {', '.join(group_options(g))}" for g in config_groups())
        print(RUN_HELP.format(groups=groups))
        return 0
    argv = ["--help" if a == "--hydra-help" else a for a in argv]
    overrides = _overrides_of(argv)
    if "--help" not in argv and overrides is not None:
        checks = sweep_checks(overrides)
        for checked in checks:
            cfg = compose_config(checked)
        if len(checks) == 1:   # one job: its axes go together (a sweep's jobs check at start)
            check_axes(cfg)
    # Exactly `python -m monitorbench`: run as __main__, Hydra finds conf/ next to the file.
    sys.argv = ["monitorbench", *argv]
    runpy.run_module("monitorbench", run_name="__main__", alter_sys=True)
    return 0


def audit_cmd(argv: Sequence[str]) -> int:
    """``monitorbench audit``: :mod:`monitorbench.audit`'s entry point, overrides checked."""
    from monitorbench.audit.__main__ import main as audit_main
    from monitorbench.audit.__main__ import overrides

    if _wants_help(argv):
        print(AUDIT_HELP.format(suites=", ".join(group_options("audit"))))
        return 0
    compose_config(overrides(argv))
    return audit_main(list(argv))


def build_cmd(argv: Sequence[str]) -> int:
    """``monitorbench build``: :mod:`monitorbench.cli_build`'s entry point."""
    from monitorbench.cli_build import main as build_main

    sys.argv[0] = "monitorbench build"   # argparse names the program after argv[0]
    if _wants_help(argv):
        try:
            build_main(["--help"])
        except SystemExit:
            pass
        print(f"\n{BUILD_EXAMPLES}")
        return 0
    return build_main(list(argv))


def score_cmd(argv: Sequence[str]) -> int:
    from monitorbench.score import main as score_main

    return score_main(list(argv), prog="monitorbench score")


def report_cmd(argv: Sequence[str]) -> int:
    from monitorbench.cli_report import main as report_main

    return report_main(list(argv))


def list_cmd(argv: Sequence[str]) -> int:
    from monitorbench.cli_list import main as list_main

    return list_main(list(argv))


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "run": run_cmd, "score": score_cmd, "report": report_cmd, "audit": audit_cmd,
    "build": build_cmd, "list": list_cmd,
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(TOP_HELP)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(f"error: unknown command {command!r}; use one of {', '.join(COMMANDS)} "
              "(monitorbench --help)", file=sys.stderr)
        return 2
    try:
        return COMMANDS[command](rest)
    except MonitorbenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:   # `monitorbench list tasks | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


