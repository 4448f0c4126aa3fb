"""A test-only task source ("tiny"): five calculator tool-call tasks, defined entirely in tests/.

It exists to show that a source is one folder plus its registration: this package holds the
builder, the reference verifier, the mutants, the in-sandbox runtime and the adaptive attacker's
operators, and ``SPEC`` is everything the framework needs
(registered by the test with :func:`monitorbench.suites.source_registry.register_source`; an installed
plugin would name ``SPEC`` in the ``monitorbench.sources`` entry-point group instead). Modules are
named by paths relative to ``tests/sources``, which pytest puts on ``sys.path`` for the tests here.
"""

from monitorbench.suites.source_spec import SourceSpec

REFERENCE_ID = "tiny.exact_call"

SPEC = SourceSpec(
    name="tiny", task_type="tool_call",
    builder="tiny_source.build:build_tiny_suite",
    references={REFERENCE_ID: "tiny_source.reference"},
    mutants="tiny_source.mutants", attack="tiny_source.attack:toolkit",
    runtime="tiny_source.runtime", builder_version=2,
)
