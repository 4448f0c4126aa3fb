"""BFCL v4 single-turn function calling: tool-call tasks checked by BFCL's own ``ast_checker``."""

from monitorbench.sources.spec import SourceSpec

SPEC = SourceSpec(
    name="bfcl", task_type="tool_call", order=0,
    builder="monitorbench.suites.bfcl:build_bfcl_suite",
    references={"bfcl.ast_checker": "monitorbench.suites.bfcl"},
    mutants="monitorbench.audit.mutants_bfcl",
    runtime="none", leaky_packages=("bfcl_eval",), builder_version=4,
)
