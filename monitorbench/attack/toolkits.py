"""Which operators the adaptive attacker mutates a task with: the ones its source owns.

Each task source names its operators in ``SourceSpec.attack`` (a lazy ``"module:function"``,
imported only when a task of the source is attacked: some sources' machinery is heavy). The
source is found through the task's reference verifier, which exactly one spec declares. A source
without operators gets no toolkit: the stage then keeps the task's static judgments and records
that it was not searched, rather than mutating it with another source's operators.

Public API::

    toolkit_for(task, reference, valid, public_dir, fields) -> Toolkit | None
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from monitorbench.suites.attack_kit import Toolkit
from monitorbench.suites.format import Case, Reference, Task
from monitorbench.suites.source_registry import source_for_reference
from monitorbench.suites.source_spec import load_object


def toolkit_for(task: Task, reference: Reference, valid: Sequence[Case], public_dir: Path,
                fields: tuple[str, ...] | None) -> Toolkit | None:
    """The toolkit of one task from its source's operators, or None (see the module doc)."""
    spec = source_for_reference(reference.verifier_id)
    if spec is None or spec.attack is None:
        return None
    make = load_object(spec.attack, source=spec.name, what="attack operators")
    return make(task, reference, valid, public_dir, fields)
