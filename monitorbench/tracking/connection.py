"""How a job talks to its MLflow store without ever waiting on it for long.

MLflow's HTTP client retries a refused connection for minutes by default (seven retries with a
doubling backoff, 120 s per request): a tracking server that went away turned a finished job into
a 16-minute wait ending in chained tracebacks, with ``metrics.json`` never written. Here every
request gets the configured timeout and retry count, a server is probed in seconds before a job
judges anything, and a store lost mid-job becomes one :class:`TrackingUnavailable` line after the
local results are written. Two processes opening one fresh SQLite store take a file lock around
MLflow's schema creation, which otherwise races (``duplicate column name: step``).
"""

from __future__ import annotations

import fcntl
import os
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from monitorbench.errors import InputError, MonitorbenchError

WHEN_DOWN = ("fail", "log_later")
_HTTP_ENV = ("MLFLOW_HTTP_REQUEST_TIMEOUT", "MLFLOW_HTTP_REQUEST_MAX_RETRIES",
             "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", "MLFLOW_HTTP_REQUEST_BACKOFF_JITTER")


class TrackingUnavailable(MonitorbenchError):
    """The MLflow store cannot be reached; the message is the one line the user reads."""


def not_logged(uri: str, why: str) -> TrackingUnavailable:
    """The job's last line when its results are on disk but not in MLflow."""
    return TrackingUnavailable(
        f"MLflow at {uri} is unreachable ({why}): the run was not logged; local results are "
        "written and every judgment is kept. Re-run the same command once the server is back "
        "to log it (nothing is judged again)")


def configure_http(timeout_s: float, retries: int) -> None:
    """Bound every MLflow HTTP request of this process: ``timeout_s`` per try, ``retries``
    more tries, no long backoff. MLflow reads these variables on each request."""
    if timeout_s <= 0 or retries < 0:
        raise InputError("conf/tracking/*.yaml", "tracking.timeout_s" if timeout_s <= 0
                         else "tracking.retries",
                         f"got timeout_s={timeout_s}, retries={retries}",
                         "use a timeout above 0 and retries of 0 or more")
    values = (str(max(1, round(timeout_s))), str(retries), "1", "0.1")
    os.environ.update(dict(zip(_HTTP_ENV, values)))


def check_when_down(value: str) -> str:
    if value not in WHEN_DOWN:
        raise InputError("conf/tracking/*.yaml", "tracking.when_down",
                         f"unknown value {value!r}", f"use one of {', '.join(WHEN_DOWN)}")
    return value


def probe(uri: str, timeout_s: float) -> str | None:
    """Why the store at ``uri`` cannot be reached (None: it answers). Only a server is probed;
    a local SQLite or file store is always there."""
    if not uri.startswith(("http://", "https://")):
        return None
    try:
        with urllib.request.urlopen(f"{uri.rstrip('/')}/health", timeout=timeout_s) as r:
            return None if r.status == 200 else f"health check answered {r.status}"
    except urllib.error.HTTPError as e:
        return f"health check answered {e.code}"
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        return f"{type(reason).__name__}: {reason}" if not isinstance(reason, str) else reason


def is_unreachable(error: BaseException) -> bool:
    """Whether ``error`` (or one it was raised from) says the server could not be reached, as
    opposed to a request the server refused."""
    import requests

    for seen in _chain(error):
        if isinstance(seen, (requests.exceptions.ConnectionError, requests.exceptions.Timeout,
                             ConnectionError, TimeoutError)):
            return True
        text = str(seen)
        if "Max retries exceeded" in text or "Connection refused" in text:
            return True
    return False


def reason(error: BaseException) -> str:
    """A few words for why a request failed (``connection refused``), not MLflow's page of
    retry details."""
    text = " ".join(str(e) for e in _chain(error)).lower()
    for needle, words in (("connection refused", "connection refused"),
                          ("timed out", "timed out"), ("timeout", "timed out"),
                          ("name or service not known", "unknown host")):
        if needle in text:
            return words
    return type(error).__name__


def _chain(error: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    seen: BaseException | None = error
    while seen is not None and len(out) < 20:
        out.append(seen)
        seen = seen.__cause__ or seen.__context__
    return out


@contextmanager
def store_lock(uri: str) -> Iterator[None]:
    """Exclusive lock beside a local SQLite store while MLflow creates or migrates its schema;
    nothing for a server (it migrates once, at its own start)."""
    if not uri.startswith("sqlite:///"):
        yield
        return
    db = Path(uri[len("sqlite:///"):])
    db.parent.mkdir(parents=True, exist_ok=True)
    with open(db.with_name(db.name + ".lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
