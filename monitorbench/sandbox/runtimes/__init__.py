"""In-sandbox environment runtimes: how a verifier's ``env`` gains task-specific powers.

Contract. The sandbox binds this directory read-only at ``/mb/runtimes`` and the worker imports it
as the package ``runtimes``. A runtime ``NAME`` is a module ``NAME.py`` in this directory exposing::

    make_env(task: dict, public_dir: str, config: dict) -> object

``task`` is the public ``task.json`` dict, ``public_dir`` the task's public directory as seen in the
sandbox (``/task``) and ``config`` is ``SandboxSpec.runtime_config``. The worker imports the
runtime module once (it is trusted framework code, so importing it in the worker parent is safe
and saves every case the import cost) and calls ``make_env`` afresh in every per-case child, so
each case gets a fresh environment. The worker then sets ``env.task`` and ``env.public_dir`` on the returned
object. If the object has an integer attribute ``executions`` (e.g. how many times the verifier
called ``env.run_public``), its value after ``verify`` returns is reported as
``Verdict.executions``. Runtime ``"none"`` gives a plain env with only ``task`` and ``public_dir``.

A runtime may also expose ``prepare(task, public_dir, config) -> None``, which the worker calls
once per session in the parent, before the first case, with the same arguments. It does the work
every case would repeat (parsing the task's initial environment) and caches it in the module;
the per-case children inherit the cache through fork, so each still gets a fresh ``env`` from
``make_env`` while paying only for what differs per case. ``prepare`` is an optimisation only:
the worker ignores its errors, and ``make_env`` must work (and report the same problem) without it.

Because runtime modules run inside the sandbox, they may import the standard library, packages
from the Python prefix and sibling modules (relative imports), but never ``monitorbench`` itself
(it is not visible there). This file is imported in the sandbox too, so it is standard library only.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Callable

RUNTIMES_DIR = Path(__file__).resolve().parent


def available(runtimes_dir: Path = RUNTIMES_DIR) -> list[str]:
    """Runtime names a spec may name: every ``NAME.py`` here, plus ``"none"``."""
    names = sorted(p.stem for p in Path(runtimes_dir).glob("*.py") if not p.stem.startswith("_"))
    return ["none", *names]


def load_env_factory(name: str, task: dict | None = None, public_dir: str = "",
                     config: dict | None = None) -> Callable[[dict, str, dict], Any]:
    """Import runtime ``name`` from this package and return its ``make_env``; with ``task``,
    first run the module's optional ``prepare(task, public_dir, config)`` (errors ignored: see
    the module doc).

    Raises ``LookupError`` with a readable message when the module or its ``make_env`` is
    missing, so the worker can report it instead of dying with a traceback.
    """
    if not name.isidentifier():
        raise LookupError(f"runtime name {name!r} is not a module name")
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        raise LookupError(f"no runtime module {name}.py in {Path(__file__).parent}") from None
    factory = getattr(module, "make_env", None)
    if not callable(factory):
        raise LookupError(f"runtime module {name}.py defines no callable make_env")
    prepare = getattr(module, "prepare", None)
    if task is not None and callable(prepare):
        try:
            prepare(task, public_dir, config or {})
        except Exception:  # noqa: BLE001 - make_env reports the same problem, per case
            pass
    return factory
