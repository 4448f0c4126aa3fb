"""Worker behaviour under each process-isolating backend: decisions, every U reason, and that the
session keeps judging correctly after a hostile case."""

from __future__ import annotations

import os
import resource
import shutil
import warnings
from dataclasses import replace

from conftest import BAD, FAST, GOOD, hostile, write_verifier

from monitorbench.sandbox.base import SandboxSpec
from monitorbench.sandbox.factory import make_sandbox
from monitorbench.sandbox.runtimes import RUNTIMES_DIR
from monitorbench.suites.sandbox_image import image_recipe


def after_attack(session, reason: str, attack: dict | None = None):
    """Run the attack, check its U reason, then check the same session still judges right."""
    v = session.judge(attack or {"attack": True})
    assert v.outcome == "U" and v.reason == reason, v
    assert session.judge(GOOD).outcome == "P"
    assert session.judge(BAD).outcome == "F"
    return v


def test_good_verifier_decisions(sandbox, tmp_path, public_dir, spec):
    vdir = write_verifier(tmp_path, """
        def verify(candidate, env):
            assert env.public_dir == env.public_dir and env.task["task_id"] == "t1"
            kind = candidate["kind"]
            print("judging", kind)
            if kind == "dict":
                return {"decision": "FAIL", "confidence": 0.25}
            if kind == "textconf":
                return {"decision": "PASS", "confidence": "very"}
            return kind
        """)
    with sandbox.session(vdir, public_dir, spec) as s:
        assert s.judge({"kind": "PASS"}).decision == "PASS"
        assert s.judge({"kind": "FAIL"}).decision == "FAIL"
        v = s.judge({"kind": "dict"})
        assert (v.decision, v.confidence) == ("FAIL", 0.25)
        assert "judging dict" in v.stdout
        v = s.judge({"kind": "textconf"})
        assert (v.decision, v.confidence) == ("PASS", None)
        assert s.judge({"kind": "pass"}).reason == "malformed"


def test_raises_is_crash_with_type_and_message(sandbox, tmp_path, public_dir, spec):
    vdir = hostile(tmp_path, "raise KeyError('no such tool: frobnicate')")
    with sandbox.session(vdir, public_dir, spec) as s:
        v = after_attack(s, "crash")
        assert "KeyError" in v.detail and "frobnicate" in v.detail


def test_garbage_returns_are_malformed(sandbox, tmp_path, public_dir, spec):
    vdir = hostile(tmp_path, "return candidate['ret'] if 'ret' in candidate else object()")
    with sandbox.session(vdir, public_dir, spec) as s:
        v = after_attack(s, "malformed", {"attack": True, "ret": {"verdict": "yes"}})
        assert "verdict" in v.detail and "expected" in v.detail
        v = after_attack(s, "malformed", {"attack": True})
        assert "object" in v.detail and "JSON" in v.detail
        after_attack(s, "malformed", {"attack": True, "ret": True})


def test_wall_clock_timeout(sandbox, tmp_path, public_dir, spec):
    vdir = hostile(tmp_path, "import time\ntime.sleep(3600)")
    with sandbox.session(vdir, public_dir, replace(spec, limits=replace(FAST, wall_seconds=1.0))
                         ) as s:
        v = after_attack(s, "timeout")
        assert 0.9 < v.seconds < 3.0


def test_cpu_limit(sandbox, tmp_path, public_dir, spec):
    vdir = hostile(tmp_path, "while True:\n    pass")
    with sandbox.session(vdir, public_dir, replace(spec, limits=replace(FAST, wall_seconds=5.0))
                         ) as s:
        after_attack(s, "cpu_limit")


def test_allocating_8gb_is_memory_limit(sandbox, tmp_path, public_dir, spec):
    vdir = hostile(tmp_path, "blob = bytearray(8 * 1024 ** 3)\nreturn 'PASS'")
    with sandbox.session(vdir, public_dir, spec) as s:
        after_attack(s, "memory_limit")


def test_printing_100mb_is_output_limit_and_framework_memory_stays_bounded(
        sandbox, tmp_path, public_dir, spec):
    vdir = hostile(tmp_path, """
        import sys
        line = "x" * (1 << 20)
        for _ in range(100):
            sys.stdout.write(line)
        return "PASS"
        """)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with sandbox.session(vdir, public_dir, spec) as s:
        v = after_attack(s, "output_limit")
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 20, f"framework grew by {grown_mb:.0f} MB"
    assert len(v.stdout) <= 2000


def test_fork_bomb_is_contained(sandbox, tmp_path, public_dir, spec):
    vdir = hostile(tmp_path, "import os\nwhile True:\n    os.fork()")
    with sandbox.session(vdir, public_dir, spec) as s:
        v = after_attack(s, "crash")
        assert "BlockingIOError" in v.detail or "Resource temporarily unavailable" in v.detail


def test_module_level_code_runs_only_in_the_per_case_child(sandbox, tmp_path, public_dir, spec):
    # If the worker parent executed module code, it would never say ready (the module sleeps),
    # and a counter kept at module level would carry over from case to case.
    vdir = write_verifier(tmp_path, """
        import os, time
        CALLS = []
        if os.environ.get("TMPDIR") is None or not os.getcwd().startswith(os.environ["TMPDIR"]):
            time.sleep(3600)
        def verify(candidate, env):
            CALLS.append(1)
            print("pid", os.getpid(), "calls", len(CALLS))
            return "PASS"
        """)
    with sandbox.session(vdir, public_dir, spec) as s:
        first, second = s.judge({}), s.judge({})
    assert first.decision == second.decision == "PASS"
    assert "calls 1" in first.stdout and "calls 1" in second.stdout
    # "calls 1" twice: a fresh process each case (isolating backends give every case its own
    # PID namespace, so the pid number itself may repeat)


def test_module_level_misbehaviour_is_u_and_session_survives(sandbox, tmp_path, public_dir, spec):
    vdir = write_verifier(tmp_path, """
        import time
        time.sleep(3600)
        def verify(candidate, env):
            return "PASS"
        """)
    with sandbox.session(vdir, public_dir, replace(spec, limits=replace(FAST, wall_seconds=0.5))
                         ) as s:
        assert [s.judge({}).reason for _ in range(2)] == ["timeout", "timeout"]
    vdir = write_verifier(tmp_path, "import sys\nsys.exit(3)\n", name="exits")
    with sandbox.session(vdir, public_dir, spec) as s:
        assert s.judge({}).reason == "crash"
        assert s.judge({}).reason == "crash"


def test_missing_verifier(sandbox, tmp_path, public_dir, spec):
    empty = tmp_path / "empty"
    empty.mkdir()
    no_verify = write_verifier(tmp_path, "def check(candidate, env):\n    return 'PASS'\n",
                               name="noverify")
    for vdir in (empty, no_verify, tmp_path / "does-not-exist"):
        with sandbox.session(vdir, public_dir, spec) as s:
            assert s.judge(GOOD).reason == "missing_verifier", vdir


def test_background_process_is_gone_before_next_case(sandbox, tmp_path, public_dir, spec):
    """A case leaves a daemon (its own session, double-forked, a sleep named by a mark); it is
    gone before the next case's answer, seen from the host; where a case sees /proc (docker),
    the next case also finds no process but its own and its ancestors there."""
    mark = str(7_000_000 + os.getpid() * 10 + len(str(tmp_path)) % 10)  # sleep takes seconds
    vdir = write_verifier(tmp_path, """
        import os, time

        def others():
            # every process in the sandbox except this one and its ancestors; /proc is the
            # sandbox's, whose pids differ from those of the case's own PID namespace (under
            # bubblewrap a case sees no /proc: nothing to list)
            if not os.path.exists("/proc/self"):
                return []
            keep, pid = set(), int(os.readlink("/proc/self"))
            while pid > 0 and pid not in keep:
                keep.add(pid)
                with open(f"/proc/{pid}/stat") as f:
                    pid = int(f.read().rsplit(")", 1)[1].split()[1])
            return sorted(int(p) for p in os.listdir("/proc")
                          if p.isdigit() and int(p) not in keep and not init(p))

        def init(pid):
            # the worker's init of the cases' PID namespace (pid 1 there) is no stray
            try:
                with open(f"/proc/{pid}/status") as f:
                    nspid = [l for l in f if l.startswith("NSpid:")][0].split()
            except (OSError, IndexError):
                return False
            return len(nspid) > 2 and nspid[-1] == "1"

        def verify(candidate, env):
            if candidate.get("attack"):
                r, w = os.pipe()
                if os.fork() == 0:
                    os.setsid()
                    if os.fork() == 0:        # daemon: waits to snoop on the next case
                        os.write(w, b"1")
                        os.execv("/bin/sleep", ["sleep", "MARK"])
                    os._exit(0)
                os.read(r, 1)
                print("started")
                return "PASS"
            print("strays", others())
            return "PASS"
        """.replace("MARK", mark))
    with sandbox.session(vdir, public_dir, spec) as s:
        attack = s.judge({"attack": True})
        assert attack.decision == "PASS" and attack.stdout.strip() == "started", attack
        probe = s.judge({})
        assert probe.decision == "PASS" and probe.stdout.strip() == "strays []", probe
        assert _host_pids_of(f"sleep\0{mark}\0".encode()) == []


def _host_pids_of(cmdline: bytes) -> list[int]:
    """Host pids whose command line is ``cmdline``."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f.read() == cmdline:
                    out.append(int(pid))
        except OSError:
            pass
    return out


def test_no_state_carries_across_cases(sandbox, tmp_path, public_dir, spec):
    vdir = write_verifier(tmp_path, """
        import os, tempfile
        def verify(candidate, env):
            paths = ["note.txt", os.path.join(tempfile.gettempdir(), "note.txt"),
                     os.path.join(os.path.dirname(os.getcwd()), "beside.txt")]
            seen = [p for p in paths if os.path.exists(p)]
            for p in paths:
                with open(p, "w") as f:
                    f.write("case data")
            mutated = "mutated" in env.task
            env.task["mutated"] = True
            return {"decision": "FAIL" if seen or mutated else "PASS"}
        """)
    with sandbox.session(vdir, public_dir, spec) as s:
        assert [s.judge({}).decision for _ in range(3)] == ["PASS", "PASS", "PASS"]


def test_runtime_hook_builds_env_and_counts_executions(sandbox, tmp_path, public_dir):
    runtimes = tmp_path / "rt" / "runtimes"
    runtimes.mkdir(parents=True)
    shutil.copy(RUNTIMES_DIR / "__init__.py", runtimes / "__init__.py")
    (runtimes / "counter.py").write_text(
        "class CounterEnv:\n"
        "    def __init__(self, config):\n"
        "        self.executions = 0\n"
        "        self.factor = config['factor']\n"
        "    def run_public(self, x):\n"
        "        self.executions += 1\n"
        "        return x * self.factor\n"
        "def make_env(task, public_dir, config):\n"
        "    return CounterEnv(config)\n")
    vdir = write_verifier(tmp_path, """
        def verify(candidate, env):
            results = [env.run_public(x) for x in candidate["xs"]]
            ok = results == candidate["want"] and env.task["task_id"] == "t1"
            return "PASS" if ok and env.public_dir else "FAIL"
        """)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # unshare's warning is tested elsewhere
        box = make_sandbox(sandbox.name, runtimes_dir=runtimes, recipe=image_recipe())
    spec = SandboxSpec(limits=FAST, runtime="counter", runtime_config={"factor": 3})
    with box.session(vdir, public_dir, spec) as s:
        v = s.judge({"xs": [1, 2], "want": [3, 6]})
        assert (v.decision, v.executions) == ("PASS", 2)
        v = s.judge({"xs": [5, 1, 1], "want": [1]})
        assert (v.decision, v.executions) == ("FAIL", 3)


def test_task_is_the_public_task_json(sandbox, tmp_path, public_dir, spec):
    vdir = write_verifier(tmp_path, """
        import json, os
        def verify(candidate, env):
            with open(os.path.join(env.public_dir, "task.json")) as f:
                on_disk = json.load(f)
            return "PASS" if on_disk == env.task else "FAIL"
        """)
    with sandbox.session(vdir, public_dir, spec) as s:
        assert s.judge({}).decision == "PASS"


def test_verifier_can_import_installed_packages(sandbox, tmp_path, public_dir, spec):
    # The worker starts Python without site processing; site-packages must still be importable.
    vdir = write_verifier(tmp_path, """
        from packaging.version import Version
        def verify(candidate, env):
            return "PASS" if Version(candidate["v"]) >= Version("1.10") else "FAIL"
        """)
    with sandbox.session(vdir, public_dir, spec) as s:
        assert [s.judge({"v": v}).decision for v in ("1.9", "1.10.1")] == ["FAIL", "PASS"]


def test_verifier_killing_its_worker_costs_one_case_only(sandbox, tmp_path, public_dir, spec):
    vdir = hostile(tmp_path, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)")
    with sandbox.session(vdir, public_dir, spec) as s:
        v = s.judge({"attack": True})
        # The worker has no pid in the cases' PID namespace, so getppid() is 0 and the kill hits
        # the case's own process group; the worker lives on (see test_sandbox_worker_kill.py).
        assert v.reason == "crash" and "SIGKILL" in v.detail, v
        assert s.judge(GOOD).outcome == "P" and s.judge(BAD).outcome == "F"


def test_stdlib_a_verifier_imports_is_preloaded_for_later_cases(sandbox, tmp_path, public_dir,
                                                                spec):
    """The worker imports a PRELOAD module in the parent once a case has imported it (issue 49:
    no session pays for modules its verifier never uses), so later cases inherit it."""
    vdir = write_verifier(tmp_path, """
        import sys
        INHERITED = "typing" in sys.modules
        import typing
        def verify(candidate, env):
            return "PASS" if INHERITED else "FAIL"
        """)
    with sandbox.session(vdir, public_dir, spec) as s:
        decisions = [s.judge({}).decision for _ in range(3)]
    assert decisions[1:] == ["PASS", "PASS"], decisions
    if sandbox.name != "docker":  # docker's kept container imports them once for all sessions
        assert decisions[0] == "FAIL", "a new session should not import unused stdlib"
