"""Reference verifiers: the trusted source checkers whose decisions define the labels.

A reference verifier runs on the framework side (it is trusted code from the task source, e.g.
BFCL's ``ast_checker``), at suite build time to confirm construction labels and in the V4V audit.
It is registered under a stable id; the id and version are written into every task's hidden
``reference.json`` so each label links to the checker that produced it.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping, Protocol

from monitorbench.suites.format import Reference, Task
from monitorbench.suites.source_registry import source_for_reference


class ReferenceVerifier(Protocol):
    verifier_id: str
    version: str

    def decide(self, task: Task, reference: Reference, candidate: Mapping[str, Any]) -> str:
        """Return "PASS" or "FAIL" for one candidate of ``task``."""


_REGISTRY: dict[str, Callable[[], ReferenceVerifier]] = {}



def register_reference(verifier_id: str, factory: Callable[[], ReferenceVerifier]) -> None:
    _REGISTRY[verifier_id] = factory


def get_reference(verifier_id: str) -> ReferenceVerifier:
    """A fresh instance of reference ``verifier_id``. The module registering it is named by its
    source's spec and imported only now: some sources are heavy (agentdojo imports pydantic
    models of four whole suites)."""
    if verifier_id not in _REGISTRY:
        spec = source_for_reference(verifier_id)
        if spec is not None:
            importlib.import_module(spec.references[verifier_id])
    if verifier_id not in _REGISTRY:
        raise KeyError(f"unknown reference verifier {verifier_id!r}; known: {sorted(_REGISTRY)}")
    return _REGISTRY[verifier_id]()
