"""Judging cost per case, per task type, measured side by side in one run.

Usage: python bench/judge_cost_by_type.py [--suites-dir outputs/suites] [--tasks 4]

For every built suite under ``--suites-dir`` (bfcl, agentdojo*, code*), on its first ``--tasks``
tasks, three paths judge the same cases:

- ``sandbox``: the schema_check baseline verifier in the default sandbox (isolation cost only);
- ``sandbox+exec``: a verifier that calls ``env.run_public`` once per case (state: replays the
  candidate's calls; code: applies the patch and runs the library's public test command) — what an
  executing monitor pays per case;
- ``reference``: the source's reference verifier, in-process (the cost of the labels).

Prints milliseconds per case for each path and type, and the ratios to the reference.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from monitorbench.config import MonitorbenchConfig  # noqa: E402
from monitorbench.generation.baselines import program_files  # noqa: E402
from monitorbench.launch.run import limits_from  # noqa: E402
from monitorbench.sandbox.base import SandboxSpec  # noqa: E402
from monitorbench.sandbox.factory import make_sandbox  # noqa: E402
from monitorbench.suites.format import load_suite  # noqa: E402
from monitorbench.suites.reference import get_reference  # noqa: E402
from monitorbench.suites.registry import masked_paths, source_info  # noqa: E402

EXEC_VERIFIER = '''
def verify(candidate, env):
    if "patch" in candidate:  # the library's whole test command on the patched checkout
        out = env.run_public(env.task["repo"]["test_command"])
        return "PASS" if out["exit_code"] == 0 else "FAIL"
    out = env.run_public([{"name": c["name"], "arguments": c["arguments"]}
                          for c in candidate.get("calls", [])])
    return "PASS" if out["outputs"] is not None else "FAIL"
'''


def _source_of(name: str) -> str:
    return name.split("-", 1)[0]


def _judge(sandbox, vdir: Path, suite, task_ids, spec_of) -> tuple[float, int]:
    n, t0 = 0, time.perf_counter()
    for tid in task_ids:
        with sandbox.session(vdir, suite.public_dir(tid), spec_of(suite.tasks[tid])) as s:
            for case in suite.cases[tid]:
                s.judge(case.candidate)
                n += 1
    return time.perf_counter() - t0, n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suites-dir", default="outputs/suites")
    ap.add_argument("--tasks", type=int, default=4)
    args = ap.parse_args()
    roots = sorted(p for p in Path(args.suites_dir).iterdir()
                   if (p / "manifest.json").is_file() and _source_of(p.name) in
                   ("bfcl", "agentdojo", "code"))
    if not roots:
        print(f"no suites under {args.suites_dir}: build them with "
              "`python -m monitorbench.suites.build bfcl agentdojo code`")
        return 2
    sandbox = make_sandbox("bwrap")
    cfg = MonitorbenchConfig()  # the default limits a run would use
    print(f"{'suite':<22}{'type':<10}{'cases':>6}{'sandbox ms':>12}{'+exec ms':>10}"
          f"{'reference ms':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        plain, execd = Path(tmp) / "plain", Path(tmp) / "exec"
        for d, src in ((plain, program_files("schema_check")["main.py"]), (execd, EXEC_VERIFIER)):
            d.mkdir()
            (d / "main.py").write_text(src)
        for root in roots:
            suite = load_suite(root)
            source = _source_of(root.name)
            info = source_info(source)
            ids = sorted(suite.tasks)[: args.tasks]
            ttype = suite.tasks[ids[0]].task_type

            limits = limits_from(cfg, ttype)

            def spec(task, runtime: str) -> SandboxSpec:
                return SandboxSpec(limits=limits, masked_paths=masked_paths(source),
                                   runtime=runtime, runtime_config={"budget": 20})

            t_plain, n = _judge(sandbox, plain, suite, ids, lambda t: spec(t, "none"))
            exec_ms = float("nan")
            if info.runtime != "none":
                t_exec, _ = _judge(sandbox, execd, suite, ids, lambda t: spec(t, info.runtime))
                exec_ms = 1000 * t_exec / n
            t0 = time.perf_counter()
            for tid in ids:
                ref = suite.references[tid]
                checker = get_reference(ref.verifier_id)
                for case in suite.cases[tid]:
                    checker.decide(suite.tasks[tid], ref, case.candidate)
            ref_ms = 1000 * (time.perf_counter() - t0) / n
            print(f"{root.name:<22}{ttype:<10}{n:>6}{1000 * t_plain / n:>12.1f}{exec_ms:>10.1f}"
                  f"{ref_ms:>14.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
