"""Find built suites on disk: the default build of a source and its slices.

A source's suite is built into ``<suites_dir>/<name>`` (default options) or
``<suites_dir>/<name>-<options hash>`` (a slice, e.g. the 12 AgentDojo tasks of
``task=mixed_small``). Commands that take a task id or a suite name (``score``, ``list tasks``)
look here first, so a task that is in a built slice is found there instead of starting a build of
the whole source (the full AgentDojo build takes many minutes).

Public API::

    built_dirs(suites_root, name) -> list[Path]
    dir_holding(suites_root, name, task_id) -> Path | None
    split_dir_name(text) -> tuple[str, str | None]
"""

from __future__ import annotations

import re
from pathlib import Path

MANIFEST = "manifest.json"
_SLICE = re.compile(r"^(?P<name>[A-Za-z0-9_]+)-(?P<hash>[0-9a-f]{10})$")


def split_dir_name(text: str) -> tuple[str, str | None]:
    """``"agentdojo-1a2b3c4d5e"`` -> ``("agentdojo", "agentdojo-1a2b3c4d5e")``; a plain source
    name -> ``(name, None)``."""
    m = _SLICE.match(text)
    return (m.group("name"), text) if m else (text, None)


def built_dirs(suites_root: Path, name: str) -> list[Path]:
    """Every built suite directory of source ``name``: the default build first, then the
    slices by name. Only finished builds count (a build in progress has no manifest yet)."""
    root = Path(suites_root)
    default = root / name
    slices = sorted(p for p in root.glob(f"{name}-*")
                    if _SLICE.match(p.name) and split_dir_name(p.name)[0] == name)
    return [d for d in ([default] + slices) if (d / MANIFEST).is_file()]


def dir_holding(suites_root: Path, name: str, task_id: str) -> Path | None:
    """The first built directory of ``name`` (default first) whose public part has
    ``task_id``, or None."""
    for d in built_dirs(suites_root, name):
        if (d / "public" / task_id / "task.json").is_file():
            return d
    return None
