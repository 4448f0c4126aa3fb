"""A run's identity: what determines its judgments, hashed into the run key.

The run key names the run directory (``outputs/runs/<key>``): same key, same directory, so a
killed run resumes and a re-run reuses every judgment. It hashes exactly the config fields that
change a judgment, as each config dataclass declares them (``IDENTITY`` in
:mod:`monitorbench.config`; ``tests/test_identity.py`` fails on a field declared neither way),
plus the generator's identity, the suites' hashes and their audits' hashes (the audit decides
which tasks are scored), the sandbox's own code (:mod:`monitorbench.sandbox.code_identity`),
and for the docker backend its image (the verifier's Python).

Migrations. When the key's material changes shape, run directories written before must keep
resuming. :data:`MIGRATIONS` is the one table of those changes, newest first: each step turns the
material of one version into the material the version before hashed. A new run directory adopts
the judgments of the first earlier key whose directory exists
(:func:`monitorbench.launch.run_lock.adopt_judgments`; copied, the old directory stays):

======== ============================================================================
version  what changed (the step undoes it)
======== ============================================================================
4        the sandbox's own code joined the key (a changed worker can change a verdict);
         version 3 had no ``sandbox_code``. Only runs written before it are adopted
         across it: from here on, a run of other sandbox code has another key
3        per-type mappings are hashed as they are (``task.rounds``,
         ``sandbox.type_limits``) and the docker image joined the key; version 2 hashed
         ``rounds_state_code``/``rounds_tool_call`` and ``code_limits`` wherever that older
         shape could say the same, and no image
2        the suites' audits joined the key (a deleted audit.json judged the tasks it excluded
         under the same key); version 1 had no ``audits``
======== ============================================================================

Public API::

    key_material(conf, generator_identity, suites) -> dict
    run_key(material) -> str
    earlier_keys(material) -> list[str]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from monitorbench.audit.prepare import audit_hash
from monitorbench.config import MonitorbenchConfig, identity
from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.sandbox.code_identity import sandbox_code_hash
from monitorbench.suites.format import Suite
from monitorbench.suites.sandbox_image import run_image

KEY_CHARS = 20


def key_material(conf: MonitorbenchConfig, generator_identity: Mapping[str, Any],
                 suites: Iterable[Suite]) -> dict[str, Any]:
    """Everything the run key hashes, in the current version's shape."""
    suites = list(suites)
    sandbox = identity(conf.sandbox)
    material = {
        "generator": dict(generator_identity), "access": identity(conf.access),
        "task": identity(conf.task), "limits": sandbox["limits"],
        "type_limits": sandbox["type_limits"], "backend": sandbox["backend"],
        "suites": sorted({s.suite_hash for s in suites}),
        "audits": sorted({audit_hash(s) for s in suites}),
        "sandbox_code": sandbox_code_hash(),
    }
    if conf.sandbox.backend == "docker":
        material["image"] = run_image(conf.sandbox)
    return material


def run_key(material: Mapping[str, Any]) -> str:
    return sha256_text(canonical_json(dict(material)))[:KEY_CHARS]


def earlier_keys(material: Mapping[str, Any]) -> list[str]:
    """The keys earlier versions gave the same configuration, newest first."""
    keys, current = [], dict(material)
    for migration in MIGRATIONS:
        current = migration.step(current)
        keys.append(run_key(current))
    return keys


def _without_sandbox_code(material: dict[str, Any]) -> dict[str, Any]:
    """Version 4 -> 3: before the sandbox's own code joined the key."""
    return {k: v for k, v in material.items() if k != "sandbox_code"}


def _flat_per_type(material: dict[str, Any]) -> dict[str, Any]:
    """Version 3 -> 2: rounds and per-type limits in the shape before the mappings, where it
    can say the same; the image out."""
    out = {k: v for k, v in material.items() if k not in ("image", "limits", "type_limits")}
    task = dict(material["task"])
    rounds = task["rounds"]
    if set(rounds) == {"tool_call", "state", "code"} and rounds["state"] == rounds["code"]:
        del task["rounds"]
        task.update(rounds_state_code=rounds["state"], rounds_tool_call=rounds["tool_call"])
    out["task"] = task
    out["limits"] = material["limits"]
    if set(material["type_limits"]) == {"code"}:
        out["code_limits"] = material["type_limits"]["code"]
    else:
        out["type_limits"] = material["type_limits"]
    return out


def _without_audits(material: dict[str, Any]) -> dict[str, Any]:
    """Version 2 -> 1: before the audits joined the key."""
    return {k: v for k, v in material.items() if k != "audits"}


@dataclass(frozen=True)
class Migration:
    version: int                                          # the version this step leads from
    step: Callable[[dict[str, Any]], dict[str, Any]]


MIGRATIONS: tuple[Migration, ...] = (Migration(4, _without_sandbox_code),
                                     Migration(3, _flat_per_type), Migration(2, _without_audits))
