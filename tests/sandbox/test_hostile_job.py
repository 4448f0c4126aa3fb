"""One hostile verifier among three tasks does not stop the job, charge the infrastructure, or
change what the two honest verifiers score (issue 43), on bubblewrap and on docker.

The hostile verifier attacks every case it judges: it leaves a mode-0 directory and a 1,500-deep
tree in /tmp and /dev/shm, 100,001 files (more than a per-case wipe removes), a forked
child that sleeps on, a message queue and a keyring entry. Before the per-case isolation, the
clean-up crashed on the first two and the job stopped with an InfraFailureError."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline_helpers import compose_cfg
from monitorbench.launch.run import run_job

HONEST = ("import json\n\n"
          "def verify(candidate, env):\n"
          "    # deterministic, and both accepts and rejects\n"
          "    return 'PASS' if len(json.dumps(candidate, sort_keys=True)) % 2 else 'FAIL'\n")
HOSTILE = """
import ctypes, os, time

def verify(candidate, env):
    for root in ("/tmp", "/dev/shm"):
        os.makedirs(f"{root}/zero/inner", exist_ok=True)
        os.chmod(f"{root}/zero", 0)
        path = f"{root}/deep"
        os.makedirs(path, exist_ok=True)
        os.chdir(path)
        for _ in range(1500):
            os.makedirs("d", exist_ok=True)
            os.chdir("d")
    os.makedirs("/tmp/flood", exist_ok=True)
    for i in range(100_001):
        os.close(os.open(f"/tmp/flood/{i}", os.O_CREAT | os.O_WRONLY, 0o600))
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mq_open(b"/left", os.O_CREAT | os.O_WRONLY, 0o600, None)
    libc.syscall(248, b"user", b"left", b"x", 1, -4)
    return "PASS"
"""


def _outcomes(out: Path) -> dict[tuple[str, str], tuple[str, str]]:
    run_dir = next((out / "runs").iterdir())
    rows = [json.loads(x) for x in (run_dir / "judgments.jsonl").read_text().splitlines()]
    return {(r["task_id"], r["case_id"]): (r["outcome"], r["reason"]) for r in rows}


def _job(out: Path, suites_dir: Path, backend: str, verifiers: dict[str, str]) -> dict:
    vdir = out / "verifiers"
    for tid, src in verifiers.items():
        (vdir / tid).mkdir(parents=True)
        (vdir / tid / "main.py").write_text(src)
    cfg = compose_cfg(out, suites_dir, [
        "generator=replay", f"generator.dir={vdir}", "tracking.enabled=false",
        f"sandbox={backend}", "sandbox.limits.wall_seconds=20", "sandbox.limits.cpu_seconds=20",
        "sandbox.limits.file_size_mb=64", "task.max_tasks_per_type=3"])
    return run_job(cfg)


@pytest.mark.parametrize("backend", ["bwrap", "docker"])
def test_one_hostile_verifier_among_three_tasks_changes_nothing_else(
        backend: str, tmp_path: Path, suites_dir: Path, request: pytest.FixtureRequest) -> None:
    if backend == "docker":
        request.getfixturevalue("docker_image")
    from monitorbench.audit.exclusions import apply_exclusions
    from monitorbench.suites.format import load_suite

    every = sorted(apply_exclusions(load_suite(suites_dir / "bfcl")).tasks)
    _job(tmp_path / "alone", suites_dir, backend, {t: HONEST for t in every})
    ref = _outcomes(tmp_path / "alone")
    tasks = sorted({t for t, _ in ref})  # the three the job picks
    hostile, honest = tasks[0], tasks[1:]
    mixed = _job(tmp_path / "mixed", suites_dir, backend,
                 {t: HOSTILE if t == hostile else HONEST for t in every})
    assert mixed["diag/infra_failures"] == 0, mixed
    got = _outcomes(tmp_path / "mixed")
    assert len(tasks) == 3 and {t for t, _ in got} == set(tasks)  # all three judged
    same = {k: v for k, v in got.items() if k[0] in honest}
    assert same == {k: v for k, v in ref.items() if k[0] in honest}
    assert {o for o, _ in same.values()} == {"P", "F"}  # the comparison covers both decisions
    hostile_reasons = {r for (t, _), (_, r) in got.items() if t == hostile}
    assert hostile_reasons == {""}, hostile_reasons  # each case's own tmpfs, dropped whole
