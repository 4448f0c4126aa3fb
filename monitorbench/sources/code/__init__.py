"""Code: seeded bugs in pinned Python libraries, patches graded by a hardened test runner."""

from monitorbench.sources.spec import SourceSpec

SPEC = SourceSpec(
    name="code", task_type="code", order=2,
    builder="monitorbench.suites.code.build:build_code_suite",
    references={"code.hardened_grader": "monitorbench.suites.code.grader"},
    mutants="monitorbench.audit.mutants_code",
    runtime="code", masked_paths="monitorbench.suites.code.build:masked_paths",
    builder_version=2,
)
