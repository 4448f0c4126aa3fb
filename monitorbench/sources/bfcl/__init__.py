"""BFCL v4 single-turn function calling: tool-call tasks checked by BFCL's own ``ast_checker``.

``source`` reads and screens the installed bfcl-eval data, ``cases`` writes the labelled
candidates, ``reference`` wraps ``ast_checker``, ``values`` decides near-accepted values,
``build`` assembles the suite, ``mutants`` holds the audit's C6 operators and ``defects`` its
answer-key hunt (reason D). Only ``SPEC`` is imported when the source is looked up.
"""

from monitorbench.suites.source_spec import SourceSpec

SPEC = SourceSpec(
    name="bfcl", task_type="tool_call", order=0,
    builder="monitorbench.sources.bfcl.build:build_bfcl_suite",
    references={"bfcl.ast_checker": "monitorbench.sources.bfcl.reference"},
    mutants="monitorbench.sources.bfcl.mutants",
    attack="monitorbench.sources.bfcl.attack:toolkit",
    defect_hunt="monitorbench.sources.bfcl.defects:hunt_required_omittable", defect_code="D",
    runtime="none", leaky_packages=("bfcl_eval",), builder_version=4,
)
