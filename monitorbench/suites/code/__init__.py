"""Code tasks (SWE-smith style): seeded AST bugs in pinned pure-Python libraries.

Entry point: :func:`monitorbench.suites.code.build.build_code_suite`. The reference verifier is
``code.hardened_grader`` (:mod:`monitorbench.suites.code.grader`); the in-sandbox runtime is
:mod:`monitorbench.sandbox.runtimes.code`.
"""
