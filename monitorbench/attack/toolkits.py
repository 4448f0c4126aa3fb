"""Per task type, what the adaptive attacker mutates with: mutations, material, completion.

Public API::

    Toolkit(mutations, material, complete, sees_whole, sound_seed)
    toolkit_for(task, reference, valid, public_dir, fields) -> Toolkit
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from monitorbench.attack.validity import Mutation
from monitorbench.suites.format import Case, Reference, Task


@dataclass(frozen=True)
class Toolkit:
    """``complete(candidate)`` fills what the monitor cannot see (tool calls under a one-half
    view); ``sees_whole`` says whether the monitor sees every field of a candidate;
    ``sound_seed(candidate)`` whether an invalid case stays invalid under presentation changes
    (a tool-call record whose raw text disagrees with its calls may not: re-rendering the raw
    text from the calls can re-sync it)."""

    mutations: Mapping[str, Mutation]
    material: Any
    complete: Callable[[dict[str, Any]], dict[str, Any]]
    sees_whole: bool
    sound_seed: Callable[[dict[str, Any]], bool]


def _same(candidate: dict[str, Any]) -> dict[str, Any]:
    return candidate


def _always(candidate: dict[str, Any]) -> bool:
    return True


def toolkit_for(task: Task, reference: Reference, valid: Sequence[Case], public_dir: Path,
                fields: tuple[str, ...] | None) -> Toolkit:
    """The toolkit of one task (imports each type's machinery only when needed: AgentDojo's
    suites are heavy)."""
    if task.task_type == "tool_call":
        from monitorbench.attack.mutators import MUTATORS, complete, consistent, material_for

        whole = fields is None or {"raw", "calls"} <= set(fields)
        return Toolkit(MUTATORS, material_for(task, valid),
                       lambda c: complete(c, fields), whole, consistent)
    if task.task_type == "state":
        from monitorbench.attack.state_mutators import STATE_MUTATORS, material_for_state

        return Toolkit(STATE_MUTATORS, material_for_state(reference, valid), _same,
                       fields is None or {"calls", "final_message"} <= set(fields), _always)
    from monitorbench.attack.code_mutators import CODE_MUTATORS, material_for_code

    return Toolkit(CODE_MUTATORS, material_for_code(reference, valid, public_dir), _same,
                   fields is None or "patch" in fields, _always)
