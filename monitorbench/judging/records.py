"""Typed judgment records: one frozen :class:`Judgment` per (task, case, round, access, verifier).

The judging loop makes them, the store writes them as one JSON line each (the same line format as
before the type existed, so an old run directory still resumes) and validates every line once,
when it loads; the metrics read the dicts :meth:`Judgment.to_dict` returns. Outcomes, U reasons and
generation statuses (``generation.base.GenStatus``) are ``str`` enums: they compare equal to the
strings on disk and in MLflow tables, but a typo in code is a ``AttributeError`` instead of a
silently unmatched literal.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import Enum
from pathlib import Path
from typing import Any, Mapping

from monitorbench.errors import InputError
from monitorbench.sandbox import base as sandbox
from monitorbench.suites.format import GROUPS, LABELS, TASK_TYPES


class Outcome(str, Enum):
    """The paper's three outcomes of one verifier invocation."""

    P = "P"   # the verifier accepted the candidate
    F = "F"   # the verifier rejected it
    U = "U"   # no usable decision (crash, limit, malformed output, missing verifier, ...)


class UReason(str, Enum):
    """Why an outcome is U; the strings the sandbox reports and the judgment files keep."""

    missing_verifier = sandbox.MISSING_VERIFIER
    crash = sandbox.CRASH
    timeout = sandbox.TIMEOUT
    cpu_limit = sandbox.CPU_LIMIT
    memory_limit = sandbox.MEMORY_LIMIT
    output_limit = sandbox.OUTPUT_LIMIT
    malformed = sandbox.MALFORMED
    sandbox_error = sandbox.SANDBOX_ERROR
    sandbox_tampered = sandbox.SANDBOX_TAMPERED


# A sandbox failure says nothing about the verifier (e.g. Slurm signalled the whole job's process
# tree on preemption): such a record is kept on disk (every attempt is persisted) but does not
# count as done, so the judging loop's retry, or a resumed run, judges that case again and the
# newer record replaces it. One that nothing replaced is an infrastructure failure.
RETRY_REASONS = frozenset({UReason.sandbox_error})

JudgmentKey = tuple[str, str, int, str, str]


@dataclass(frozen=True)
class Judgment:
    """One judgment, as the store persists it (field order = the judgments table's columns)."""

    task_id: str
    task_type: str
    case_id: str
    group: str
    category: str
    label: str
    outcome: Outcome
    reason: UReason | None      # None for P and F ("" on disk)
    detail: str
    confidence: float | None
    seconds: float
    executions: int
    round: int
    access: str
    verifier_hash: str
    case_hash: str
    suite_hash: str

    @property
    def key(self) -> JudgmentKey:
        """What it judged, with what, and in which round: a store holds one per key."""
        return (self.task_id, self.case_id, self.round, self.access, self.verifier_hash)

    @property
    def retryable(self) -> bool:
        """The sandbox, not the verifier, failed: the case is judged again (now or on resume),
        and if nothing replaces this record it is an infrastructure failure."""
        return self.reason in RETRY_REASONS

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types, exactly the on-disk record (``reason`` "" when there is none)."""
        d = asdict(self)
        d["outcome"] = self.outcome.value
        d["reason"] = self.reason.value if self.reason is not None else ""
        return d

    @classmethod
    def from_dict(cls, obj: Any, *, source: str | Path | None = None,
                  where: str = "record") -> "Judgment":
        """Validate one record (every field, its type and allowed values) and type it.

        ``where`` names the record in the error (e.g. ``line 12``), ``source`` the file.
        """
        if not isinstance(obj, Mapping):
            raise InputError(source, where, f"a judgment must be a JSON object, got "
                             f"{type(obj).__name__}", "re-run the judging stage")
        extra = sorted(set(obj) - set(RECORD_FIELDS))
        if extra:
            raise InputError(source, f"{where}.{extra[0]}", f"unknown field(s) {extra}",
                             f"a judgment has exactly the fields {', '.join(RECORD_FIELDS)}")
        for name, check, expected in _CHECKS:
            if name not in obj:
                raise InputError(source, f"{where}.{name}", "missing",
                                 f"every judgment record needs '{name}'; re-run the judging "
                                 "stage")
            if not check(obj[name]):
                raise InputError(source, f"{where}.{name}", f"expected {expected}, got "
                                 f"{obj[name]!r}", f"set '{name}' to {expected}")
        values = dict(obj)
        values["outcome"] = Outcome(obj["outcome"])
        values["reason"] = UReason(obj["reason"]) if obj["reason"] else None
        return cls(**values)


RECORD_FIELDS = tuple(f.name for f in fields(Judgment))


def _str(v: Any) -> bool:
    return isinstance(v, str)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _num(v: Any) -> bool:
    return _int(v) or isinstance(v, float)


def _one_of(choices: Any) -> Any:
    allowed = {str(c.value if isinstance(c, Enum) else c) for c in choices}
    return lambda v: isinstance(v, str) and v in allowed


_U_REASONS = tuple(r.value for r in UReason)
# (field, check, what it must be), in field order; checked once, when a record is loaded.
_CHECKS: tuple[tuple[str, Any, str], ...] = (
    ("task_id", _str, "a string"),
    ("task_type", _one_of(TASK_TYPES), f"one of {', '.join(TASK_TYPES)}"),
    ("case_id", _str, "a string"),
    ("group", _one_of(GROUPS), f"one of {', '.join(GROUPS)}"),
    ("category", _str, "a string"),
    ("label", _one_of(LABELS), f"one of {', '.join(LABELS)}"),
    ("outcome", _one_of(Outcome), "one of P, F, U"),
    ("reason", _one_of(("",) + _U_REASONS), f"\"\" or one of {', '.join(_U_REASONS)}"),
    ("detail", _str, "a string"),
    ("confidence", lambda v: v is None or _num(v), "a number or null"),
    ("seconds", _num, "a number"),
    ("executions", _int, "an integer"),
    ("round", lambda v: _int(v) and v >= 1, "an integer >= 1"),
    ("access", _str, "a string"),
    ("verifier_hash", _str, "a string"),
    ("case_hash", _str, "a string"),
    ("suite_hash", _str, "a string"),
)


def is_infra_failure(record: Judgment | Mapping[str, Any]) -> bool:
    """A judgment the sandbox, not the verifier, failed to make (the one definition).

    The judging loop retries a ``sandbox_error`` with a fresh session; a record that still says
    ``sandbox_error`` is what remained after those retries. It says nothing about the verifier,
    so it is never charged to it: no metric counts it, ``diag/infra_failures`` does.
    """
    if isinstance(record, Judgment):
        return record.retryable
    return record.get("reason") in RETRY_REASONS
