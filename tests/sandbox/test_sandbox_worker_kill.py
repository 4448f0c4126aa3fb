"""A verifier that tries to kill its worker must cost itself, never the session.

Each case runs in its own user + PID namespace under a small init (monitorbench/sandbox/worker.py),
so the worker has no pid the case can name. Every kill below either reaches nothing (the init
ignores signals from inside its namespace; ``kill(-1)`` finds no other process) and the verifier's
own return value is judged, or reaches the verifier itself, which is U. In both cases the same
worker judges the next cases: no restart, no ``sandbox_error``. Real sandboxes, real signals.
"""

from __future__ import annotations

import warnings

import pytest

from conftest import BAD, GOOD, hostile, write_verifier
from monitorbench.sandbox.unshare import UnshareSandbox

# Each attack kills, then (if still alive) claims PASS for a candidate that should FAIL, so a
# surviving attack shows as a wrong PASS and a fatal one as U: both are the verifier's own doing.
KILLS = {
    "getppid": ("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nreturn 'PASS'",
                "P", "", ""),
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


def test_unshare_backend_has_its_own_ipc_namespace(tmp_path, public_dir, spec):
    """A System V segment a case makes lives in the sandbox's own IPC namespace: the host's
    /proc/sysvipc/shm does not show it, and the worker removes it before the next case."""
    vdir = write_verifier(tmp_path, """
        import ctypes
        KEY = 0x4D42
        def verify(candidate, env):
            libc = ctypes.CDLL(None, use_errno=True)
            if candidate["step"] == "make":
                return "PASS" if libc.shmget(KEY, 4096, 0o1600) >= 0 else "FAIL"  # IPC_CREAT
            return "FAIL" if libc.shmget(KEY, 0, 0) >= 0 else "PASS"  # still there?
        """)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        box = UnshareSandbox()
    with box.session(vdir, public_dir, spec) as s:
        made = s.judge({"step": "make"})
        with open("/proc/sysvipc/shm", encoding="ascii") as f:
            host_keys = [int(r.split()[0]) for r in f.read().splitlines()[1:]]
        gone = s.judge({"step": "look"})
    assert made.decision == "PASS", made
    assert 0x4D42 not in host_keys, "the segment was made in the host's IPC namespace"
    assert gone.decision == "PASS", gone
