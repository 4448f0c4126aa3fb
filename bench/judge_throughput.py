"""Cases per second through the bwrap sandbox, beside the same verifier called in-process.

Usage: python bench/judge_throughput.py [--suite outputs/suites/bfcl] [--tasks 40]
                                        [--parallel 2] [--backend bwrap] [--repeat 5]

One sandbox session per task (one bwrap start), one fork per case, ``--parallel`` sessions at a
time, as the judging loop runs them. The verifier is a realistic tool-call checker (function names,
required and unknown arguments, simple types against ``env.task["tools"]``). Tasks and cases come
from the BFCL suite when one is built at ``--suite``; otherwise synthetic ones are generated and the
output says so. Prints the bwrap start cost and the per-case cost separately, then the
throughput of both paths and their ratio, all from this one run.

Beside them, the *bare-fork floor*: the same sessions, the same bwrap argv and the same client,
but inside the sandbox a minimal loop (``FLOOR``) that imports the verifier once and, per case,
forks a child that calls ``verify`` and writes the value to a pipe: no rlimits, no scratch
directory, no output capture, no wall clock, no clean-up. What the worker costs beyond that is
the price of its per-case isolation. On a shared machine wall-clock rates move with the load, so
the CPU per case of each path (framework + bwrap + everything inside) is printed too, and each
path runs ``--repeat`` times, alternating, with its median run in the table and the spread below.

``--before REV``: one more path, the same bwrap sessions with the worker.py of git revision REV
bound in place of this checkout's, alternated with the others: a change to the worker measured
side by side with what it replaced, in one run (issue 49).
"""

from __future__ import annotations

import argparse
import atexit
import functools
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from monitorbench.errors import InputError  # noqa: E402
from monitorbench.sandbox.base import Limits, SandboxSpec  # noqa: E402
from monitorbench.sandbox import bwrap as bwrap_module  # noqa: E402
from monitorbench.sandbox.bwrap import bwrap_argv  # noqa: E402
from monitorbench.sandbox.client import WorkerSession, minimal_env  # noqa: E402
from monitorbench.sandbox.factory import make_sandbox  # noqa: E402
from monitorbench.sandbox.runtimes import RUNTIMES_DIR  # noqa: E402
from monitorbench.suites.sandbox_image import image_recipe  # noqa: E402

VERIFIER = '''
TYPES = {"integer": int, "float": (int, float), "number": (int, float), "string": str,
         "boolean": bool, "array": list, "dict": dict, "object": dict}


def verify(candidate, env):
    tools = {t["name"]: t.get("parameters", {}) for t in env.task["tools"]}
    calls = candidate.get("calls")
    if not isinstance(calls, list) or not calls:
        return {"decision": "FAIL", "confidence": 0.9}
    for call in calls:
        params = tools.get(call.get("name"))
        args = call.get("arguments")
        if params is None or not isinstance(args, dict):
            return "FAIL"
        props = params.get("properties", {})
        if any(r not in args for r in params.get("required", [])):
            return "FAIL"
        for key, value in args.items():
            if key not in props:
                return "FAIL"
            want = TYPES.get(props[key].get("type"))
            if want is not None and not isinstance(value, want):
                return "FAIL"
    return {"decision": "PASS", "confidence": 0.8}
'''


FLOOR = '''
import json, os, sys
task = json.load(open("/task/task.json"))
module = {"__name__": "main"}
exec(compile(open("/verifier/main.py").read(), "/verifier/main.py", "exec"), module)
verify = module["verify"]
env = type("Env", (), {"task": task, "public_dir": "/task"})()
out = sys.stdout.buffer
out.write(b'{"ready": true}\\n')
out.flush()
for line in sys.stdin.buffer:
    candidate = json.loads(line)["candidate"]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(w, json.dumps({"status": "returned", "value": verify(candidate, env)}).encode())
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    answer = os.read(r, 1 << 20)
    os.close(r)
    out.write(answer + b"\\n")
    out.flush()
'''


def floor_session(vdir: Path, public_dir: Path, spec: SandboxSpec, script: Path) -> WorkerSession:
    """A session on the bwrap argv of a real one, running ``FLOOR`` instead of the worker."""
    argv = bwrap_argv(vdir.resolve(), public_dir.resolve(), spec, RUNTIMES_DIR)
    at = argv.index("/mb/worker.py") + 1  # beside the worker's bind, before / turns read-only
    argv[at:at] = ["--ro-bind", str(script), "/mb/floor.py"]
    assert argv[-2] == "/mb/worker.pyc"  # ... python -I -S -B /mb/worker.pyc CONFIG
    return WorkerSession([*argv[:-2], "/mb/floor.py"], minimal_env(), spec)


def worker_at(rev: str, work: Path) -> Path:
    """This repository's monitorbench/sandbox/worker.py as of git revision ``rev``, in ``work``."""
    path = work / f"worker-{rev.replace('/', '_')}.py"
    path.write_bytes(subprocess.run(
        ["git", "show", f"{rev}:monitorbench/sandbox/worker.py"], check=True,
        capture_output=True, cwd=Path(__file__).resolve().parents[1]).stdout)
    return path


@contextmanager
def bound_worker(worker: Path) -> Iterator[None]:
    """Real bwrap sessions (argv, pids cgroup and all) with ``worker`` bound as /mb/worker.py
    while the block runs. The paths of one run take turns, never overlap, so this is safe."""
    saved = bwrap_module.WORKER_PATH
    bwrap_module.WORKER_PATH = worker
    try:
        yield
    finally:
        bwrap_module.WORKER_PATH = saved


def synthetic(n_tasks: int, cases_per_task: int = 21) -> tuple[list[tuple[str, dict]],
                                                               dict[str, list[dict]]]:
    """Tool-call tasks shaped like BFCL's: a few tools, gold calls and broken variants."""
    tasks, cases = [], {}
    for i in range(n_tasks):
        tools = [{"name": f"tool_{i}_{k}", "parameters": {
            "type": "dict", "required": ["city", "days"],
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                           "unit": {"type": "string"}}}} for k in range(3)]
        task = {"task_id": f"syn.{i}", "task_type": "tool_call", "source": "synthetic",
                "tools": tools}
        gold = {"name": tools[0]["name"], "arguments": {"city": "Paris", "days": 3}}
        variants = [gold, {**gold, "arguments": {"city": "Paris"}},
                    {**gold, "name": "nope"}, {**gold, "arguments": {"city": 1, "days": 3}},
                    {**gold, "arguments": {"city": "Paris", "days": 3, "x": 1}}]
        cases[task["task_id"]] = [{"raw": json.dumps([variants[j % len(variants)]]),
                                   "calls": [variants[j % len(variants)]]}
                                  for j in range(cases_per_task)]
        tasks.append((task["task_id"], task))
    return tasks, cases


def load(suite_dir: Path, n_tasks: int) -> tuple[str, list[tuple[str, dict]], dict[str, list]]:
    from monitorbench.suites.format import load_suite

    if (suite_dir / "manifest.json").is_file():
        try:
            suite = load_suite(suite_dir)
        except InputError as e:
            print(f"suite at {suite_dir} unusable ({e}); using synthetic tasks")
        else:
            ids = sorted(suite.tasks)[:n_tasks]
            tasks = [(t, json.loads((suite.public_dir(t) / "task.json").read_text()))
                     for t in ids]
            cases = {t: [dict(c.candidate) for c in suite.cases[t]] for t in ids}
            return f"BFCL suite {suite_dir}", tasks, cases
    else:
        print(f"no suite at {suite_dir}; using synthetic tasks")
    tasks, cases = synthetic(n_tasks)
    return "synthetic tool-call tasks", tasks, cases


def _self_cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def tree_cpu(pid: int) -> float:
    """CPU used so far by a live process tree: each process's own time plus its reaped children
    (the worker reaps every per-case child, so they are included). Read before the session
    closes, because bwrap's exit does not pass its children's times up to us."""
    tick = os.sysconf("SC_CLK_TCK")
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            stat = Path(f"/proc/{p}/stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            total += sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return total


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU of the process and its reaped children), or None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[1]), sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def engine_cpu() -> float:
    """CPU used so far by the docker engine and what serves this process: the dockerd at
    ``DOCKER_HOST`` with its containerd, this process's live ``docker`` clients, and each kept
    container (its shim, the keeper and everything the keeper forked). The kept containers
    outlive sessions, so docker's CPU per case is this total's growth over a run, not a sum
    over sessions as for bwrap."""
    sock = os.environ.get("DOCKER_HOST", "").removeprefix("unix://").encode()
    me, parents, cpu, roots = os.getpid(), {}, {}, set()
    for pid in (int(e) for e in os.listdir("/proc") if e.isdigit()):
        got = _stat(pid)
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if got is None:
            continue
        parents[pid], cpu[pid] = got
        engine = cmd.startswith(b"dockerd") and sock in cmd
        if engine or (got[0] == me and cmd.startswith(b"docker\0")):
            roots.add(pid)
        if b"/mb/keeper.py" in cmd:
            roots.add(got[0])  # the container's shim (or, for a session's worker, the keeper)
    return sum(c for pid, c in cpu.items() if _under(pid, roots, parents))


def _under(pid: int, roots: set[int], parents: dict[int, int]) -> bool:
    seen = set()
    while pid not in roots:
        if pid in seen or pid not in parents:
            return False
        seen.add(pid)
        pid = parents[pid]
    return True


class Env:
    def __init__(self, task: dict, public_dir: str) -> None:
        self.task = task
        self.public_dir = public_dir


def in_process(verifier_dir: Path, tasks, cases) -> tuple[float, list[Any]]:
    spec = importlib.util.spec_from_file_location("bench_verifier", verifier_dir / "main.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = []
    t0 = time.perf_counter()
    for tid, task in tasks:
        env = Env(task, "/task")
        for c in cases[tid]:
            r = module.verify(c, env)
            out.append(r if isinstance(r, str) else r["decision"])
    return time.perf_counter() - t0, out


class Measured:
    """What one path measured over all tasks."""

    def __init__(self, seconds: float, decisions: list, starts: list, per_case: list,
                 cpu_per_case: float) -> None:
        self.seconds, self.decisions, self.starts = seconds, decisions, starts
        self.per_case, self.cpu_per_case = per_case, cpu_per_case


class CpuAccount:
    """Nanosecond CPU of this process and everything it starts, from a cpuacct cgroup of its
    own (cgroup v1's ``cpuacct.usage``, v2's ``cpu.stat`` usage_usec) where the host lets it
    make one. Why: /proc's per-process times are whole clock ticks (10 ms), rounded down per
    process and field, and miss a session's teardown once bwrap has exited; on a BFCL session
    of ~24 cases that dropped about half of the CPU per case (perf, bench/case_cost_roles.py,
    counts 4.9 ms where the tick sums showed 2.1). None of the tick sums' gaps applies here:
    the kernel charges every task of the cgroup as it runs. ``usage()`` is None where no such
    cgroup can be made (then ``measure`` falls back to the tick sums, as its output says)."""

    def __init__(self) -> None:
        self.file: Path | None = None
        for root, name in ((Path("/sys/fs/cgroup/cpuacct"), "cpuacct.usage"),
                           (Path("/sys/fs/cgroup"), "cpu.stat")):
            if not (root / "cgroup.procs").is_file() or not os.access(root, os.W_OK):
                continue
            if name == "cpu.stat" and "cpu" not in (root / "cgroup.controllers").read_text():
                continue
            group = root / f"mb-bench-{os.getpid()}"
            try:
                group.mkdir(exist_ok=True)
                (group / "cgroup.procs").write_text(str(os.getpid()))
            except OSError:
                continue
            self.file = group / name
            atexit.register(self._leave, root, group)
            break

    @staticmethod
    def _leave(root: Path, group: Path) -> None:
        """Back to the root cgroup, and the bench's own removed (it is empty once we left)."""
        try:
            (root / "cgroup.procs").write_text(str(os.getpid()))
            group.rmdir()
        except OSError:
            pass

    def usage(self) -> float | None:
        """CPU seconds charged so far, or None without a cgroup of our own."""
        if self.file is None:
            return None
        text = self.file.read_text()
        if self.file.name == "cpu.stat":
            return int(text.split("usage_usec")[1].split()[0]) / 1e6
        return int(text) / 1e9


@functools.lru_cache(maxsize=None)
def account() -> CpuAccount:
    """The one :class:`CpuAccount` of this process, made at first use (not at import: a module
    that imports this one for a helper is not moved into a cgroup)."""
    return CpuAccount()


def measure(open_session, tasks, cases, parallel: int, docker: bool = False) -> Measured:
    """Judge every case, one session per task, ``parallel`` sessions at a time. ``docker``:
    the CPU column counts the engine's and the kept containers' growth (``engine_cpu``);
    otherwise it is ``account()``'s growth, or, without it, the tick sums of /proc."""
    starts: list[float] = []
    per_case: list[float] = []
    sandbox_cpu: list[float] = []

    def run_task(item: tuple[str, dict]) -> list[str | None]:
        tid, _ = item
        with open_session(tid) as s:
            starts.extend(s.start_seconds)
            out = []
            for c in cases[tid]:
                t0 = time.perf_counter()
                out.append(s.judge(c).decision)
                per_case.append(time.perf_counter() - t0)
            if s.proc is not None and not docker:
                sandbox_cpu.append(tree_cpu(s.proc.pid))
            return out

    n_cases = sum(len(cases[t]) for t, _ in tasks)
    engine0 = engine_cpu() if docker else 0.0
    cpu0, charged0 = _self_cpu(), account().usage()
    t0 = time.perf_counter()
    with ThreadPoolExecutor(parallel) as pool:
        decisions = [d for ds in pool.map(run_task, tasks) for d in ds]
    seconds = time.perf_counter() - t0
    if docker:
        sandbox_cpu.append(engine_cpu() - engine0)
    elif charged0 is not None:
        time.sleep(0.05)  # the last sessions' teardown, charged as it runs
        return Measured(seconds, decisions, starts, per_case,
                        (account().usage() - charged0) / n_cases)
    return Measured(seconds, decisions, starts, per_case,
                 (_self_cpu() - cpu0 + sum(sandbox_cpu)) / n_cases)


def median_run(ms: list[Measured]) -> Measured:
    """The run with the median wall time (one machine's noise moves single runs by ~10%)."""
    return sorted(ms, key=lambda m: m.seconds)[len(ms) // 2]


def _ms(xs: list[float], q: float) -> float:
    return sorted(xs)[int(q * (len(xs) - 1))] * 1e3


def report(name: str, m: Measured, n_cases: int) -> float:
    """One row per path; returns its cases/s."""
    rate = n_cases / m.seconds
    print(f"{name:<30}{rate:>10.1f}{m.cpu_per_case * 1e3:>12.2f}{_ms(m.starts, 0.5):>11.1f}"
          f"{_ms(m.per_case, 0.5):>13.2f}{_ms(m.per_case, 0.95):>8.2f}")
    return rate


def workspace(tasks: list[tuple[str, dict]]) -> tuple[Path, Path, dict[str, Path]]:
    """A temp dir with the bench verifier (``verifier/main.py``) and one public dir per task."""
    work = Path(tempfile.mkdtemp(prefix="mb-bench-"))
    vdir = work / "verifier"
    vdir.mkdir()
    (vdir / "main.py").write_text(textwrap.dedent(VERIFIER))
    publics = {}
    for tid, task in tasks:
        publics[tid] = work / "public" / tid
        publics[tid].mkdir(parents=True)
        (publics[tid] / "task.json").write_text(json.dumps(task))
    return work, vdir, publics


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", type=Path, default=Path("outputs/suites/bfcl"))
    ap.add_argument("--tasks", type=int, default=40)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--backend", default="bwrap")
    ap.add_argument("--repeat", type=int, default=5,
                    help="runs of each path; the rows show each path's median run")
    ap.add_argument("--before", metavar="REV",
                    help="also run the bwrap worker.py of this git revision, side by side")
    ap.add_argument("--shell-cgroups", action="store_true",
                    help="also run bwrap sessions that join a fresh pids cgroup through a shell, "
                         "as before the leased spawners (session_cgroups.py), side by side")
    args = ap.parse_args()

    source, tasks, cases = load(args.suite, args.tasks)
    n_cases = sum(len(cases[t]) for t, _ in tasks)
    work, vdir, publics = workspace(tasks)
    (work / "floor.py").write_text(FLOOR)

    box = make_sandbox(args.backend, recipe=image_recipe())
    spec = SandboxSpec(limits=Limits(wall_seconds=10, memory_mb=512))
    load_before = os.getloadavg()[0]
    runs: dict[str, list[Measured]] = {"sandboxed": [], "floor": []}
    beside = make_sandbox("bwrap") if box.name == "docker" else None  # docker vs bwrap, one run
    if beside is not None:
        runs["bwrap"] = []
    before = worker_at(args.before, work) if args.before else None
    if before is not None and box.name != "bwrap":
        ap.error("--before compares bwrap workers: use it with --backend bwrap")
    if before is not None:
        runs["before"] = []
    shell = make_sandbox("bwrap") if args.shell_cgroups else None
    if shell is not None:
        shell.cgroups._spawners = False  # measurement only: the way cgroup v2 hosts take
        runs["shell"] = []
    for _ in range(max(1, args.repeat)):  # alternated, so drifting load hits both paths alike
        runs["sandboxed"].append(measure(lambda t: box.session(vdir, publics[t], spec), tasks,
                                         cases, args.parallel, docker=box.name == "docker"))
        if beside is not None:
            runs["bwrap"].append(measure(lambda t: beside.session(vdir, publics[t], spec),
                                         tasks, cases, args.parallel))
        if before is not None:
            with bound_worker(before):
                runs["before"].append(measure(lambda t: box.session(vdir, publics[t], spec),
                                              tasks, cases, args.parallel))
        if shell is not None:
            runs["shell"].append(measure(lambda t: shell.session(vdir, publics[t], spec),
                                         tasks, cases, args.parallel))
        runs["floor"].append(measure(
            lambda t: floor_session(vdir, publics[t], spec, work / "floor.py"), tasks, cases,
            args.parallel))
    sandboxed, floor = (median_run(runs[k]) for k in ("sandboxed", "floor"))
    inproc_s, inproc = in_process(vdir, tasks, cases)

    print(f"source: {source}; {len(tasks)} tasks, {n_cases} cases; backend {box.name}; "
          f"{args.parallel} parallel sessions; load average at start {load_before:.1f} on "
          f"{os.cpu_count()} cores; CPU from "
          + ("the engine's growth (docker)" if box.name == "docker" else
             "a cpuacct cgroup of the bench's own" if account().file is not None else
             "/proc's tick sums (no cpuacct cgroup could be made: they miss about half)"))
    print(f"{'path':<30}{'cases/s':>10}{'CPU ms/case':>12}{'start ms':>11}{'case ms p50':>13}"
          f"{'p95':>8}")
    sb_rate = report(f"sandboxed ({box.name} worker)", sandboxed, n_cases)
    fl_rate = report("bare-fork floor (same bwrap)", floor, n_cases)
    ip_rate = n_cases / inproc_s
    if beside is not None:
        bw_rate = report("sandboxed (bwrap worker)", median_run(runs["bwrap"]), n_cases)
        print(f"docker / bwrap: {bw_rate / sb_rate:.2f}x the wall time per case (target <= 1.5x); "
              "docker's CPU column counts the engine (dockerd, containerd, shims) and the kept "
              "containers too")
    if before is not None:
        old = median_run(runs["before"])
        bf_rate = report(f"sandboxed (worker {args.before})"[:29], old, n_cases)
        print(f"this worker / {args.before}: {sb_rate / bf_rate:.2f}x in cases/s, "
              f"{sandboxed.cpu_per_case / old.cpu_per_case:.2f}x in CPU per case; "
              f"sandboxed / floor rate: {sb_rate / fl_rate:.0%} now, {bf_rate / fl_rate:.0%} "
              f"at {args.before}")
    if shell is not None:
        sh = median_run(runs["shell"])
        sh_rate = report("sandboxed (shell cgroups)", sh, n_cases)
        print(f"leased spawners / shell-joined cgroups: {sb_rate / sh_rate:.2f}x in cases/s, "
              f"{sandboxed.cpu_per_case / sh.cpu_per_case:.2f}x in CPU per case; "
              f"sandboxed / floor rate: {sb_rate / fl_rate:.0%} now, {sh_rate / fl_rate:.0%} "
              "with shell-joined cgroups")
    print(f"{'in-process (no isolation)':<30}{ip_rate:>10.1f}")
    for k, ms in runs.items():
        rates = sorted(n_cases / m.seconds for m in ms)
        print(f"{k} cases/s over {len(ms)} runs: min {rates[0]:.1f}, median "
              f"{rates[len(rates) // 2]:.1f}, max {rates[-1]:.1f}")
    print(f"floor / sandboxed: {fl_rate / sb_rate:.2f}x in cases/s, "
          f"{sandboxed.cpu_per_case / floor.cpu_per_case:.2f}x in CPU per case; "
          f"CPU-bound rate on {os.cpu_count()} free cores: sandboxed "
          f"{(os.cpu_count() or 1) / sandboxed.cpu_per_case:.0f}/s, floor "
          f"{(os.cpu_count() or 1) / floor.cpu_per_case:.0f}/s")
    agree = sum(a == b == c for a, b, c in zip(sandboxed.decisions, floor.decisions, inproc))
    print(f"decisions agree (sandboxed, floor, in-process) on {agree}/{n_cases}; "
          f"target >= 400 cases/s sandboxed: {'met' if sb_rate >= 400 else 'NOT met'}")
    if agree != n_cases:
        sys.exit(1)


if __name__ == "__main__":
    main()
