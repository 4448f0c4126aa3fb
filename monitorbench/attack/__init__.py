"""Adaptive attacker: a budgeted black-box search for invalid candidates a verifier accepts.

The suite's attack cases are fixed; a verifier can reject all of them and still accept a
slightly different invalid record. This package measures that gap on every task type:
:mod:`.validity` (what a mutation's construction does to validity), :mod:`.toolkits` (the
mutations a task is attacked with: each task source owns its own, built from its suite's attack
constructions and named by ``SourceSpec.attack``),
:mod:`.search` (the per-task search loop, querying the verifier only through its sandbox
session), :mod:`.metrics` (static vs adaptive FPR_h and tasks broken, through the paper's FPR_h
function) and :mod:`.stage` (the optional job stage).

Public API::

    run_adaptive_attack(tasks, cases, references, verifier_dirs, *, sandbox, spec_for,
                        public_dir_for, budget, seed, out_dir, fields_for=None)
        -> dict[str, float]
"""

from monitorbench.attack.stage import run_adaptive_attack

__all__ = ["run_adaptive_attack"]
