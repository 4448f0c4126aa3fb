"""User-facing errors.

Every problem caused by input a user controls (a config, a suite on disk, a verifier directory, a
patch) is raised as :class:`InputError`, which names the file, the field and the fix. The CLI entry
points print it as one readable message instead of a traceback.
"""

from __future__ import annotations

from pathlib import Path


class MonitorbenchError(Exception):
    """Base class for errors monitorbench reports to the user."""


class InputError(MonitorbenchError):
    """Bad user input: says where (file, field) and how to fix it."""

    def __init__(self, file: str | Path | None, field: str | None, problem: str, fix: str) -> None:
        self.file = str(file) if file is not None else None
        self.field = field
        self.problem = problem
        self.fix = fix
        where = []
        if self.file:
            where.append(f"file {self.file}")
        if field:
            where.append(f"field '{field}'")
        loc = (", ".join(where) + ": ") if where else ""
        super().__init__(f"{loc}{problem}. Fix: {fix}")

    def __reduce__(self) -> tuple[type, tuple[str | None, str | None, str, str]]:
        # Raised inside worker processes (parallel suite builds) and re-raised in the parent:
        # without this, unpickling calls __init__ with one argument and the pool reports a
        # BrokenProcessPool instead of the user's file, field and fix.
        return (type(self), (self.file, self.field, self.problem, self.fix))
