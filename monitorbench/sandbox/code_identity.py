"""The sandbox's own code, as a hash: a part of what decides a verdict that no config names.

A verdict depends on the verifier, its input and the sandbox spec, and also on the code that runs
it: the worker, the keeper, the seccomp filter and profile, and how each backend builds its
sandbox. A change there can change a verdict (under docker a case used to see /proc and is now
given none; a case that defeated docker's wipe was U and now keeps its verdict). So the verdict
cache (:func:`monitorbench.judging.verdict_cache.setting_hash`) and the run key
(:mod:`monitorbench.launch.run_identity`) hash this package's files: verdicts made by other
sandbox code are judged again, never reused. Any edit counts, comments included: judging again
costs sandbox time only, never a model call.
"""

from __future__ import annotations

import functools
from pathlib import Path

from monitorbench.hashing import tree_hash

SANDBOX_DIR = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=None)
def sandbox_code_hash(root: Path = SANDBOX_DIR) -> str:
    """sha256 over the relative path and bytes of every .py and .json file under ``root``, in
    path order (bytecode caches and other files are not code): :func:`hashing.tree_hash`."""
    return tree_hash(root)
