"""Cases per second through the bwrap sandbox, beside the same verifier called in-process.

Usage: python bench/judge_throughput.py [--suite outputs/suites/bfcl] [--tasks 40]
                                        [--parallel 2] [--backend bwrap]

One sandbox session per task (one bwrap start), one fork per case, ``--parallel`` sessions at a
time, as the judging loop runs them. The verifier is a realistic tool-call checker (function names,
required and unknown arguments, simple types against ``env.task["tools"]``). Tasks and cases come
from the BFCL suite when one is built at ``--suite``; otherwise synthetic ones are generated and the
output says so. Prints the bwrap start cost and the per-case cost separately, then the
throughput of both paths and their ratio, all from this one run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from monitorbench.errors import InputError  # noqa: E402
from monitorbench.sandbox.base import Limits, SandboxSpec  # noqa: E402
from monitorbench.sandbox.factory import make_sandbox  # noqa: E402

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


def _tree_cpu(pid: int) -> float:
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", type=Path, default=Path("outputs/suites/bfcl"))
    ap.add_argument("--tasks", type=int, default=40)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--backend", default="bwrap")
    args = ap.parse_args()

    source, tasks, cases = load(args.suite, args.tasks)
    n_cases = sum(len(cases[t]) for t, _ in tasks)
    work = Path(tempfile.mkdtemp(prefix="mb-bench-"))
    vdir = work / "verifier"
    vdir.mkdir()
    (vdir / "main.py").write_text(textwrap.dedent(VERIFIER))
    publics = {}
    for tid, task in tasks:
        publics[tid] = work / "public" / tid
        publics[tid].mkdir(parents=True)
        (publics[tid] / "task.json").write_text(json.dumps(task))

    box = make_sandbox(args.backend)
    spec = SandboxSpec(limits=Limits(wall_seconds=10, memory_mb=512))
    starts: list[float] = []
    per_case: list[float] = []
    sandbox_cpu: list[float] = []

    def run_task(item: tuple[str, dict]) -> list[str | None]:
        tid, _ = item
        with box.session(vdir, publics[tid], spec) as s:
            starts.extend(s.start_seconds)
            out = []
            for c in cases[tid]:
                t0 = time.perf_counter()
                out.append(s.judge(c).decision)
                per_case.append(time.perf_counter() - t0)
            if s.proc is not None:
                sandbox_cpu.append(_tree_cpu(s.proc.pid))
            return out

    load_before = os.getloadavg()[0]
    cpu0 = _self_cpu()
    t0 = time.perf_counter()
    with ThreadPoolExecutor(args.parallel) as pool:
        sandboxed = [d for ds in pool.map(run_task, tasks) for d in ds]
    sandbox_s = time.perf_counter() - t0
    cpu_per_case = (_self_cpu() - cpu0 + sum(sandbox_cpu)) / n_cases
    inproc_s, inproc = in_process(vdir, tasks, cases)

    agree = sum(a == b for a, b in zip(sandboxed, inproc))
    print(f"source: {source}; {len(tasks)} tasks, {n_cases} cases; backend {box.name}; "
          f"{args.parallel} parallel sessions")
    print(f"sandbox start (one per task): median {statistics.median(starts) * 1e3:.1f} ms, "
          f"max {max(starts) * 1e3:.1f} ms")
    print(f"per-case round trip (fork + verify + clean-up): median "
          f"{statistics.median(per_case) * 1e3:.2f} ms, p95 "
          f"{sorted(per_case)[int(0.95 * len(per_case))] * 1e3:.2f} ms")
    sb_rate, ip_rate = n_cases / sandbox_s, n_cases / inproc_s
    print(f"{'path':<28}{'cases/s':>12}")
    print(f"{'sandboxed (' + box.name + ')':<28}{sb_rate:>12.1f}")
    print(f"{'in-process (no isolation)':<28}{ip_rate:>12.1f}")
    cores = os.cpu_count() or 1
    print(f"CPU per sandboxed case (framework + bwrap + worker + children, start included): "
          f"{cpu_per_case * 1e3:.2f} ms -> {cores / cpu_per_case:.0f} cases/s if all {cores} "
          f"cores were free (load average at start: {load_before:.1f})")
    print(f"ratio in-process / sandboxed: {ip_rate / sb_rate:.0f}x; decisions agree on "
          f"{agree}/{n_cases}; target >= 150 cases/s: {'met' if sb_rate >= 150 else 'NOT met'}")
    if agree != n_cases:
        sys.exit(1)


if __name__ == "__main__":
    main()
