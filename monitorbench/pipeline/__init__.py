"""One pipeline, in stages, for every entry point.

``monitorbench run`` (a sweep job, :mod:`monitorbench.launch.run`), ``monitorbench score`` (one
verifier from the shell, :mod:`monitorbench.score`) and ``monitorbench audit``
(:mod:`monitorbench.audit.run`) call the same stage functions, so a verifier scored from the shell
sees exactly what it sees in a sweep: the same hidden paths masked, the same per-type limits, the
same access projection, the same seeded task sample.

Stages, in the order a job runs them:

- :mod:`.prepare`: the typed config (converted once, at the entry point), the seeded task
  selection, the sandbox spec and per-type limits, the judgment rounds, the cases each access
  setting can tell apart.
- generation stays in :mod:`monitorbench.generation` (its factory is the stage).
- :mod:`.judge`: the judging jobs of a selection (cases set aside per access, one job per round),
  the sandbox sessions that run them, and the judgments they leave in the store.
- :mod:`.score`: the reported round and the metrics of those judgments.
- tracking stays in :mod:`monitorbench.tracking`.
"""
