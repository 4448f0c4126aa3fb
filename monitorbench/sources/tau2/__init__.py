"""τ²-bench: customer-service conversations on a database (airline, retail, banking, telecom),
labelled by τ²'s own database, action and communication checks (telecom: its environment
assertions on the customer's phone), made stricter where they are looser than the request.

``source`` reads the τ² tasks, policies and tool schemas from the pinned inspect-evals wheel,
``lookups`` puts before each gold write the read-only lookups that tell an agent what it writes,
``answers`` writes the gold reply, ``judge`` holds the reference's checks, ``cases`` the labelled
records, ``build`` assembles the suite and registers the reference, ``mutants`` holds the audit's
C6 operators, ``attack`` the adaptive attacker's operators and ``defects`` its replay hunt
(reason R); ``device`` checks τ²'s telecom environment assertions (the customer's phone). ``runtime`` is the in-sandbox replay
runtime (the sandbox binds it and nothing else of this package). Only ``SPEC`` is imported when
the source is looked up.
"""

from monitorbench.suites.source_spec import SourceSpec

SPEC = SourceSpec(
    name="tau2", task_type="state", order=3,
    builder="monitorbench.sources.tau2.build:build_tau2_suite",
    references={"tau2.db_actions": "monitorbench.sources.tau2.build"},
    mutants="monitorbench.sources.tau2.mutants",
    attack="monitorbench.sources.tau2.attack:toolkit",
    defect_hunt="monitorbench.sources.tau2.defects:hunt_nondeterministic_replay",
    defect_code="R",
    runtime="monitorbench.sources.tau2.runtime",
    sandbox_distributions=("inspect_ai", "inspect_evals"),
    masked_paths="monitorbench.sources.tau2.build:masked_paths",
    builder_version=5,   # 2: gold records carry the lookups that ground their writes
                         # 3: the banking_knowledge domain
                         # 4: tasks that start from a changed database (initial_state)
                         # 5: the telecom domain (the customer's phone is the environment)
)
