"""Code tasks (SWE-smith style): seeded AST bugs in pinned pure-Python libraries, patches graded
by a hardened test runner.

Entry point: :func:`monitorbench.sources.code.build.build_code_suite`. The reference verifier is
``code.hardened_grader`` (:mod:`monitorbench.sources.code.grader`), its C6 operators are in
``mutants`` and its empty-report hunt (reason S) in ``defects``; ``runtime`` is the in-sandbox
runtime (the sandbox binds it and nothing else of this package). Only ``SPEC`` is imported when
the source is looked up.
"""

from monitorbench.suites.source_spec import SourceSpec

SPEC = SourceSpec(
    name="code", task_type="code", order=2,
    builder="monitorbench.sources.code.build:build_code_suite",
    references={"code.hardened_grader": "monitorbench.sources.code.grader"},
    mutants="monitorbench.sources.code.mutants",
    attack="monitorbench.sources.code.attack:toolkit",
    defect_hunt="monitorbench.sources.code.defects:hunt_empty_report", defect_code="S",
    runtime="monitorbench.sources.code.runtime",
    sandbox_distributions=("pytest",),
    masked_paths="monitorbench.sources.code.build:masked_paths",
    builder_version=2,
)
