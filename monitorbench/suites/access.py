"""Access settings: what a monitor sees of a candidate, and which cases stay scorable under it.

A case is projected onto the fields the access mode reveals before it enters the sandbox. When
two cases of one task project to identical inputs but carry opposite labels, no verifier can
tell them apart under that access (V4V's input-label consistency check): such cases are set aside
for that access setting and counted, instead of silently charging every monitor an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from monitorbench.config import AccessConfig, AccessMode
from monitorbench.errors import InputError
from monitorbench.hashing import canonical_json
from monitorbench.suites.format import Case
from monitorbench.task_types import TASK_TYPES, type_of_mode

@dataclass(frozen=True)
class AccessView:
    mode: AccessMode
    fields: tuple[str, ...] | None
    executes: bool

    def project(self, candidate: Mapping[str, Any]) -> dict[str, Any]:
        return project_fields(candidate, self.fields)


def project_fields(candidate: Mapping[str, Any], fields: tuple[str, ...] | None
                   ) -> dict[str, Any]:
    """What a monitor that sees ``fields`` (None: everything) gets of a candidate: the one
    projection the judging, the audit and the adaptive attacker all use."""
    if fields is None:
        return dict(candidate)
    return {k: candidate[k] for k in fields if k in candidate}


def view_for(access: AccessConfig, task_type: str) -> AccessView:
    """The access view for a task type under an access config (what each mode reveals is
    declared in :mod:`monitorbench.task_types`); a mode of another type is a config error."""
    mode = access.mode_for(task_type)
    view = mode_view(task_type, mode)
    if view is None:
        owner = type_of_mode(mode.value)
        raise InputError(f"conf/access/{access.name}.yaml", f"access.{task_type}",
                         f"mode {mode.value!r} is for {owner.name if owner else 'no'} tasks",
                         f"use one of {', '.join(m.name for m in TASK_TYPES[task_type].modes)}")
    return view


def mode_view(task_type: str, mode: AccessMode) -> AccessView | None:
    """The view a mode gives a task type, or None when the type declares no such mode."""
    spec = TASK_TYPES[task_type].mode(mode.value)
    return None if spec is None else AccessView(mode, spec.fields, spec.executes)


def split_consistent(cases: Sequence[Case], view: AccessView) -> tuple[list[Case], list[Case]]:
    """(scorable, indistinguishable): cases whose projection collides with an opposite label
    are indistinguishable under this view and are not scored."""
    return split_by_fields(cases, view.fields)


def split_by_fields(cases: Sequence[Case], fields: tuple[str, ...] | None
                    ) -> tuple[list[Case], list[Case]]:
    """:func:`split_consistent` for a monitor that sees ``fields`` (None: everything)."""
    labels: dict[str, set[str]] = {}
    keys = []
    for c in cases:
        key = canonical_json(project_fields(c.candidate, fields))
        keys.append(key)
        labels.setdefault(key, set()).add(c.label)
    keep, drop = [], []
    for c, key in zip(cases, keys):
        (drop if len(labels[key]) > 1 else keep).append(c)
    return keep, drop
