"""A test-only state source ("tiny_state"): a bank, a calendar, a chat and a web page in a few
lines of Python, with one task per C8 defect kind planted in its positives and one clean task.

It exists to show that C8 (:mod:`monitorbench.audit.environment_fidelity`) works on any state
source that keeps the contract of :mod:`monitorbench.audit.environment`, not only on AgentDojo:
nothing here is AgentDojo's. Like ``tiny_source`` it is registered by the tests only; modules are
named by paths relative to ``tests/sources``, which pytest puts on ``sys.path``.
"""

from monitorbench.suites.source_spec import SourceSpec

REFERENCE_ID = "tiny_state.final_state"

SPEC = SourceSpec(
    name="tiny_state", task_type="state",
    builder="tiny_state.build:build_tiny_state_suite",
    references={REFERENCE_ID: "tiny_state.reference"},
    mutants="tiny_state.mutants",
    runtime="none", builder_version=1,
)
