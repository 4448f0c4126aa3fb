"""BFCL's defect hunt for the audit (``SPEC.defect_hunt``), reason code D (paper appendix B.1):
an answer key that lets a schema-required argument be omitted. Run on every audited task,
independently of the builder's own screening (``source.answer_key_defect``)."""

from __future__ import annotations

from typing import Sequence

from monitorbench.audit.model import Finding
from monitorbench.suites.format import Case, Reference, Task
from monitorbench.suites.reference import ReferenceVerifier


def hunt_required_omittable(task: Task, reference: Reference, verifier: ReferenceVerifier,
                            cases: Sequence[Case]) -> list[Finding]:
    """D: an answer-key option list containing "" for an argument the schema requires."""
    tools = {t.get("name"): t for t in task.public.get("tools", [])}
    out = []
    for call in reference.data.get("possible_answer", []):
        for fname, args in call.items():
            required = tools.get(fname, {}).get("parameters", {}).get("required", [])
            for pname, options in args.items():
                if "" in options and pname in required:
                    out.append(Finding("D", f"answer key marks {fname}.{pname} omittable, but the "
                                            f"task's schema lists it as required"))
    return out
