"""``SourceSpec``: everything the framework must know about a task source, in one place.

Code is named by import path strings (``"module:function"`` or ``"module"``) and imported only
when used, so declaring a source never imports its builder, its reference checker or an optional
dependency such as agentdojo; a spec module can be imported on any install. The spec lives in
``suites`` because the suite registry and the reference registry read it; the sources' packages
(``monitorbench.sources.<name>``) sit above the audit and name their code here by path.

Everything a source owns lives in its own package and is named here, so adding a source touches
no framework module:

* ``runtime``: the in-sandbox runtime that gives a verifier's ``env`` its powers
  (``env.run_public``), as a module path, e.g. ``"monitorbench.sources.tau2.runtime"``, or
  ``"none"``. The module follows the contract in :mod:`monitorbench.sandbox.runtimes`
  (``make_env(task, public_dir, config)``, optional ``prepare``). It is either one ``.py`` file
  (standard library and packages of the Python prefix only) or a package directory whose modules
  import each other relatively; the sandbox binds exactly that file or directory read-only and
  nothing else of the source, so it must never import ``monitorbench`` (not visible in there).
  The framework's own code may import it like any module (a builder replays with it, so a state
  the runtime returns is the state the reference judged).
* ``attack``: the source's operators for the adaptive attacker, ``"module:function"`` with
  ``function(task, reference, valid_cases, public_dir, fields) -> Toolkit``
  (:class:`monitorbench.suites.attack_kit.Toolkit`: the mutations, each with its declared
  :class:`~monitorbench.suites.attack_kit.Effect`, and the material they draw on; ``fields`` are
  the candidate fields the monitor sees, None for all). A source without one is not attacked
  adaptively: the attack stage records the skip and keeps its static judgments.
* ``sandbox_distributions``: the installed distributions the runtime imports (e.g. ``agentdojo``,
  ``pyyaml``). Bubblewrap shows the framework's own Python prefix, so there they are simply
  present; the docker backend's image copies these (with their requirement closure) at their
  installed versions, so a verifier sees the same packages under both.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from monitorbench.errors import InputError


@dataclass(frozen=True)
class SourceSpec:
    """One task source: how its suite is built, which trusted code labels and audits it, and
    what a sandbox judging its tasks needs and must hide."""

    name: str
    task_type: str
    builder: str                                  # "module:function(out_dir, *, progress, ...)"
    # Reference verifier id -> module whose import registers it (suites.reference).
    references: Mapping[str, str] = field(default_factory=dict)
    # Module defining ``MUTANTS`` (audit.mutation.MutantSet) for this source's reference(s).
    mutants: str | None = None
    # "module:function(task, reference, valid, public_dir, fields) -> suites.attack_kit.Toolkit"
    attack: str | None = None
    runtime: str = "none"                         # in-sandbox runtime module path, or "none"
    # Installed distributions the runtime imports: the docker image carries them (and theirs).
    sandbox_distributions: tuple[str, ...] = ()
    # Installed packages whose files would leak answers or reference checkers into a sandbox.
    leaky_packages: tuple[str, ...] = ()
    masked_paths: str | None = None               # "module:function() -> extra host paths"
    # The audit's hunt for this source's known defect (paper appendix B.1):
    # "module:function(task, reference, verifier, cases) -> [audit.model.Finding]", and the
    # reason code (audit.model.DEFECT_CODES) a hunt that cannot read the reference reports.
    defect_hunt: str | None = None
    defect_code: str | None = None
    # Bumped whenever the builder would produce different cases: a suite built by another
    # version is refused instead of silently mixing numbers from two different benchmarks.
    builder_version: int = 1
    order: int = 100                              # place in `list suites` and `build all`

    def __post_init__(self) -> None:
        object.__setattr__(self, "references", MappingProxyType(dict(self.references)))
        object.__setattr__(self, "leaky_packages", tuple(self.leaky_packages))
        object.__setattr__(self, "sandbox_distributions", tuple(self.sandbox_distributions))
        for label, ref in (("builder", self.builder), ("masked_paths", self.masked_paths),
                           ("defect_hunt", self.defect_hunt), ("attack", self.attack)):
            if ref is not None and ref.count(":") != 1:
                raise InputError(None, f"SourceSpec({self.name!r}).{label}",
                                 f"expected 'module:function', got {ref!r}",
                                 "name the function as 'package.module:function'")
        if self.runtime != "none" and not _is_module_path(self.runtime):
            raise InputError(None, f"SourceSpec({self.name!r}).runtime",
                             f"expected 'none' or a module path, got {self.runtime!r}",
                             "name the runtime module as 'package.module' (e.g. "
                             "'mysource.runtime'); see monitorbench.sandbox.runtimes")
        if (self.defect_hunt is None) != (self.defect_code is None):
            raise InputError(None, f"SourceSpec({self.name!r}).defect_code",
                             "defect_hunt and defect_code go together",
                             "give both (the hunt and the reason code it reports) or neither")


def _is_module_path(ref: str) -> bool:
    parts = ref.split(".")
    return len(parts) >= 2 and all(p.isidentifier() for p in parts)


def load_object(ref: str, *, source: str, what: str) -> Any:
    """Import ``"module:attr"`` (or a bare module); a missing optional dependency becomes an
    InputError that says which extra to install instead of a traceback."""
    module_name, _, attr = ref.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise InputError(None, "task.suites[].name",
                         f"the {what} of source {source!r} ({module_name}) cannot be imported "
                         f"({e})", "install the source's extra, e.g. pip install -e '.[state]'"
                         ) from e
    return getattr(module, attr) if attr else module
