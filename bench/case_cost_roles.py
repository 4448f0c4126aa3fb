"""Where the sandboxed path's CPU goes, by process and kernel path, beside the bare-fork floor's.

Usage: python bench/case_cost_roles.py [--suite outputs/suites/bfcl] [--tasks 20] [--repeat 3]

judge_throughput.py prints CPU per case from /proc's per-process times, which the kernel keeps in
clock ticks (10 ms) and which miss what a session's teardown and the kernel's own threads spend;
case_cost_profile.py times the worker's Python steps from inside. Neither says what the kernel
does for a case. This script samples every CPU with ``perf record -a`` (cpu-clock, 4 kHz, call
graphs) while the sandboxed path, then the floor, judge the same tasks (as judge_throughput runs
them), and charges each sample to:

* a role: the framework (this process and the sandbox launch before bwrap's exec), bwrap, the
  worker (its Python start included), the cases' init (the worker's first child), the case
  children (the worker's other children), kernel threads, idle;
* within the role, the first kernel path found on its call stack: page faults (copy-on-write
  after a fork among them), fork (copy_process), exit, seccomp, the namespace and mount calls,
  poll and pipes, exec; or user code.

Each cell is milliseconds of one CPU per case, so the columns add up to what the path costs in
all (idle included: the CPU time neither path could use at ``--parallel`` sessions). Needs
``perf`` and the right to sample the whole machine (root, or perf_event_paranoid <= 0); the
measurement's own overhead (~3 %) falls on both paths alike. Run it on an idle machine: every
process on it is sampled, and what is not the bench lands in "other".
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled
sys.path.insert(0, str(Path(__file__).resolve().parent))

RATE = 4000  # samples per second per CPU
# (category, what marks it on a sample's call stack), first match from the innermost frame out
PATHS = (("page faults", ("exc_page_fault",)), ("exec", ("execve",)),
         ("exit", ("do_exit",)), ("fork", ("copy_process",)), ("seccomp", ("do_seccomp",)),
         ("namespaces, mounts", ("ksys_unshare", "__x64_sys_mount", "path_umount",
                                 "__x64_sys_umount")),
         ("poll, pipes", ("do_sys_poll", "pipe_write", "pipe_read", "anon_pipe_write")),
         ("/proc listing", ("getdents",)))
ROLES = ("framework", "bwrap", "worker", "cases' init", "case children", "kernel threads",
         "other", "idle")
_FORK = re.compile(r"\s*\S+\s+\d+/\d+\s+PERF_RECORD_FORK\((\d+):(\d+)\):\((\d+):\d+\)")
_COMM = re.compile(r"\s*\S+\s+\d+/\d+\s+PERF_RECORD_COMM exec: (.+):(\d+)/\d+")
_SAMPLE = re.compile(r"\s*(.+?)\s+(\d+)/\d+\s+cpu-clock:")


def run(path: str, suite: Path, n_tasks: int, repeat: int) -> None:
    """The sampled part: judge every task ``repeat`` times on one path, as judge_throughput."""
    from judge_throughput import FLOOR, floor_session, load, measure, workspace
    from monitorbench.sandbox.base import Limits, SandboxSpec
    from monitorbench.sandbox.factory import make_sandbox
    from monitorbench.suites.sandbox_image import image_recipe

    _, tasks, cases = load(suite, n_tasks)
    work, vdir, publics = workspace(tasks)
    (work / "floor.py").write_text(FLOOR)
    box = make_sandbox("bwrap", recipe=image_recipe())
    spec = SandboxSpec(limits=Limits(wall_seconds=10, memory_mb=512))
    for _ in range(repeat):
        if path == "sandboxed":
            measure(lambda t: box.session(vdir, publics[t], spec), tasks, cases, 2)
        else:
            measure(lambda t: floor_session(vdir, publics[t], spec, work / "floor.py"),
                    tasks, cases, 2)


class Tree:
    """Processes seen in a ``perf script --show-task-events`` dump: parents and exec'd names."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}
        self.children: dict[int, list[int]] = collections.defaultdict(list)
        self.execed: dict[int, str] = {}

    def role(self, pid: int, comm: str, bench: int) -> str:
        if pid == 0:
            return "idle"
        if pid != bench and self.execed.get(pid, "").startswith("python3") \
                and self._under(pid, bench):
            return "worker"
        up = self.parent.get(pid)
        if up is not None and up != bench and self.execed.get(up, "").startswith("python3") \
                and self._under(up, bench):
            return "cases' init" if self.children[up][0] == pid else "case children"
        if self._under(pid, bench):
            return "bwrap" if comm == "bwrap" else "framework"
        if pid not in self.parent or self.parent[pid] == 2:
            return "kernel threads"
        return "other"

    def _under(self, pid: int, root: int) -> bool:
        seen = set()
        while pid != root:
            if pid in seen or pid not in self.parent:
                return False
            seen.add(pid)
            pid = self.parent[pid]
        return True


def charge(dump: Path) -> collections.Counter:
    """Samples per (role, path) from a perf script dump (bench: the sampled command's pid)."""
    tree, samples, bench = Tree(), [], None
    current: list[str] | None = None
    for line in dump.open(encoding="utf-8", errors="replace"):
        if line.startswith("\t"):
            if current is not None:
                current.append(line.strip())
            continue
        current = None
        if m := _FORK.match(line):
            child, tid, parent = int(m[1]), int(m[2]), int(m[3])
            if child == tid and child not in tree.parent:
                tree.parent[child] = parent
                tree.children[parent].append(child)
        elif m := _COMM.match(line):
            tree.execed[int(m[2])] = m[1]
            if bench is None:  # perf's own child, the sampled command: the first exec
                bench = int(m[2])
        elif m := _SAMPLE.match(line):
            current = []
            samples.append((int(m[2]), m[1], current))
    counts: collections.Counter = collections.Counter()
    for pid, comm, frames in samples:
        role = tree.role(pid, comm, bench if bench is not None else -1)
        path = next((name for frame in frames for name, marks in PATHS
                     if any(k in frame for k in marks)), "user code, other kernel")
        counts[role, path] += 1
    return counts


def sample(path: str, args: argparse.Namespace, work: Path) -> collections.Counter:
    """perf record the whole machine while this script's ``--run`` judges on ``path``."""
    data, dump = work / f"{path}.data", work / f"{path}.txt"
    cmd = ["perf", "record", "-a", "-g", "-F", str(RATE), "-e", "cpu-clock", "-o", str(data),
           "--", sys.executable, __file__,
           "--run", path, "--suite", str(args.suite), "--tasks", str(args.tasks),
           "--repeat", str(args.repeat)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with dump.open("w") as out:
        subprocess.run(["perf", "script", "-i", str(data), "--show-task-events",
                        "-F", "comm,pid,tid,event,ip,sym"], check=True, stdout=out,
                       stderr=subprocess.DEVNULL)
    return charge(dump)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", type=Path, default=Path("outputs/suites/bfcl"))
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--run", choices=("sandboxed", "floor"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        return run(args.run, args.suite, args.tasks, args.repeat)
    if shutil.which("perf") is None:
        sys.exit("case_cost_roles: needs perf (Debian: linux-perf)")
    from judge_throughput import load

    source, tasks, cases = load(args.suite, args.tasks)
    n = sum(len(cases[t]) for t, _ in tasks) * args.repeat
    work = Path(tempfile.mkdtemp(prefix="mb-roles-"))
    got = {p: sample(p, args, work) for p in ("sandboxed", "floor")}
    paths = [name for name, _ in PATHS] + ["user code, other kernel"]
    ms = {p: {k: v / RATE / n * 1e3 for k, v in c.items()} for p, c in got.items()}
    print(f"source: {source}; {n // args.repeat} cases x {args.repeat} runs per path; ms of one "
          f"CPU per case (perf, cpu-clock {RATE} Hz, all CPUs)")
    print(f"{'role':<16}{'path':<26}{'sandboxed':>10}{'floor':>8}{'diff':>8}")
    for role in ROLES:
        rows = [(p, ms['sandboxed'].get((role, p), 0.0), ms['floor'].get((role, p), 0.0))
                for p in paths]
        s, f = sum(r[1] for r in rows), sum(r[2] for r in rows)
        print(f"{role:<16}{'(all)':<26}{s:>10.3f}{f:>8.3f}{s - f:>+8.3f}")
        for p, a, b in rows:
            if max(a, b) >= 0.02:
                print(f"{'':<16}{p:<26}{a:>10.3f}{b:>8.3f}{a - b:>+8.3f}")
    total = {p: sum(v for (r, _), v in ms[p].items() if r not in ("other",)) for p in ms}
    print(f"{'total (no other)':<42}{total['sandboxed']:>10.3f}{total['floor']:>8.3f}"
          f"{total['sandboxed'] - total['floor']:>+8.3f}")
    print(f"floor / sandboxed in CPU and idle per case: {total['floor'] / total['sandboxed']:.0%}")


if __name__ == "__main__":
    main()
