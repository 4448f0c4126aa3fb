"""What a harness module declares: its pinned package, how it is pointed at the endpoint, and
how its native trajectory becomes trace events."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from monitorbench.config import ConditionConfig, ScaffoldConfig
from monitorbench.generation.harnesses import safe_files
from monitorbench.generation.harnesses.install import Package

Event = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class HarnessRun:
    """One harness invocation as its module needs to configure it."""

    install_dir: Path      # host path (bound at the same path inside)
    home: Path             # host path of the scratch HOME (bound at sandbox.HOME)
    base_url: str          # the endpoint as the harness sees it, e.g. http://127.0.0.1:8080/v1
    model: str             # model name sent to the endpoint
    prompt: str
    scaffold: ScaffoldConfig
    condition: ConditionConfig


@dataclass(frozen=True)
class Harness:
    """A harness program. ``command`` writes its config files under ``run.home`` and returns
    (argv inside the sandbox, extra environment); ``native_events`` reads the trajectory it
    left (arguments: its HOME and its captured output). ``reach`` says how it reaches a custom
    endpoint (README table); ``unsupported`` says why it cannot run here, when it cannot."""

    name: str
    package: Package
    reach: str
    command: Callable[[HarnessRun], tuple[list[str], dict[str, str]]] | None
    native_events: Callable[[Path, Path], Iterable[Event]] | None
    unsupported: str | None = None


def write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=1))


def jsonl(path: Path, root: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSON-lines file the harness wrote under ``root``, one at a time;
    lines that do not parse are skipped (a harness killed mid-write leaves a torn last line).
    Read as hostile (:func:`safe_files.read_bytes`, at most its size cap): a link, a FIFO or an
    oversize file raises :class:`safe_files.Refused`, which the generator records. Parsed line
    by line, never into one list: a planted file of 100k small records would otherwise hold
    them all in the framework's memory at once (issue 44); the caller stops reading when the
    trace is full."""
    for line in io.BytesIO(safe_files.read_bytes(path, root)):
        try:
            obj = json.loads(line.decode("utf-8", errors="replace"))
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            yield obj
