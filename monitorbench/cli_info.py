"""What the command line says about itself: ``monitorbench --version`` and the warning when the
code that runs is not the checkout in the current directory.

An editable install's console script runs the checkout it was installed from; in a second clone
``monitorbench run ...`` would silently read the other clone's ``conf/`` and code. One line on
stderr says so, and how to run the local checkout instead.
"""

from __future__ import annotations

import sys
from pathlib import Path

import monitorbench

PACKAGE_ROOT = Path(monitorbench.__file__).resolve().parents[1]


def version_line() -> str:
    """``monitorbench 0.1.0 (git 98dd6de...+dirty, /path/to/checkout)``: the package version and
    the commit of the code that runs, the same values every run records as tags."""
    from monitorbench.tracking.mlflow_logger import code_tags

    tags = code_tags()
    return (f"monitorbench {tags['monitorbench.version']} "
            f"(git {tags['monitorbench.git_commit']}, {PACKAGE_ROOT})")


def local_checkout(cwd: Path) -> Path | None:
    """The monitorbench checkout that holds ``cwd`` (a directory with ``pyproject.toml`` and
    ``monitorbench/__init__.py``), or None outside one."""
    for d in (cwd, *cwd.parents):
        if (d / "pyproject.toml").is_file() and (d / "monitorbench" / "__init__.py").is_file():
            return d
    return None


def other_checkout_warning(cwd: Path | None = None) -> str | None:
    """The one-line warning when the running package is not the checkout in ``cwd``."""
    local = local_checkout((cwd or Path.cwd()).resolve())
    if local is None or local.resolve() == PACKAGE_ROOT:
        return None
    return (f"warning: running monitorbench from {PACKAGE_ROOT}, not from this checkout "
            f"{local}; to run this one: cd {local} && PYTHONPATH=$PWD python -m monitorbench ... "
            "(or pip install -e . --no-deps here)")


def warn_if_other_checkout() -> None:
    """Print :func:`other_checkout_warning` on stderr, if there is one."""
    line = other_checkout_warning()
    if line:
        print(line, file=sys.stderr)


def plain(doc: str) -> str:
    """A module docstring as help text: without its reST markup (````code````, ``:func:`x```)."""
    import re

    return re.sub(r":\w+:`~?([^`]+)`", r"\1", doc).replace("``", "").strip()
