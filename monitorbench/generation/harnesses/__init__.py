"""Harness scaffolds: real agent programs (Pi, mini-swe-agent, ...) write the verifier, each
pinned, installed on first use under ``outputs/harnesses/`` and run isolated (see
``sandbox.py``) with the model endpoint and a budgeted ``run_public`` as its only ways out."""
