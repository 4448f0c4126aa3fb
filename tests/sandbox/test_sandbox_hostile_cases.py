"""A hostile verifier reaches neither the host nor the next case (issue 43), on bubblewrap and on
docker, with the framework running as it runs here and in CI (root).

Every test judges a real verifier in a real sandbox session: case 1 attacks (plants, probes,
floods), case 2, in the same session, looks for what case 1 left or judges an honest candidate.
Each probe was an open hole before the isolation contract of monitorbench/sandbox/ (worker.py,
seccomp.py): /proc/sys writable as host root, message queues, keys and the pid counter shared
between cases, unbounded /tmp and /dev/shm, a clean-up that a mode-0 or deep tree crashed.
"""

from __future__ import annotations

import json
import os

import pytest

from conftest import BAD, FAST, GOOD, hostile, wipes_cases, write_verifier
from monitorbench.sandbox.base import SandboxSpec

ROOMY = SandboxSpec(limits=FAST.__class__(**{**FAST.__dict__, "wall_seconds": 20.0,
                                             "cpu_seconds": 15, "file_size_mb": 1024}))


def _json_tail(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


PROC_SYS = """
import json, os
out = {}
for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe",
             "/proc/sys/vm/drop_caches", "/proc/sysrq-trigger"):
    try:
        os.close(os.open(path, os.O_WRONLY))  # opened only: never written
        out[path] = "writable"
    except OSError as e:
        out[path] = e.errno
for name, path in (("ns_last_pid", "/proc/sys/kernel/ns_last_pid"),
                   ("bound ns_last_pid", "/mb/ns_last_pid")):  # docker binds it for the init
    try:  # the case's own pid namespace: writable only with CAP_SYS_ADMIN over it
        fd = os.open(path, os.O_WRONLY)
        os.write(fd, b"4000")
        out[name] = "written"
    except OSError as e:
        out[name] = e.errno
print(json.dumps(out))
return "FAIL" if "writable" in out.values() or "written" in out.values() else "PASS"
"""


def test_no_case_can_open_proc_sys_for_writing(isolating, tmp_path, public_dir, spec):
    with isolating.session(hostile(tmp_path, PROC_SYS), public_dir, spec) as s:
        v = s.judge({"attack": True})
    assert v.decision == "PASS", (v, v.stdout)


def test_case_is_not_host_root(isolating, tmp_path, public_dir, spec):
    """A root-owned 0600 file in the bound task directory is readable by host uid 0 alone (no
    capability needed: the owner's bits), so a case that reads it ran as host root."""
    if os.geteuid() != 0:
        pytest.skip("only a framework running as root can give a case host uid 0")
    secret = public_dir / "root_only.txt"
    secret.write_text("root's")
    secret.chmod(0o600)
    attack = """
try:
    open("/task/root_only.txt").read()
    return "FAIL"
except OSError as e:
    print("refused", e.errno)
    return "PASS"
"""
    with isolating.session(hostile(tmp_path, attack), public_dir, spec) as s:
        v = s.judge({"attack": True})
    assert (v.decision, v.stdout.split()) == ("PASS", ["refused", "13"]), v


MQUEUE_AND_KEYS = """
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
libc.mq_open.restype = ctypes.c_int
out = {"secret_seen": None}
q = libc.mq_open(b"/mbq", os.O_RDONLY | os.O_NONBLOCK)
if q >= 0:
    buf = ctypes.create_string_buffer(8192)
    n = libc.mq_receive(q, buf, 8192, None)
    out["secret_seen"] = buf.raw[:max(n, 0)].decode()
q = libc.mq_open(b"/mbq", os.O_CREAT | os.O_WRONLY, 0o600, None)
secret = candidate["secret"].encode()
out["queued"] = q >= 0 and libc.mq_send(q, secret, len(secret), 0) == 0
out["queue_errno"] = ctypes.get_errno()
if os.path.isdir("/dev/mqueue"):  # docker mounts the container's queue filesystem there
    out["fs_queues"] = sorted(os.listdir("/dev/mqueue"))
    try:
        with open("/dev/mqueue/planted", "w") as f:
            f.write(candidate["secret"])
    except OSError:
        pass
key = libc.syscall(248, b"user", b"mbkey", secret, len(secret), -4)  # add_key, user keyring
out["add_key"] = [key, ctypes.get_errno()]
found = libc.syscall(250, 10, -4, b"user", b"mbkey", 0)  # keyctl(KEYCTL_SEARCH)
out["key_found"] = found >= 0
print(json.dumps(out))
return "FAIL" if out["secret_seen"] or out["key_found"] or out.get("fs_queues") else "PASS"
"""


def test_message_queues_and_keys_do_not_reach_the_next_case(isolating, tmp_path, public_dir,
                                                            spec):
    with isolating.session(hostile(tmp_path, MQUEUE_AND_KEYS), public_dir, spec) as s:
        first = s.judge({"attack": True, "secret": "candidate one"})
        second = s.judge({"attack": True, "secret": "candidate two"})
    one, two = _json_tail(first.stdout), _json_tail(second.stdout)
    assert one["queued"] is True, one  # the case may use queues: they die with it
    assert one["add_key"] == [-1, 1], one  # keyrings are refused (EPERM)
    assert (first.decision, second.decision) == ("PASS", "PASS"), (one, two)


PID_CHANNEL = """
import os
def fork_once():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid
first = fork_once()
for _ in range(candidate["extra_forks"]):
    fork_once()
print("first_fork", os.getpid(), first)
return "PASS"
"""


def test_the_pid_counter_does_not_carry_data_to_the_next_case(isolating, tmp_path, public_dir,
                                                              spec):
    """Case 1 forks 40 extra times, which would move the next case's pids by 40 if the cases
    shared a pid counter; the next case's pids are the same as case 1's."""
    with isolating.session(hostile(tmp_path, PID_CHANNEL), public_dir, spec) as s:
        first = s.judge({"attack": True, "extra_forks": 40})
        second = s.judge({"attack": True, "extra_forks": 0})
    assert first.decision == second.decision == "PASS", (first, second)
    assert first.stdout.split() == second.stdout.split(), (first.stdout, second.stdout)


PROC_SELF = """
import os
for _ in range(candidate["extra_forks"]):
    if os.fork() == 0:
        os._exit(0)
    os.wait()
try:
    print("proc_self", os.readlink("/proc/self"))
except OSError as e:
    print("proc_self", type(e).__name__)
print("proc_pids", sorted(e for e in os.listdir("/proc") if e.isdigit()))
return "PASS"
"""


def test_proc_does_not_carry_data_to_the_next_case(isolating, tmp_path, public_dir, spec,
                                                   request):
    """Case 1 forks 40 extra times; what the next case reads of /proc (its /proc/self, the pids
    it lists) is the same as case 1's, so no pid counter of the sandbox carries a number from
    one case to the next. Under bubblewrap the cases see no /proc at all (worker._cover_proc)."""
    if wipes_cases(request):
        request.applymarker(pytest.mark.xfail(
            strict=True, reason="known gap (monitorbench/sandbox/__init__.py): under docker on a "
            "host that refuses the worker's mounts, a case's /proc is the container's, whose pid "
            "counter the previous case moved"))
    with isolating.session(hostile(tmp_path, PROC_SELF), public_dir, spec) as s:
        first = s.judge({"attack": True, "extra_forks": 40})
        second = s.judge({"attack": True, "extra_forks": 0})
    assert first.decision == second.decision == "PASS", (first, second)
    assert first.stdout == second.stdout, (first.stdout, second.stdout)
    assert "proc_pids []" in first.stdout, first.stdout


SOCKETS = """
import json, socket
out = {}
for name, family, kind in (("vsock", 40, socket.SOCK_STREAM), ("netlink", 16, socket.SOCK_RAW),
                           ("packet", 17, socket.SOCK_RAW), ("unix", 1, socket.SOCK_STREAM),
                           ("inet", 2, socket.SOCK_STREAM)):
    try:
        socket.socket(family, kind).close()
        out[name] = "created"
    except OSError as e:
        out[name] = e.errno
print(json.dumps(out))
return "PASS"
"""


def test_socket_families_other_than_unix_and_inet_are_refused(isolating, tmp_path, public_dir,
                                                              spec):
    with isolating.session(hostile(tmp_path, SOCKETS), public_dir, spec) as s:
        out = _json_tail(s.judge({"attack": True}).stdout)
    assert out["vsock"] == out["netlink"] == out["packet"] == 97, out  # EAFNOSUPPORT
    assert out["unix"] == out["inet"] == "created", out  # (inet: with no network to reach)


TREES = """
import os
seen = [d for d in ("/tmp", "/dev/shm") for e in os.listdir(d) if e.startswith("mb-")]
if candidate.get("plant"):
    for root in ("/tmp", "/dev/shm"):
        os.mkdir(f"{root}/mb-zero")
        with open(f"{root}/mb-zero/secret", "w") as f:
            f.write("candidate one")
        os.chmod(f"{root}/mb-zero", 0)
        path = f"{root}/mb-deep"
        os.mkdir(path)
        for _ in range(1500):
            os.mkdir(os.path.join(path, "d"))
            os.chdir(path)
            path = "d"
        os.chdir("/tmp")
print("seen", seen)
return "FAIL" if seen else judge(candidate, env)
"""


def test_mode_0_and_1500_deep_trees_neither_stop_the_session_nor_reach_the_next_case(
        isolating, tmp_path, public_dir):
    with isolating.session(hostile(tmp_path, TREES), public_dir, ROOMY) as s:
        planted = s.judge({**GOOD, "attack": True, "plant": True})
        after = [s.judge({**c, "attack": True}) for c in (GOOD, BAD)]
    assert planted.reason != "sandbox_error", planted
    assert [v.decision for v in after] == ["PASS", "FAIL"], [(v, v.stdout) for v in after]


FLOOD_ENTRIES = """
import os
os.mkdir("/tmp/flood")
for i in range(100_001):
    os.close(os.open(f"/tmp/flood/{i}", os.O_CREAT | os.O_WRONLY, 0o600))
return "PASS"
"""


def test_a_case_that_defeats_the_clean_up_is_its_own_u_and_the_session_goes_on(
        isolating, tmp_path, public_dir, request):
    """More files than one clean-up removes (where docker must wipe the container's /tmp after
    each case): that case is U sandbox_tampered, never an infrastructure fault, and the next
    case is judged in a fresh sandbox. Where the case has a tmpfs of its own (bubblewrap, and
    docker where the host lets the worker mount) it is dropped whole, so the case keeps its
    verdict."""
    with isolating.session(hostile(tmp_path, FLOOD_ENTRIES), public_dir, ROOMY) as s:
        flood = s.judge({"attack": True})
        after = [s.judge({**c, "attack": False}) for c in (GOOD, BAD)]
    expected = ("sandbox_tampered", None) if wipes_cases(request) else ("", "PASS")
    assert (flood.reason, flood.decision) == expected, flood
    assert [v.decision for v in after] == ["PASS", "FAIL"], after


FILL = """
import json
out = {}
for root in ("/tmp", "/dev/shm"):
    written = 0
    try:
        with open(f"{root}/fill", "wb") as f:
            for _ in range(2048):
                f.write(b"x" * (1 << 20))
                written += 1
    except OSError as e:
        out[root + "_errno"] = e.errno
    out[root] = written
print(json.dumps(out))
return "PASS"
"""


def test_tmp_and_dev_shm_are_bounded_per_case(isolating, tmp_path, public_dir):
    """Writes past /tmp's 256 MB and /dev/shm's 64 MB fail (ENOSPC) instead of taking host
    memory; the next case has the whole space again."""
    with isolating.session(hostile(tmp_path, FILL), public_dir, ROOMY) as s:
        outs = [_json_tail(s.judge({"attack": True}).stdout) for _ in range(2)]
    for out in outs:
        assert out["/tmp"] <= 256 and out["/dev/shm"] <= 64, out
        assert out["/tmp_errno"] == out["/dev/shm_errno"] == 28, out  # ENOSPC
    assert outs[0]["/tmp"] >= 200 and outs[1]["/tmp"] >= 200, outs  # freed between cases


CGROUP = """
import os
found = []
for root, dirs, files in os.walk("/sys/fs/cgroup"):
    found += files
print("cgroup files", len(found))
return "FAIL" if found else "PASS"
"""


def test_cgroup_files_are_not_readable(isolating, tmp_path, public_dir, spec):
    """Docker mounts the container's cgroup at /sys/fs/cgroup, where memory.max_usage_in_bytes
    gives away earlier cases' peak memory; bubblewrap binds no /sys at all."""
    with isolating.session(hostile(tmp_path, CGROUP), public_dir, spec) as s:
        v = s.judge({"attack": True})
    assert v.decision == "PASS", (v, v.stdout)


def test_a_plain_verifier_still_uses_subprocesses_threads_and_its_tmp(isolating, tmp_path,
                                                                       public_dir, spec):
    """The confinement takes nothing an honest verifier uses: a child process, a thread, a
    multiprocessing pipe, a temporary file."""
    body = """
import os, subprocess, tempfile, threading, multiprocessing
def verify(candidate, env):
    out = subprocess.run(["/bin/echo", "ok"], capture_output=True, text=True).stdout.strip()
    box = []
    t = threading.Thread(target=box.append, args=(1,))
    t.start(); t.join()
    a, b = multiprocessing.Pipe()
    a.send("pipe"); got = b.recv()
    with tempfile.NamedTemporaryFile() as f:
        f.write(b"x"); f.flush()
    return "PASS" if (out, box, got) == ("ok", [1], "pipe") else "FAIL"
"""
    with isolating.session(write_verifier(tmp_path, body), public_dir, spec) as s:
        v = s.judge(GOOD)
    assert v.decision == "PASS", (v, v.stdout)


def test_a_verifier_only_its_owner_can_read_is_still_judged(isolating, tmp_path, public_dir,
                                                            spec):
    """Cases run as an unprivileged user, so a verifier written under umask 077 (a mkdtemp
    directory, 0600 files) is judged from a readable copy, never a silent missing_verifier."""
    vdir = write_verifier(tmp_path, "from helper import judge\ndef verify(c, env):\n"
                                    "    return judge(c, env)\n")
    (vdir / "helper.py").write_text("def judge(c, env):\n    return 'PASS' if c else 'FAIL'\n")
    for f in vdir.iterdir():
        f.chmod(0o600)
    vdir.chmod(0o700)
    with isolating.session(vdir, public_dir, spec) as s:
        verdicts = [s.judge(GOOD), s.judge({})]
    assert [v.decision for v in verdicts] == ["PASS", "FAIL"], verdicts
