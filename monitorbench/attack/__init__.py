"""Adaptive attacker: a budgeted black-box search for invalid candidates a verifier accepts.

The suite's attack cases are fixed; a verifier can reject all of them and still accept a
slightly different invalid record. This package measures that gap: :mod:`.mutators` (tool-call
mutations and their completion per access setting), :mod:`.search` (the per-task search loop,
querying the verifier only through its sandbox session), :mod:`.stage` (the optional job stage:
static vs adaptive FPR_h, found candidates saved).

Public API::

    run_adaptive_attack(tasks, cases, references, verifier_dirs, *, sandbox, spec_for,
                        public_dir_for, budget, seed, out_dir, fields_for=None)
        -> dict[str, float]
"""

from monitorbench.attack.stage import run_adaptive_attack

__all__ = ["run_adaptive_attack"]
