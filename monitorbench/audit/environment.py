"""What a state source must publish so C8 (environment fidelity) can check its positive cases.

C8 reads only what every state task carries, never a source's own names, so the checks hold for
the next source without a line of code. **The contract a state source follows** (AgentDojo,
tau2 and any later one; builders, please keep to it):

* ``public/<task_id>/task.json`` holds

  - ``instruction``: the user's request, verbatim (str);
  - ``tools``: ``[{"name", "description", "parameters"}]``, ``parameters`` a JSON schema whose
    ``properties`` name the arguments (their names are what decides which arguments are entities,
    see :mod:`monitorbench.audit.grounding`), and ``"read_only": true`` on a tool that never
    changes the state (optional; without it every call may write, and
    :mod:`monitorbench.audit.requested_answers` reads a source with no initial state less
    precisely);
  - ``environment.file``: the path, relative to ``public/<task_id>/``, of the *initial* state the
    candidate starts from: a ``.json`` file, or ``.yaml``/``.yml``. Every entity a correct
    solution may name (an IBAN, an email, a channel, a user, a file id, a hotel...) is a string
    value somewhere in it, or appears in a tool output of the record, or in the instruction;
  - ``environment.today``: the environment's current date, ``"YYYY-MM-DD"`` (optionally
    ``"YYYY-MM-DD HH:MM"``), whenever the tools have a clock or the instruction speaks of
    "today", "tomorrow", "next week", "upcoming"... Sources whose data has fixed dates put the
    date the tasks are set on. Without it, C8 falls back on the first value of a key named
    ``today``, ``current_date``, ``current_day`` or ``current_time`` in the initial state, and
    with neither it skips the "past date" rule (a stated date is still checked).

* ``hidden/<task_id>/cases.jsonl``: each case's ``candidate`` is the interaction record
  ``{"calls": [{"name", "arguments", "output", "error"}], "final_message"}``, calls in order with
  the output the agent saw; positives are the ``gold`` and ``valid_variant`` groups with label
  PASS, and a variant that reorders calls of the gold has category ``reorder_independent``.

C8 judges only positives: a verifier must never be punished for rejecting one. A task whose
positive fails a rule is excluded (reason ``C8``, the finding's kind and evidence in
``audit.json``) unless its builder fixes the case.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Iterator, Mapping

import yaml

from monitorbench.suites.format import Task

CLOCK_KEYS = ("today", "current_date", "current_day", "current_time")
_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


@dataclass(frozen=True)
class StateTask:
    """The public facts of one state task C8 reads: instruction, tool schemas, initial state and
    the environment's current date (None when the source gives none)."""

    instruction: str
    tools: Mapping[str, Mapping[str, Any]]
    state: Any
    today: date | None
    read_only: frozenset[str] = frozenset()   # the tools marked ``"read_only": true``


def leaves(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    """Every scalar in a JSON/YAML value with the key it sits under (list items inherit it).
    Parsed JSON/YAML holds plain dicts; ``isinstance(dict)`` is many times faster than a
    ``Mapping`` check on large states."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v, key)
    else:
        yield key, value


def parse_day(text: str) -> date | None:
    """The date at the start of ``YYYY-MM-DD...``, None when there is none or it is invalid."""
    m = _DAY.match(text.strip()) if isinstance(text, str) else None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None
    except ValueError:
        return None


def _clock(state: Any) -> date | None:
    for key, value in leaves(state):
        if key in CLOCK_KEYS and (day := parse_day(str(value))) is not None:
            return day   # str() of a YAML date or datetime is ISO too
    return None


def _read_state(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix in (".yaml", ".yml"):
        return yaml.safe_load(text)
    return json.loads(text)


def load_state_task(task: Task, public_dir: Path | None) -> StateTask:
    """The :class:`StateTask` of ``task``; the initial state is ``None`` when the task names no
    environment file or it is missing (entity grounding then only trusts the record and the
    instruction)."""
    env = task.public.get("environment") or {}
    env = env if isinstance(env, Mapping) else {}
    state = None
    rel = env.get("file")
    if public_dir is not None and isinstance(rel, str) and (public_dir / rel).is_file():
        state = _read_state(public_dir / rel)
    today = parse_day(str(env["today"])) if env.get("today") is not None else _clock(state)
    tools = {t["name"]: t.get("parameters") or {} for t in task.public.get("tools") or []
             if isinstance(t, Mapping) and isinstance(t.get("name"), str)}
    read_only = frozenset(t["name"] for t in task.public.get("tools") or []
                          if isinstance(t, Mapping) and isinstance(t.get("name"), str)
                          and t.get("read_only") is True)
    return StateTask(str(task.public.get("instruction", "")), tools, state, today, read_only)
