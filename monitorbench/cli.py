"""``monitorbench``: one command for everything (the console script ``pyproject.toml`` installs).

Each subcommand is the existing entry point under one name, so there is one vocabulary (the config
groups' option names, e.g. the ``access=`` options for ``score --access``) and one place to look:

    monitorbench run [OVERRIDE ...]        a job or sweep (Hydra; ``python -m monitorbench`` too)
    monitorbench score DIR --task ID       one verifier on one task, in the sandbox
    monitorbench report --experiment NAME  paper-style tables for a sweep in MLflow
    monitorbench audit suite=NAME          the V4V audit of one suite
    monitorbench build [NAME ...|all]      build frozen suites
    monitorbench list tasks|suites|experiments
    monitorbench show TASK_ID              one task's public part
    monitorbench sandbox build-image       the docker backend's image, from the Debian mirror
    monitorbench view RUN_OR_SWEEP_DIR     pages of every judged case, verifier code and trace

``run`` is ``python -m monitorbench`` called in this process: both check the overrides with the
strict message of :mod:`monitorbench.compose` before any output directory exists.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Callable, Sequence

from monitorbench.cli_info import version_line, warn_if_other_checkout
from monitorbench.compose import compose_config, config_groups, group_options
from monitorbench.errors import MonitorbenchError

TOP_HELP = """usage: monitorbench COMMAND [ARGS ...]

Measure how well agents write executable verifiers (VerifierBench method).

commands:
  run        run a job or a sweep; arguments are Hydra overrides
  score      score one verifier directory on one task, in the sandbox
  report     tables with bootstrap CIs and plots for a sweep logged to MLflow
  audit      the V4V audit of one suite
  build      build frozen suites ({sources}, all)
  list       list tasks of a suite, the suites, or the experiments
  sandbox    build-image: build the docker backend's image (Debian mirror only)
  show       print one task as a verifier sees it (instruction, tools, files)
  view       pages of a run's cases, verdicts, verifier code and generation trace

examples:
  monitorbench run +experiment=quickstart
  monitorbench score my_verifier --task bfcl.simple_python_101
  monitorbench list tasks --suite bfcl
  monitorbench show bfcl.simple_python_101

`monitorbench COMMAND --help` shows each command's options and an example;
`monitorbench --version` the package version and git commit."""

RUN_HELP = """usage: monitorbench run [-m] [-v] [OVERRIDE ...]

Run one job (or, with -m or a sweep experiment, a sweep) through Hydra; the same as
`python -m monitorbench OVERRIDE ...`. Every key is typed: a misspelt key, a `+key=` the schema
does not define or a value outside an enum fails before anything runs, listing what exists.
-v keeps the HTTP client's request log lines (off by default).

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


def run_cmd(argv: Sequence[str]) -> int:
    """``monitorbench run``: exactly ``python -m monitorbench`` (:func:`monitorbench.__main__.
    run`: the overrides checked strictly, then Hydra's entry point in this process); only
    ``--help`` is this command's own (Hydra's is ``--hydra-help``)."""
    if _wants_help(argv):
        groups = "\n".join(f"  {g}: {', '.join(group_options(g))}" for g in config_groups())
        print(RUN_HELP.format(groups=groups))
        return 0
    from monitorbench.__main__ import run

    return run(["--help" if a == "--hydra-help" else a for a in argv])


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


def sandbox_cmd(argv: Sequence[str]) -> int:
    from monitorbench.cli_sandbox import main as sandbox_main

    return sandbox_main(list(argv))


def show_cmd(argv: Sequence[str]) -> int:
    from monitorbench.cli_list import show_main

    return show_main(list(argv))


def view_cmd(argv: Sequence[str]) -> int:
    from monitorbench.cli_view import main as view_main

    return view_main(list(argv))


def complete_cmd(argv: Sequence[str]) -> int:
    """``monitorbench -sc ...``: Hydra's tab completion of ``run``'s overrides. The script that
    ``monitorbench run -sc install=bash`` prints asks ``monitorbench -sc query=bash`` with the
    line typed so far in ``$COMP_LINE``: while the command is typed, the commands that fit;
    after ``monitorbench run``, Hydra's answer for the rest of the line; else nothing."""
    if not any(a.startswith("query=") for a in argv):
        return run_cmd(argv)                    # install=bash, uninstall=bash
    line = os.environ.get("COMP_LINE", "")
    words = line.split()
    if len(words) < 2 or (len(words) == 2 and not line.endswith(" ")):
        typed = words[1] if len(words) == 2 else ""
        print(" ".join(c for c in COMMANDS if c.startswith(typed)))
        return 0
    if words[1] != "run":
        return 0
    os.environ["COMP_LINE"] = re.sub(r"^(\s*\S+)\s+run\b", r"\1", line)  # as if `python -m`
    return run_cmd(argv)


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "run": run_cmd, "score": score_cmd, "report": report_cmd, "audit": audit_cmd,
    "build": build_cmd, "list": list_cmd, "sandbox": sandbox_cmd, "show": show_cmd,
    "view": view_cmd,
}


def top_help() -> str:
    """The top-level help, its list of sources from the source registry."""
    from monitorbench.suites.source_registry import source_names

    return TOP_HELP.format(sources=", ".join(source_names()))


def dispatch(argv: list[str]) -> int:
    """The command ``argv`` names, run; help and ``--version`` answered here."""
    if not argv or argv[0] in ("-h", "--help"):
        print(top_help())
        return 0 if argv else 2
    if argv[0] == "--version":
        print(version_line())
        return 0
    warn_if_other_checkout()
    command, rest = argv[0], argv[1:]
    if command in ("-sc", "--shell-completion"):
        return complete_cmd(argv)
    if command not in COMMANDS:
        print(f"error: unknown command {command!r}; use one of {', '.join(COMMANDS)} "
              "(monitorbench --help)", file=sys.stderr)
        return 2
    return COMMANDS[command](rest)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return dispatch(argv)
    except MonitorbenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:   # `monitorbench list tasks | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":   # `python -m monitorbench.cli ARGS` is `monitorbench ARGS`
    sys.exit(main())
