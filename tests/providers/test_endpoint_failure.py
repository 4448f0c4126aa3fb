"""An unreachable model endpoint is an infrastructure failure, never a verifier's result.

A real closed port (bound, then closed) and a real chat server answering 401/500 stand in for
a dead or refusing endpoint; the job runs as the README's command does, with a real MLflow
sqlite store, and must stop non-zero with one line, a FAILED run and no rates.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from monitorbench.providers.base import EndpointUnreachable, ModelError, endpoint_failure
from monitorbench.providers.openai_sdk import OpenAIChatModel

sys.path.insert(0, str(Path(__file__).parents[1] / "generation"))
from gen_helpers import ChatServer  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def closed_port() -> int:
    """A port nothing listens on: bound by this process, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ask(base_url: str, retries: int = 0) -> None:
    model = OpenAIChatModel(base_url=base_url, model="m", api_key=None, retries=retries,
                            timeout_seconds=10)
    model.complete([{"role": "user", "content": "hi"}], max_tokens=8, temperature=0.0,
                   top_p=1.0, seed=0, effort="NONE")


def test_refused_connection_names_endpoint_cause_and_fix() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(EndpointUnreachable) as e:
        _ask(url)
    assert e.value.endpoint == url and "connection refused" in e.value.cause
    assert endpoint_failure(f"model_error: {e.value}") == str(e.value)


@pytest.mark.parametrize("status,cause", [(401, "authentication failed"),
                                          (500, "server error after 2 attempts")])
def test_refused_key_and_5xx_after_retries_are_endpoint_failures(status: int,
                                                                 cause: str) -> None:
    server = ChatServer(lambda body: (status, "no"))
    try:
        with pytest.raises(EndpointUnreachable) as e:
            _ask(server.base_url, retries=1)
    finally:
        server.close()
    assert e.value.cause.startswith(cause)


def test_a_bad_request_stays_a_task_error_not_an_endpoint_failure() -> None:
    server = ChatServer(lambda body: (422, "bad field"))
    try:
        with pytest.raises(ModelError) as e:
            _ask(server.base_url)
    finally:
        server.close()
    assert not isinstance(e.value, EndpointUnreachable)
    assert endpoint_failure(str(e.value)) is None


@pytest.mark.parametrize("access", ["raw_parsed", "model_judge"])
def test_unreachable_endpoint_job_fails_fast_with_a_failed_run_and_no_rates(
        tmp_path: Path, suites_dir: Path, access: str) -> None:
    """The model writes verifiers (raw_parsed) or is itself the judge (model_judge): either
    way a dead endpoint stops the job, never an infrastructure count or a U per case."""
    from mlflow.tracking import MlflowClient

    port, out = closed_port(), tmp_path / "out"
    env = {**os.environ, "MONITORBENCH_OUTPUTS": str(out), "MLFLOW_TRACKING_URI": ""}
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "monitorbench", "generator=openai",
                        f"generator.base_url=http://127.0.0.1:{port}/v1", "generator.model=NAME",
                        "generator.api_key_env=null", "task.max_tasks_per_type=2",
                        f"access={access}", f"paths.suites={suites_dir}"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    seconds = time.monotonic() - t0
    said = r.stdout + r.stderr
    assert r.returncode != 0, said
    assert seconds < 60, said
    line = next(ln for ln in said.splitlines() if "endpoint unreachable" in ln)
    assert f"127.0.0.1:{port}" in line and "connection refused" in line and "Fix:" in line
    assert "Traceback" not in said and "BA_norm" not in said
    client = MlflowClient(f"sqlite:///{out}/mlflow.db")
    runs = [run for exp in client.search_experiments()
            for run in client.search_runs([exp.experiment_id])]
    assert len(runs) == 1 and runs[0].info.status == "FAILED"
    assert "connection refused" in runs[0].data.tags["monitorbench.error"]
    assert not {"ba_norm", "tpr", "tnr", "fpr_h"} & set(runs[0].data.metrics)
    if access == "model_judge":   # no judgment was persisted: the same command judges again
        assert not [ln for p in out.glob("runs/*/judgments.jsonl")
                    for ln in p.read_text().splitlines()]
        return
    # nothing is cached as done: the same command asks the endpoint again
    gens = out / "cache" / "generations"
    assert not [p for p in gens.glob("*/result.json")]
    assert len(list(gens.glob(".failed/*/result.json"))) >= 1
