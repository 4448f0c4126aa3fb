"""Where a bwrap session's CPU goes per case, step by step, inside the worker (issue 49).

Usage: python bench/case_cost_profile.py [--suite outputs/suites/bfcl] [--tasks 20]
                                         [--parallel 2]

bench/judge_throughput.py prints the sandboxed path's CPU per case beside the bare-fork floor's;
this script says which steps of the worker's per-case path make up the difference. It runs the
same tasks, cases and verifier through the real bwrap argv, but starts the worker through a
small wrapper (``PROFILER``, bound at /mb/profile.py) that imports /mb/worker.py unchanged,
wraps its per-case steps with timers and then calls ``worker.serve``. The worker itself knows
nothing of this. Parent steps are timed in the worker (CPU of that process and wall); the
case child's own steps travel back inside its answer (a ``prof`` key the client ignores) and
its whole CPU, exit included, comes from ``wait4``. At the session's end the wrapper adds the
CPU of the cases' init, writes everything to a directory bound read-write for it, and this
script prints per-case means over all sessions, beside the whole tree's CPU per case as
judge_throughput measures it. Timers cost a little themselves (~1 us a step).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled
sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_throughput import load, measure, workspace  # noqa: E402
from monitorbench.sandbox.base import Limits, SandboxSpec  # noqa: E402
from monitorbench.sandbox.bwrap import bwrap_argv  # noqa: E402
from monitorbench.sandbox.client import WorkerSession, minimal_env  # noqa: E402
from monitorbench.sandbox.runtimes import RUNTIMES_DIR  # noqa: E402

PROFILER = '''
import json, os, sys, time
sys.path.insert(0, "/mb")
import worker

P = {}   # parent step -> [cpu s, wall s, calls]
C = {}   # child step -> cpu s (per case, sent back in the answer)
cpu, wall = time.process_time, time.perf_counter


def add(table, name, c, w):
    row = table.setdefault(name, [0.0, 0.0, 0])
    row[0] += c
    row[1] += w
    row[2] += 1


def timed(name, fn, child=False):
    def wrapper(*a, **k):
        c0, w0 = cpu(), wall()
        try:
            return fn(*a, **k)
        finally:
            add(C if child else P, name, cpu() - c0, wall() - w0)
    return wrapper


for name in ("_prepare_case", "_mount_case_tmpfs", "_case_poller", "_watch_case",
             "_clean_after_case", "_kill_strays", "_other_pids", "_reap", "_wipe",
             "_unmount_case", "_classify", "_judge", "_prepare_ahead", "_finish_case",
             "_kill_case", "drop_privileges", "_add_site_packages", "_start_case_namespace",
             "_ask_pid_reset", "_usable_pid_reset", "_session_state", "_confinement",
             "_load_runtime"):
    setattr(worker, name, timed(name, getattr(worker, name)))
for name in ("_enter_case", "_set_limits", "_confine", "_make_env"):
    setattr(worker, name, timed(name, getattr(worker, name), child=True))

real_fork, real_pipe, real_send = os.fork, os.pipe, worker._send


def fork():
    c0, w0 = cpu(), wall()
    pid = real_fork()
    if pid:
        add(P, "fork (parent side)", cpu() - c0, wall() - w0)
    else:
        C.clear()
    return pid


def send(obj, me, env, res_w):
    if os.getpid() == me:
        obj["prof"] = {"child CPU until answer": cpu(), **{k: v[0] for k, v in C.items()}}
    real_send(obj, me, env, res_w)


os.fork, worker._send = fork, send
for name in SKIP:  # measurement only: what a step costs, by leaving it out
    setattr(worker, name, () if name == "PRELOAD" else lambda *a, **k: None)
os.pipe = timed("os.pipe x2", real_pipe)
real_wait4 = os.wait4
child_cpu = [0.0]


def wait4(pid, options):
    got = real_wait4(pid, options)
    if got[0]:
        child_cpu[0] += got[2].ru_utime + got[2].ru_stime
    return got


os.wait4 = wait4
real_judge = worker._judge
case_prof = []


def judge(code, candidate, state):
    answer = real_judge(code, candidate, state)
    case_prof.append(answer.pop("prof", {}))
    return answer


worker._judge = judge
t0 = cpu()
try:
    worker.serve(json.loads(sys.argv[1]))
finally:
    init_cpu = 0.0
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                stat = open(f"/proc/{pid}/stat").read()
            except OSError:
                continue
            f = stat[stat.rindex(")") + 2:].split()
            if int(f[1]) == os.getpid():
                init_cpu += sum(int(x) for x in f[11:15]) / os.sysconf("SC_CLK_TCK")
    out = {"worker_cpu": cpu() - t0, "cases": len(case_prof), "parent": P,
           "child": case_prof, "child_cpu": child_cpu[0], "init_cpu": init_cpu}
    with open(f"/mb/prof/{os.getpid()}-{time.time_ns()}.json", "w") as fh:
        json.dump(out, fh)
'''


def profiled_session(vdir: Path, public_dir: Path, spec: SandboxSpec, script: Path,
                     prof_dir: Path) -> WorkerSession:
    """A real session whose worker starts through ``PROFILER`` (bound beside the worker)."""
    argv = bwrap_argv(vdir.resolve(), public_dir.resolve(), spec, RUNTIMES_DIR)
    at = argv.index("/mb/worker.py") + 1
    argv[at:at] = ["--ro-bind", str(script), "/mb/profile.py",
                   "--bind", str(prof_dir), "/mb/prof"]
    assert argv[-2] == "/mb/worker.pyc"
    argv[-2] = "/mb/profile.py"
    return WorkerSession(argv, minimal_env(), spec)


def summarize(prof_dir: Path) -> tuple[int, dict[str, list[float]], dict[str, float]]:
    """(cases, parent step -> [CPU, wall] ms per case, child step / process -> CPU ms per
    case)."""
    n, parent, child = 0, defaultdict(lambda: [0.0, 0.0]), defaultdict(float)
    for f in prof_dir.glob("*.json"):
        got = json.loads(f.read_text())
        n += got["cases"]
        for name, (c, w, _calls) in got["parent"].items():
            parent[name][0] += c
            parent[name][1] += w
        for case in got["child"]:
            for name, c in case.items():
                child[name] += c
        parent["worker total (session, start included)"][0] += got["worker_cpu"]
        child["case children, whole (wait4)"] += got["child_cpu"]
        child["cases' init (reaps, pid counter)"] += got["init_cpu"]
    scale = 1e3 / max(n, 1)
    return (n, {k: [v[0] * scale, v[1] * scale] for k, v in parent.items()},
            {k: v * scale for k, v in child.items()})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", type=Path, default=Path("outputs/suites/bfcl"))
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--skip", nargs="*", default=[],
                    help="worker steps replaced by no-ops (PRELOAD: no stdlib preloaded), to see "
                         "what they cost (may weaken the isolation: a measurement, never a "
                         "setting)")
    args = ap.parse_args()

    source, tasks, cases = load(args.suite, args.tasks)
    work, vdir, publics = workspace(tasks)
    (work / "profile.py").write_text(f"SKIP = {args.skip!r}\n" + PROFILER)
    prof_dir = Path(tempfile.mkdtemp(prefix="mb-prof-"))
    prof_dir.chmod(0o777)  # the worker writes here after dropping to an unprivileged uid
    spec = SandboxSpec(limits=Limits(wall_seconds=10, memory_mb=512))
    m = measure(lambda t: profiled_session(vdir, publics[t], spec, work / "profile.py",
                                           prof_dir), tasks, cases, args.parallel)
    n, parent, child = summarize(prof_dir)
    print(f"source: {source}; {len(tasks)} tasks, {n} cases profiled; whole tree "
          f"{m.cpu_per_case * 1e3:.2f} CPU ms/case (framework + bwrap + everything inside); "
          f"session start p50 {sorted(m.starts)[len(m.starts) // 2] * 1e3:.1f} ms")
    print("worker (parent) steps, ms per case (nested steps are inside their callers):")
    print(f"  {'step':<44}{'CPU':>8}{'wall':>8}")
    for name, (cpu, wall) in sorted(parent.items(), key=lambda kv: -kv[1][0]):
        print(f"  {name:<44}{cpu:>8.3f}{wall:>8.3f}")
    print("case child and init, CPU ms per case:")
    for name, ms in sorted(child.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<44}{ms:>8.3f}")
    if any(d is None for d in m.decisions):
        sys.exit(1)


if __name__ == "__main__":
    main()
