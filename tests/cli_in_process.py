"""The command-line entry points called in the test's process, answering as a subprocess would.

``monitorbench ARGS`` is :func:`monitorbench.cli.main` and ``python -m monitorbench ARGS`` is
:func:`monitorbench.__main__.run` (its ``__main__`` block is ``sys.exit(run(sys.argv[1:]))``), so
a test of what a command says or refuses can call the function itself: the same code, without a
Python start-up and monitorbench's imports (about a CPU-second a call on this machine). Each
command keeps one real subprocess in tests/test_cli.py or tests/test_config.py, which shows that
the installed script and ``python -m`` reach these functions.

What a separate process keeps to itself is set for the call and taken back after it: the
environment and working directory (``monkeypatch``), ``sys.argv`` (which ``run`` rewrites for
Hydra), the SIGTERM handler a sweep installs, the logging handlers Hydra installs when it starts
a run or sweep, and Hydra's process-wide singletons (the last run's ``HydraConfig``); Hydra clears its ``GlobalHydra``
itself. An exit through ``sys.exit`` (argparse, a refused sweep) gives its status, as a process
would.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
Entry = Callable[[Sequence[str]], "int | None"]


def monitorbench(args: Sequence[str]) -> int | None:
    """``monitorbench ARGS``: the console script's function."""
    from monitorbench.cli import main

    return main(list(args))


def python_m(args: Sequence[str]) -> int | None:
    """``python -m monitorbench ARGS``: what the module's ``__main__`` block calls."""
    from monitorbench.__main__ import run

    return run(list(args))


@contextmanager
def _logging_kept() -> Iterator[None]:
    """Every logger's handlers, level and flags as they were before Hydra configured logging."""
    manager = logging.Logger.manager
    loggers = [logging.getLogger()] + [lg for lg in manager.loggerDict.values()
                                       if isinstance(lg, logging.Logger)]
    saved = [(lg, lg.handlers[:], lg.level, lg.propagate, lg.disabled) for lg in loggers]
    try:
        yield
    finally:
        known = {id(lg) for lg in loggers}
        for lg in list(manager.loggerDict.values()):
            if isinstance(lg, logging.Logger) and id(lg) not in known:
                _restore(lg, [], logging.NOTSET, True, False)   # made during the call
        for lg, handlers, level, propagate, disabled in saved:
            _restore(lg, handlers, level, propagate, disabled)


def _restore(lg: logging.Logger, handlers: list[logging.Handler], level: int,
             propagate: bool, disabled: bool) -> None:
    for handler in lg.handlers:
        if handler not in handlers:
            handler.close()
    lg.handlers[:] = handlers
    lg.setLevel(level)
    lg.propagate, lg.disabled = propagate, disabled


@contextmanager
def _sigterm_kept() -> Iterator[None]:
    """The SIGTERM handler as it was: a sweep's MLflow callback installs its own (exit through
    the atexit hooks), which must not outlive the call in the test process."""
    previous = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _hydra_singletons_kept() -> Iterator[None]:
    """Hydra's singletons (``HydraConfig``, ``JobRuntime``, ...) as they were: those made during
    the call are dropped, the others get their attributes back."""
    from hydra.core.singleton import Singleton

    saved = {cls: (inst, dict(vars(inst))) for cls, inst in Singleton._instances.items()}
    try:
        yield
    finally:
        for cls in [c for c in Singleton._instances if c not in saved]:
            del Singleton._instances[cls]
        for cls, (inst, attrs) in saved.items():
            Singleton._instances[cls] = inst
            vars(inst).clear()
            vars(inst).update(attrs)


def run_here(entry: Entry, args: Sequence[str], monkeypatch: pytest.MonkeyPatch,
             capsys: pytest.CaptureFixture[str], *, env: dict[str, str] | None = None,
             cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``entry(args)`` in this process, in ``cwd`` with ``env`` set: the exit status, stdout
    (Hydra logs there) and stderr that the command run as a subprocess would give."""
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "argv", [sys.argv[0]])
    capsys.readouterr()
    code: Any
    with _logging_kept(), _hydra_singletons_kept(), _sigterm_kept():
        try:
            code = entry(list(args))
        except SystemExit as e:
            code = e.code
    if not isinstance(code, int):
        code = 0 if code is None else 1     # sys.exit("message") exits 1, as Python does
    out = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), code, out.out, out.err)
