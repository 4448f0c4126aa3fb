"""The programs the non-LLM baselines write: each file is copied into a verifier directory as is.

They are real modules (linted and tested like the rest of the package) rather than strings, and
they import nothing from monitorbench: they run in the verifier sandbox, where only the verifier
directory and the standard library are visible. ``grounded_check`` imports ``schema_check`` as a
sibling file of the verifier directory.
"""
