"""AgentDojo: stateful tool-use episodes, labelled by the suites' own utility checks.

``source`` loads the pinned AgentDojo task suites, ``answers`` writes final messages from the
environment, ``cases`` the labelled call lists, ``build`` assembles the suite and registers the
utility reference, ``mutants`` holds the audit's C6 operators and ``defects`` its replay hunt
(reason R). ``runtime`` is the in-sandbox replay runtime (the sandbox binds it and nothing else
of this package). Only ``SPEC`` is imported when the source is looked up.
"""

from monitorbench.suites.source_spec import SourceSpec

SPEC = SourceSpec(
    name="agentdojo", task_type="state", order=1,
    builder="monitorbench.sources.agentdojo.build:build_agentdojo_suite",
    references={"agentdojo.utility": "monitorbench.sources.agentdojo.build"},
    mutants="monitorbench.sources.agentdojo.mutants",
    attack="monitorbench.sources.agentdojo.attack:toolkit",
    defect_hunt="monitorbench.sources.agentdojo.defects:hunt_nondeterministic_replay",
    defect_code="R",
    runtime="monitorbench.sources.agentdojo.runtime",
    sandbox_distributions=("agentdojo", "pydantic", "pyyaml"),
    masked_paths="monitorbench.sources.agentdojo.build:masked_paths",
    builder_version=4,   # 4: golds repaired to the environment and the instruction (issue 17)
)
