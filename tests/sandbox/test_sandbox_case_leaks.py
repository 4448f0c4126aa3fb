"""Channels from one case to the next inside one session (bwrap and docker) that outlive the case's processes:
files outside the scratch /tmp, and System V IPC objects. Each test plants data in case 1 and
looks for it in case 2 through the real sandbox; both channels were open before the fix (the
second case read the first case's candidate back)."""

from __future__ import annotations

from conftest import write_verifier

PLANT_FILES = """
import os
PLACES = ("/", "/etc", "/mb", "/dev", "/dev/shm", "/run", "/var")

def verify(candidate, env):
    seen, written = [], []
    for d in PLACES:
        path = os.path.join(d, "planted")
        if os.path.exists(path):
            seen.append(path)
        try:
            with open(path, "w") as f:
                f.write(candidate["secret"])
            written.append(d)
        except OSError:
            pass
    print("written", written, "seen", seen)
    return "FAIL" if seen else "PASS"
"""

PLANT_SHM = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p

def verify(candidate, env):
    segment = libc.shmget(4242, 4096, 0o1600)   # IPC_CREAT | 0600: same key every case
    queue = libc.msgget(4243, 0o1600)
    semaphores = libc.semget(4244, 1, 0o1600)
    addr = libc.shmat(segment, None, 0)
    before = ctypes.string_at(addr, 32).rstrip(b"\\0")
    ctypes.memmove(addr, candidate["secret"].encode().ljust(32, b"\\0"), 32)
    print("segment", segment, "queue", queue, "semaphores", semaphores, "saw", before)
    return "FAIL" if before else "PASS"
"""


def test_files_outside_tmp_do_not_reach_the_next_case(isolating, tmp_path, public_dir, spec):
    vdir = write_verifier(tmp_path, PLANT_FILES)
    with isolating.session(vdir, public_dir, spec) as s:
        first = s.judge({"secret": "candidate one"})
        second = s.judge({"secret": "candidate two"})
    # /dev/shm stays writable (multiprocessing needs it) and is wiped; everything else is read-only
    assert "written ['/dev/shm']" in first.stdout, first
    assert (first.decision, second.decision) == ("PASS", "PASS"), second.stdout


def test_sysv_ipc_objects_do_not_reach_the_next_case(isolating, tmp_path, public_dir, spec):
    vdir = write_verifier(tmp_path, PLANT_SHM)
    with isolating.session(vdir, public_dir, spec) as s:
        first = s.judge({"secret": "candidate one"})
        second = s.judge({"secret": "candidate two"})
    assert " -1 " not in first.stdout and "segment -1" not in first.stdout, first  # IPC works
    assert (first.decision, second.decision) == ("PASS", "PASS"), second.stdout
