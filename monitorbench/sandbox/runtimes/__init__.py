"""In-sandbox environment runtimes: how a verifier's ``env`` gains task-specific powers.

Contract. A task source names its runtime in ``SourceSpec.runtime`` as a module path
(``"package.module"``, e.g. ``"mysource.runtime"``); the runtime's code lives in the source's own
package. The runtime is either one module file, which may import the standard library and
packages from the Python prefix only, or a package directory, whose modules may also import each
other (relative imports). The sandbox binds exactly that file or directory read-only under
``/mb/runtime/`` and this loader's ``__init__.py`` at ``/mb/runtimes/``; nothing else of the source
(its builder, references, hidden data) and nothing of monitorbench is visible in there. A bare
name without dots (``"echo"``) instead names a module ``echo.py`` in a backend's ``runtimes_dir``,
a directory named ``runtimes`` holding a copy of this file (tests use one with toy runtimes).

A runtime module exposes::

    make_env(task: dict, public_dir: str, config: dict) -> object

``task`` is the public ``task.json`` dict, ``public_dir`` the task's public directory as seen in the
sandbox (``/task``) and ``config`` is ``SandboxSpec.runtime_config``. The worker imports the
runtime module once (it is trusted framework code, so importing it in the worker parent is safe
and saves every case the import cost) and calls ``make_env`` afresh in every per-case child, so
each case gets a fresh environment. The worker then sets ``env.task`` and ``env.public_dir`` on the
returned object. If the object has an integer attribute ``executions`` (e.g. how many times the
verifier called ``env.run_public``), its value after ``verify`` returns is reported as
``Verdict.executions``. Runtime ``"none"`` gives a plain env with only ``task`` and ``public_dir``.

A runtime may also expose ``prepare(task, public_dir, config) -> None``, which the worker calls
once per session in the parent, before the first case, with the same arguments. It does the work
every case would repeat (parsing the task's initial environment) and caches it in the module;
the per-case children inherit the cache through fork, so each still gets a fresh ``env`` from
``make_env`` while paying only for what differs per case. ``prepare`` is an optimisation only:
the worker ignores its errors, and ``make_env`` must work (and report the same problem) without it.

Because runtime modules run inside the sandbox, they never import ``monitorbench`` itself (it is
not visible there). This file is imported in the sandbox too, so it is standard library only.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, Callable

RUNTIMES_DIR = Path(__file__).resolve().parent
MODULE_NAME = "mb_runtime"  # the name the runtime is imported under in the sandbox


def available(runtimes_dir: Path = RUNTIMES_DIR) -> list[str]:
    """Bare runtime names ``runtimes_dir`` offers: every ``NAME.py`` there, plus ``"none"``."""
    names = sorted(p.stem for p in Path(runtimes_dir).glob("*.py") if not p.stem.startswith("_"))
    return ["none", *names]


def _import_file(path: str):
    """Import the runtime at ``path`` (a ``.py`` file, or a package directory whose modules may
    import each other) as :data:`MODULE_NAME`."""
    if os.path.isdir(path):
        spec = importlib.util.spec_from_file_location(
            MODULE_NAME, os.path.join(path, "__init__.py"), submodule_search_locations=[path])
    else:
        spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
    if spec is None or spec.loader is None or not os.path.exists(spec.origin or ""):
        raise LookupError(f"no runtime module at {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE_NAME] = module  # before exec: a package's relative imports look it up
    spec.loader.exec_module(module)
    return module


def load_env_factory(path: str, task: dict | None = None, public_dir: str = "",
                     config: dict | None = None) -> Callable[[dict, str, dict], Any]:
    """Import the runtime at ``path`` and return its ``make_env``; with ``task``, first run the
    module's optional ``prepare(task, public_dir, config)`` (errors ignored: see the module doc).

    Raises ``LookupError`` with a readable message when the module or its ``make_env`` is
    missing, so the worker can report it instead of dying with a traceback.
    """
    module = _import_file(path)
    factory = getattr(module, "make_env", None)
    if not callable(factory):
        raise LookupError(f"runtime module {path} defines no callable make_env")
    prepare = getattr(module, "prepare", None)
    if task is not None and callable(prepare):
        try:
            prepare(task, public_dir, config or {})
        except Exception:  # noqa: BLE001 - make_env reports the same problem, per case
            pass
    return factory
