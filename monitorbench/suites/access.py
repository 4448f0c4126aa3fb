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

# Which candidate fields each mode reveals (None: the whole candidate) and whether the monitor
# may execute in the environment (run_public) at judgment time.
_MODES: dict[AccessMode, tuple[tuple[str, ...] | None, bool, str]] = {
    AccessMode.raw_parsed: (("raw", "calls"), False, "tool_call"),
    AccessMode.parsed: (("calls",), False, "tool_call"),
    AccessMode.raw: (("raw",), False, "tool_call"),
    AccessMode.record: (None, False, "state"),
    AccessMode.record_exec: (None, True, "state"),
    AccessMode.patch: (("patch",), False, "code"),
    AccessMode.patch_checkout: (("patch",), True, "code"),
}


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
    """The access view for a task type under an access config; a mismatch is a config error."""
    mode = AccessMode(getattr(access, task_type))
    fields, executes, for_type = _MODES[mode]
    if for_type != task_type:
        allowed = [m.value for m, v in _MODES.items() if v[2] == task_type]
        raise InputError(f"conf/access/{access.name}.yaml", f"access.{task_type}",
                         f"mode {mode.value!r} is for {for_type} tasks",
                         f"use one of {', '.join(allowed)}")
    return AccessView(mode, fields, executes)


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
