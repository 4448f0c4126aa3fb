"""A blind second pass over a seeded sample of the τ² acceptance records (issue 46).

Why: the records are written by one reader; issue 46 asks that someone who has not seen them
write them again, from the public task alone (the instruction and the domain policy), for a
seeded sample of at least 20 tasks, and that the two be compared item by item. The second
pass lives in ``second_pass.json``; :func:`sample` picks its tasks, :func:`compare` reports the
agreement.
"""

from __future__ import annotations

import random

SAMPLE_SEED = 46
PER_DOMAIN = 8
DOMAINS = ("airline", "retail", "banking_knowledge")


def sample(seed: int = SAMPLE_SEED, per_domain: int = PER_DOMAIN) -> list[tuple[str, str]]:
    """``(domain, task_id)`` pairs: ``per_domain`` tasks of each domain, drawn by one
    ``random.Random(seed)`` from the task ids in file order, domains in :data:`DOMAINS` order."""
    from monitorbench.sources.tau2 import source as src

    rng = random.Random(seed)
    picked = []
    for domain in DOMAINS:
        ids = [t.task_id for t in src.load_tasks(domain)]
        picked += [(domain, task_id) for task_id in rng.sample(ids, per_domain)]
    return picked
