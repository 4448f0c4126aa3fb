"""Nothing of a session reaches the next one in the same sandbox (issue 49), on bubblewrap and on
docker, whose sessions share a kept container (monitorbench/sandbox/kept.py, keeper.py).

Session one plants what it can: a file in every directory it may write, a detached process, a
System V segment, a message queue, and a verifier file of its own. Then its worker is killed from
outside while a case still runs with all of that in place (as the OOM killer would), so no
per-case clean-up of the worker runs: under docker the container's keeper ends the session (the
worker's PID namespace takes the processes with it; the keeper empties the writable directories
and refills /verifier and /task). Session two, another verifier in the same container, finds
none of it and reads no trace of session one's verifier.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time

from conftest import hostile, worker_and_init, write_verifier
from test_sandbox_hostile_cases import ROOMY

MARK = "3141"  # the planted process's argument, to find it in /proc
SKIP = ("/proc", "/sys", "/usr")  # the image's read-only root: too large to walk in a fast test
WALK = f"""
import os
def writable_dirs():
    for root, dirs, files in os.walk("/"):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in {SKIP!r}]
        yield root, files
"""
PLANT = """
import ctypes, json, os, time
libc = ctypes.CDLL(None, use_errno=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "%s"])
    os._exit(0)
segment = libc.shmget(0x4d42, 4096, 0o1666)  # IPC_CREAT | 0666
queue = libc.mq_open(b"/mbleft", os.O_CREAT | os.O_WRONLY, 0o600, None)
left = []
for root, _ in writable_dirs():
    try:
        with open(os.path.join(root, "mb-left"), "w") as f:
            f.write("session one")
        left.append(root)
    except OSError:
        pass
print(json.dumps({"left": left, "segment": segment, "queue": queue}), flush=True)
time.sleep(candidate["sleep"])
return "PASS"
""" % MARK
SEEK = """
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
out = {"files": [], "procs": [], "marks": []}
for root, files in writable_dirs():
    out["files"] += [os.path.join(root, f) for f in files if f == "mb-left"]
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if b"%s" in open(f"/proc/{pid}/cmdline", "rb").read():
            out["procs"].append(pid)
    except OSError:
        pass
for top in ("/verifier", "/task", "/mb"):
    for root, dirs, files in os.walk(top):
        for name in files:
            try:
                if b"SESSION-ONE-" + b"VERIFIER" in open(os.path.join(root, name), "rb").read():
                    out["marks"].append(os.path.join(root, name))
            except OSError:
                pass
out["verifier"] = sorted(os.listdir("/verifier"))
# /proc lists every System V segment where a case sees one (docker); under bubblewrap a case
# sees no /proc, and asks for session one's segment by its key instead
out["shm"] = (open("/proc/sysvipc/shm").read().splitlines()[1:]
              if os.path.exists("/proc/sysvipc/shm")
              else [] if libc.shmget(0x4d42, 0, 0) == -1 else ["key 0x4d42"])
out["mqueue"] = sorted(os.listdir("/dev/mqueue")) if os.path.isdir("/dev/mqueue") else []
print(json.dumps(out))
return "PASS"
""" % MARK


def _wait_for_mark(timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if open(f"/proc/{pid}/cmdline", "rb").read() == f"sleep\0{MARK}\0".encode():
                    return
            except OSError:
                pass
        time.sleep(0.05)
    raise AssertionError("session one's process never started")


def test_nothing_of_a_session_reaches_the_next_in_the_same_sandbox(isolating, tmp_path,
                                                                   public_dir):
    one = hostile(tmp_path / "one", PLANT, header=WALK)
    (one / "helper.py").write_text("# SESSION-ONE-VERIFIER\n")
    two = hostile(tmp_path / "two", SEEK, header=WALK)
    with isolating.session(one, public_dir, ROOMY) as s:
        planted = s.judge({"attack": True, "sleep": 0})
        verdicts = []
        judging = threading.Thread(target=lambda: verdicts.append(
            s.judge({"attack": True, "sleep": 30})))
        judging.start()
        _wait_for_mark()  # the second case has planted everything and sleeps
        os.kill(worker_and_init(s)[0], signal.SIGKILL)
        judging.join(timeout=20)
        first_container = s.argv
    assert planted.decision == "PASS", planted
    left = json.loads(planted.stdout)["left"]  # /tmp (the case's scratch in it) and /dev/shm
    assert {"/tmp", "/dev/shm"} <= set(left), left
    assert all(d.startswith(("/tmp", "/dev/shm", "/dev/mqueue")) for d in left), left
    assert verdicts and verdicts[0].reason == "sandbox_error", verdicts
    with isolating.session(two, public_dir, ROOMY) as s:
        seen = s.judge({"attack": True})
        second_container = s.argv
    if isolating.name == "docker":  # the same container: its keeper ended session one
        assert second_container == first_container
    assert seen.decision == "PASS", seen
    out = json.loads(seen.stdout)
    assert (out["files"], out["procs"], out["marks"], out["shm"], out["mqueue"]) == (
        [], [], [], [], []), out
    assert out["verifier"] == ["main.py"], out


def test_a_stopped_run_wakes_the_judging_thread_at_once(isolating, tmp_path, public_dir):
    """A stopped run interrupts its open sessions from another thread (judging/judge.py); the
    thread waiting for a hung verifier's answer must wake now, not at the wall clock, and a
    kept container must not stay behind. Under docker the thread reads the keeper's socket,
    which killing the client alone does not end."""
    vdir = write_verifier(tmp_path, "import time\ndef verify(c, env):\n    time.sleep(60)\n")
    with isolating.session(vdir, public_dir, ROOMY) as s:
        verdicts = []
        judging = threading.Thread(target=lambda: verdicts.append(s.judge({})))
        judging.start()
        time.sleep(1.0)
        s.interrupt()
        judging.join(timeout=5)
        label = next((a for a in s.argv if a.startswith("monitorbench.session=")), None)
    assert verdicts and verdicts[0].reason == "sandbox_error", verdicts
    if label is not None:
        left = subprocess.run(["docker", "ps", "-aq", "--filter", f"label={label}"],
                              capture_output=True, text=True, check=True).stdout
        assert left == ""
