"""AgentDojo: stateful tool-use episodes, labelled by the suites' own utility checks."""

from monitorbench.sources.spec import SourceSpec

SPEC = SourceSpec(
    name="agentdojo", task_type="state", order=1,
    builder="monitorbench.suites.agentdojo:build_agentdojo_suite",
    references={"agentdojo.utility": "monitorbench.suites.agentdojo"},
    mutants="monitorbench.audit.mutants_agentdojo",
    runtime="agentdojo", masked_paths="monitorbench.suites.agentdojo:masked_paths",
    builder_version=3,
)
