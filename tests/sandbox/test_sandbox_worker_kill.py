"""A verifier that tries to kill its worker must cost itself, never the session.

Cases run in a PID namespace of their own under a small init (monitorbench/sandbox/worker.py),
so the worker has no pid a case can name. Every kill below either reaches nothing (the init
ignores signals from inside its namespace; under bubblewrap a case sees no /proc, and under
docker the pids read from it are the container's, not the case's) and the verifier's own return value is judged, or reaches the verifier itself, which is
U. Either way the same worker judges the next cases: no restart, no ``sandbox_error``. Real
sandboxes, real signals.
"""

from __future__ import annotations

import ctypes
import json
import os
import textwrap
import warnings

import pytest

from conftest import (BAD, GOOD, descendants, hostile, session_root, worker_and_init,
                      write_verifier)
from pipeline_helpers import compose_cfg
from monitorbench.audit.exclusions import apply_exclusions
from monitorbench.config import AccessConfig
from monitorbench.hashing import canonical_json
from monitorbench.launch.run import run_job, select_tasks
from monitorbench.sandbox.bwrap import bwrap_usable
from monitorbench.sandbox.unshare import UnshareSandbox
from monitorbench.suites.access import view_for
from monitorbench.suites.format import load_suite

# Each attack kills, then (if still alive) claims PASS for a candidate that should FAIL, so a
# surviving attack shows as a wrong PASS and a fatal one as U: both are the verifier's own doing.
KILLS = {
    # the worker has no pid in the case's namespace: getppid() is 0, and kill(0) is the case's
    # own process group
    "getppid": ("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nreturn 'PASS'",
                "U", "crash", "SIGKILL"),
    # no other process to signal in the case's namespace: ESRCH, raised, so a crash
    "kill_all": ("import os, signal\nos.kill(-1, signal.SIGKILL)\nreturn 'PASS'", "U",
                 "crash", "ProcessLookupError"),
    "proc_scan": ("import os, signal\n"
                  "for e in os.listdir('/proc'):\n"
                  "    if e.isdigit() and int(e) != os.getpid():\n"
                  "        try:\n"
                  "            os.kill(int(e), signal.SIGKILL)\n"
                  "        except OSError:\n"
                  "            pass\n"
                  "return 'PASS'", "P", "", ""),
    # a /proc directory is a pidfd, but not for a process outside the caller's PID namespace
    "proc_pidfd": ("import os, signal\n"
                   "me = os.readlink('/proc/self') if os.path.exists('/proc/self') else ''\n"
                   "for e in os.listdir('/proc'):\n"
                   "    if e.isdigit() and e != me:\n"
                   "        try:\n"
                   "            fd = os.open(f'/proc/{e}', os.O_RDONLY | os.O_DIRECTORY)\n"
                   "            signal.pidfd_send_signal(fd, signal.SIGKILL)\n"
                   "        except OSError:\n"
                   "            pass\n"
                   "return 'PASS'", "P", "", ""),
    "killpg_own": ("import os, signal\nos.killpg(0, signal.SIGKILL)\nreturn 'PASS'", "U",
                   "crash", "SIGKILL"),
    "all_then_self": ("import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\n"
                      "except OSError:\n    pass\n"
                      "os.kill(os.getpid(), signal.SIGKILL)\nreturn 'PASS'", "U", "crash",
                      "SIGKILL"),
}


@pytest.mark.parametrize("variant", sorted(KILLS))
def test_killing_the_worker_is_impossible(sandbox, tmp_path, public_dir, spec, variant):
    attack, outcome, reason, detail = KILLS[variant]
    vdir = hostile(tmp_path, attack)
    with sandbox.session(vdir, public_dir, spec) as s:
        verdicts = [s.judge(c) for c in (GOOD, {**BAD, "attack": True}, BAD,
                                          {**BAD, "attack": True}, GOOD)]
        assert len(s.start_seconds) == 1, "the worker was restarted"
        assert s.proc is not None and s.proc.poll() is None, "the worker died"
    assert [v.outcome for v in verdicts] == ["P", outcome, "F", outcome, "P"], verdicts
    for v in (verdicts[1], verdicts[3]):
        assert v.reason == reason and detail in v.detail, v


def _run_verifier(chosen: dict[str, str]) -> str:
    """A verifier that runs the KILLS attack named for each chosen candidate (by its canonical
    JSON) and says PASS for every other one."""
    attacks = "".join(f"\ndef attack_{name}():\n" + textwrap.indent(KILLS[name][0], "    ") + "\n"
                      for name in sorted(set(chosen.values())))
    return (f"import json\nCHOSEN = json.loads({json.dumps(json.dumps(chosen))})\n{attacks}\n"
            "def verify(candidate, env):\n"
            "    key = json.dumps(candidate, sort_keys=True, separators=(',', ':'),\n"
            "                     ensure_ascii=False)\n"
            "    if key in CHOSEN:\n"
            "        return globals()['attack_' + CHOSEN[key]]()\n"
            "    return 'PASS'\n")


@pytest.mark.skipif(not bwrap_usable(), reason="needs a working bubblewrap")
def test_kills_through_the_judging_loop_cost_only_their_cases(tmp_path, suites_dir):
    """A real job (replayed verifiers, BFCL suite, default bwrap sandbox) in which one case per
    kill variant attacks: those cases and no others are U (or, for an attack that reaches
    nothing, the verifier's own PASS), nothing is a sandbox error, nothing is retried, and no
    infrastructure failure is recorded."""
    cfg = compose_cfg(tmp_path / "out", suites_dir, [
        "generator=replay", f"generator.dir={tmp_path / 'v'}", "tracking.enabled=false",
        "task.max_tasks_per_type=3"])
    sel = select_tasks(cfg, [("bfcl", apply_exclusions(load_suite(suites_dir / "bfcl")))])
    view = view_for(AccessConfig(), "tool_call")
    cases = [(t.task_id, c) for t in sel.tasks for c in sel.cases[t.task_id]]
    keys = [canonical_json(view.project(c.candidate)) for _, c in cases]
    unique = [tc for tc, k in zip(cases, keys) if keys.count(k) == 1]  # attack exactly one case
    picked = dict(zip(sorted(KILLS), unique[::max(1, len(unique) // len(KILLS))]))
    chosen = {canonical_json(view.project(c.candidate)): name for name, (_, c) in picked.items()}
    assert len(chosen) == len(KILLS)
    for t in sel.tasks:
        write_verifier(tmp_path / "v", _run_verifier(chosen), name=t.task_id)
    m = run_job(cfg)
    run_dir = next((tmp_path / "out" / "runs").iterdir())
    lines = [json.loads(x) for x in (run_dir / "judgments.jsonl").read_text().splitlines()]
    assert len(lines) == len(cases) and not [r for r in lines if r["reason"] == "sandbox_error"]
    by_case = {(r["task_id"], r["case_id"]): r for r in lines}
    for name, (task_id, case) in picked.items():
        r, (_, outcome, reason, detail) = by_case[(task_id, case.case_id)], KILLS[name]
        assert r["outcome"] == outcome and r["reason"] == reason, (name, r)
        assert detail in r["detail"], (name, r)
    attacked = {(t, c.case_id) for t, c in picked.values()}
    assert all(r["outcome"] == "P" for k, r in by_case.items() if k not in attacked)
    n_u = sum(KILLS[n][1] == "U" for n in picked)
    assert m["diag/infra_failures"] == 0 and m["n_cases"] == len(cases)
    assert m["valid_output_rate"] == pytest.approx(100.0 * (len(cases) - n_u) / len(cases),
                                                   abs=0.1)


def test_unshare_backend_has_its_own_ipc_namespace(tmp_path, public_dir, spec):
    """The unshare sandbox has a System V IPC namespace of its own: a case cannot see a segment
    of the host's, the worker's clean-up after each case (it removes every segment it sees) leaves
    the host's alone, and a segment a case makes is gone before the next case."""
    libc = ctypes.CDLL(None, use_errno=True)
    key = 0x4D420000 + os.getpid() % 0xFFFF
    host = libc.shmget(key, 4096, 0o1600)  # IPC_CREAT | 0600, in the host's namespace
    assert host >= 0, os.strerror(ctypes.get_errno())
    vdir = write_verifier(tmp_path, f"""
        import ctypes
        def verify(candidate, env):
            libc = ctypes.CDLL(None, use_errno=True)
            if candidate["step"] == "make":
                return "PASS" if libc.shmget({key}, 4096, 0o1600) >= 0 else "FAIL"
            return "FAIL" if libc.shmget({key}, 0, 0) >= 0 else "PASS"  # anything there?
        """)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            box = UnshareSandbox()
        with box.session(vdir, public_dir, spec) as s:
            verdicts = [s.judge({"step": step}) for step in ("look", "make", "look")]
        assert [v.decision for v in verdicts] == ["PASS"] * 3, verdicts
        assert libc.shmget(key, 0, 0) == host, "the worker removed the host's segment"
    finally:
        libc.shmctl(host, 0, None)  # IPC_RMID


def _state(pid: int) -> str:
    """The process's state letter, or "gone"."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return "gone"
    return stat[stat.rindex(")") + 2]


def test_the_cases_init_never_outlives_its_worker(sandbox, tmp_path, public_dir, spec):
    """The cases' init (pid 1 of their namespace) reaps forever, so it must die with the
    worker that started it: otherwise a worker killed from outside (Slurm's requeue signal, the
    OOM killer) while the sandbox's own init cannot tear the session down leaves the init, the
    sandbox and its pids cgroup behind on the node for good. Here everything between the client
    and the worker is stopped, so only the init's own tie to its worker can end it."""
    import signal
    import time

    vdir = write_verifier(tmp_path, "def verify(candidate, env):\n    return 'PASS'\n")
    with sandbox.session(vdir, public_dir, spec) as s:
        assert s.judge(GOOD).decision == "PASS"
        root = session_root(s)
        tree = [root, *descendants(root)]
        worker, init = worker_and_init(s)
        assert init in descendants(worker)
        # the worker answers before it ends the case: wait for that end, or the case's child,
        # orphaned to the stopped bwrap, would hold the dying init up (as during any case)
        deadline = time.monotonic() + 3
        while set(descendants(worker)) - {init} and time.monotonic() < deadline:
            time.sleep(0.005)
        above = tree[: tree.index(worker)]
        for p in above:
            os.kill(p, signal.SIGSTOP)
        try:
            os.kill(worker, signal.SIGKILL)
            deadline = time.monotonic() + 3
            while _state(init) not in ("gone", "Z") and time.monotonic() < deadline:
                time.sleep(0.02)
            assert _state(init) in ("gone", "Z"), "the cases' init outlived its worker"
        finally:
            for p in above:
                os.kill(p, signal.SIGCONT)
