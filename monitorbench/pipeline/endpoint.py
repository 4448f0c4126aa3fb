"""Generation stage guard: a model endpoint that cannot be reached is no benchmark result.

A generation whose model call failed for want of an endpoint (connection refused, DNS, TLS, the
key refused, 5xx after every retry; :class:`monitorbench.providers.base.EndpointUnreachable`)
would otherwise be judged as a missing verifier, every case U, and show up as a verifier's
BA_norm of -100. So the first such failure stops asking (the tasks not yet generated are not
attempted), and the job stops with one line naming the endpoint, the cause and the fix. Those
generations end in ``error``, which the generation cache never keeps as done, so the same
command retries them once the endpoint is back. A model that answers without a verifier stays
``no_submission``, as the paper counts it.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Mapping

from monitorbench.errors import MonitorbenchError
from monitorbench.generation.base import ERROR, GenerationResult
from monitorbench.providers.base import endpoint_failure
from monitorbench.suites.format import Task

NOT_ATTEMPTED = "not attempted, the model endpoint failed first"


class EndpointFailed(MonitorbenchError):
    """The job's model endpoint could not be used: an infrastructure failure, not a result."""


class StopOnUnreachable:
    """A generator that stops asking its model once one generation found the endpoint
    unusable: every later task ends ``error`` at once instead of waiting out its own retries.
    Its identity is the wrapped generator's, so cache keys do not change."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.failure: str | None = None
        self._lock = threading.Lock()

    @property
    def identity(self) -> Mapping[str, Any]:
        return self.inner.identity

    def generate(self, task: Task, public_dir: Path, out_dir: Path) -> GenerationResult:
        """The wrapped generation, or an ``error`` without a model call after a failure."""
        if self.failure is not None:
            return GenerationResult(task.task_id, ERROR,
                                    detail=f"{NOT_ATTEMPTED}: {self.failure}")
        result = self.inner.generate(task, public_dir, out_dir)
        found = endpoint_failure(result.detail) if result.status == ERROR else None
        if found is not None:
            with self._lock:
                self.failure = self.failure or found
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def check_endpoint(generations: Mapping[str, GenerationResult]) -> None:
    """Raise :class:`EndpointFailed` (one line: how many generations, the endpoint, the cause,
    the fix) when any generation failed for want of its endpoint; nothing otherwise."""
    failed = [f for g in generations.values() if g.status == ERROR
              for f in [endpoint_failure(g.detail)] if f is not None]
    if not failed:
        return
    raise EndpointFailed(f"{len(failed)} of {len(generations)} generations got no model reply, "
                         f"{failed[0]}; nothing was scored, and the same command retries them")
