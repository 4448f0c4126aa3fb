"""V4V (Verifier4Verifier): the audit of a frozen suite and its reference verifiers.

Per task: C1 replay, C2 repeatability, C3 provenance, C4 input-label consistency, C5 trivial
baselines, C6 mutation testing (paper §2.3, appendix B), C7 instruction fidelity (ours: positive
cases hold no placeholder and answer what the instruction asks, see
:mod:`monitorbench.audit.fidelity`), plus hunts for the source defects the paper excluded tasks
for (D, S, R), and C8 environment fidelity (ours: on state tasks, every positive names entities the
environment holds, uses dates consistent with its clock and the instruction, meets the formats
the instruction states, and a reordered variant keeps the order the instruction's words fix).
C8 reads only what the state-source contract in :mod:`monitorbench.audit.environment` says every
state task publishes (``environment.file``, ``environment.today``...).

Entry points: :func:`monitorbench.audit.audit.audit_suite` (one suite, in process),
``python -m monitorbench.audit suite=bfcl`` (CLI), :func:`monitorbench.audit.run.run_audit`
(the ``audit`` experiment) and
:func:`monitorbench.audit.exclusions.apply_exclusions` (drop failing tasks from a loaded suite).
"""
