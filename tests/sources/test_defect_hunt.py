"""The audit's defect hunts come from the sources: each task is hunted by the hunt its reference
verifier's source names (``SourceSpec.defect_hunt``), so a new source brings its own hunt and the
audit imports no source."""

from __future__ import annotations

from typing import Sequence

import pytest

from monitorbench.audit.defects import hunt
from monitorbench.audit.model import Finding
from monitorbench.errors import InputError
from monitorbench.suites.format import Case, Reference, Task
from monitorbench.suites.source_registry import get_source, register_source, unregister_source
from monitorbench.suites.source_spec import SourceSpec, load_object

PROBE_REF = "hunt_probe.answer_key"
TASK = Task("probe.t0", "tool_call", "probe:0", {"tools": [{"name": "add"}]})


def hunt_unknown_tool(task: Task, reference: Reference, verifier: object,
                      cases: Sequence[Case]) -> list[Finding]:
    """The probe source's hunt: an answer key calling a tool the task does not offer."""
    tools = {t["name"] for t in task.public["tools"]}
    return [Finding("D", f"answer key calls {a['name']}") for a in reference.data["answer"]
            if a["name"] not in tools]


@pytest.fixture()
def probe():
    spec = register_source(SourceSpec(
        name="hunt_probe", task_type="tool_call", builder="x.y:build",
        references={PROBE_REF: "x.y"}, defect_hunt=f"{__name__}:hunt_unknown_tool",
        defect_code="D"))
    yield spec
    unregister_source(spec.name)


def test_builtin_sources_name_the_hunts_for_the_papers_reason_codes() -> None:
    for name, code in (("bfcl", "D"), ("code", "S"), ("agentdojo", "R")):
        spec = get_source(name)
        assert spec.defect_code == code
        assert callable(load_object(spec.defect_hunt, source=name, what="defect hunt"))


def test_the_hunt_of_the_reference_source_runs_on_its_tasks(probe) -> None:
    bad = Reference(PROBE_REF, "1", {"answer": [{"name": "add"}, {"name": "sub"}]})
    assert hunt(TASK, bad, None, []) == [Finding("D", "answer key calls sub")]
    assert hunt(TASK, Reference(PROBE_REF, "1", {"answer": [{"name": "add"}]}), None, []) == []


def test_unreadable_reference_data_is_a_finding_with_the_source_code(probe) -> None:
    [finding] = hunt(TASK, Reference(PROBE_REF, "1", {}), None, [])
    assert finding.code == "D" and "could not read the reference data: KeyError" in finding.evidence


def test_a_reference_no_source_declares_is_not_hunted() -> None:
    assert hunt(TASK, Reference("nobody.checker", "1", {"answer": [{"name": "sub"}]}), None,
                []) == []


def test_a_hunt_without_its_reason_code_is_refused() -> None:
    with pytest.raises(InputError, match="defect_hunt and defect_code go together"):
        SourceSpec(name="bad", task_type="tool_call", builder="x.y:build",
                   defect_hunt="x.y:hunt")
