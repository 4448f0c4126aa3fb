"""The pinned pure-Python libraries code tasks are made from, and how each one's tests run.

Each was measured to run its own test suite with plain pytest in a few seconds, without services
(field notes, "Code tasks from sdists"). Versions are pinned: a task is a mutation of a specific
file at a specific version, and its gold patch only applies there.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LibrarySpec:
    """One library: where its source and tests live inside the unpacked sdist."""

    name: str
    version: str
    source_dirs: tuple[str, ...]          # files/dirs whose functions may be mutated
    test_paths: tuple[str, ...]           # what a full test run collects
    pythonpath: tuple[str, ...] = (".",)  # import roots, relative to the checkout
    pytest_args: tuple[str, ...] = ()     # extra arguments every run of this library needs
    exclude_sources: tuple[str, ...] = ()  # path prefixes never mutated (tests inside packages)

    @property
    def pin(self) -> str:
        return f"{self.name}=={self.version}"


LIBRARIES: dict[str, LibrarySpec] = {s.name: s for s in (
    LibrarySpec("toolz", "1.2.0", ("toolz",), ("toolz/tests",),
                exclude_sources=("toolz/tests", "toolz/sandbox", "toolz/curried", "toolz/compatibility.py",
                                 "toolz/_signatures.py")),
    LibrarySpec("inflection", "0.5.1", ("inflection",), ("test_inflection.py",)),
    LibrarySpec("six", "1.17.0", ("six.py",), ("test_six.py",)),
    LibrarySpec("tabulate", "0.10.0", ("tabulate",), ("test",)),
    LibrarySpec("parse", "1.22.4", ("parse",), ("tests",)),
    LibrarySpec("boltons", "26.2.0", ("boltons",), ("tests",)),
    LibrarySpec("humanize", "4.17.0", ("src/humanize",), ("tests",), pythonpath=("src",),
                pytest_args=("--ignore=tests/test_benchmarks.py",)),
)}

DEFAULT_LIBRARIES: tuple[str, ...] = tuple(LIBRARIES)
