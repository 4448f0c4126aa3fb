"""A verifier that tries to kill its worker must cost itself, never the session.

Cases run in a PID namespace of their own under a small init (monitorbench/sandbox/worker.py), so
the worker has no pid a case can name. Every kill below either reaches nothing (the init ignores
signals from inside its namespace; the pids read from /proc are the sandbox's, not the case's)
and the verifier's own return value is judged, or reaches the verifier itself, which is U. In both cases the same
worker judges the next cases: no restart, no ``sandbox_error``. Real sandboxes, real signals.
"""

from __future__ import annotations

import ctypes
import os
import warnings

import pytest

from conftest import BAD, GOOD, hostile, write_verifier
from monitorbench.sandbox.unshare import UnshareSandbox

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
                   "me = os.readlink('/proc/self')\n"
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
