"""Where a code task's ``env.run_public`` spends its time, measured inside the real sandbox.

    python bench/run_public_cost.py [--suite outputs/suites/code-7b9291a6a0] [--calls 5]

A verifier in the bwrap sandbox, on each built code task of ``--suite``, times the three parts of
one ``run_public`` call separately with the runtime's own functions: copying the checkout
(``copy_checkout``, what a copy-on-write or hard-linked tree would replace), applying the gold
patch (``git apply``), a whole ``run_public`` of the public test command with an empty patch
(``unpatched``, ms) and a whole call with the gold patch (``whole ms``). It also
tries ``os.link`` from the read-only checkout into the scratch /tmp, which is what ``cp -al``
needs: the two are different mounts inside the sandbox, so a hard-linked checkout is only possible
if the pristine tree is first copied into /tmp (one full copy per case, as now).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from monitorbench.sandbox.base import Limits, SandboxSpec  # noqa: E402
from monitorbench.sandbox.bwrap import BwrapSandbox  # noqa: E402
from monitorbench.suites.format import load_suite  # noqa: E402

PROBE = '''
import json, os, shutil, time
from runtimes import code

def verify(candidate, env):
    calls, out = int(candidate["calls"]), {"copy": [], "apply": [], "run": [], "whole": []}
    for _ in range(calls):
        t0 = time.perf_counter()
        work = code.copy_checkout(env.repo_dir)
        t1 = time.perf_counter()
        ok, _ = code.apply_patch(work, candidate["patch"])
        t2 = time.perf_counter()
        env.executions -= 1  # the probe's own run_public below is the one that counts
        shutil.rmtree(os.path.dirname(work))
        t3 = time.perf_counter()
        r = env.run_public(env.task["repo"]["test_command"], patch="")
        t4 = time.perf_counter()
        env.run_public(env.task["repo"]["test_command"])
        t5 = time.perf_counter()
        out["copy"].append(t1 - t0)
        out["apply"].append(t2 - t1)
        out["run"].append(t4 - t3)
        out["whole"].append(t5 - t4)
        env.executions = 0
    src = next(os.path.join(env.repo_dir, f) for f in os.listdir(env.repo_dir)
               if os.path.isfile(os.path.join(env.repo_dir, f)))
    try:
        os.link(src, "/tmp/linked")
        out["link"] = "ok"
    except OSError as e:
        out["link"] = f"{type(e).__name__}: {e.strerror}"
    print(json.dumps(out))
    return "PASS"
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", type=Path, default=Path("outputs/suites/code-7b9291a6a0"))
    ap.add_argument("--calls", type=int, default=5)
    args = ap.parse_args()
    suite = load_suite(args.suite)
    spec = SandboxSpec(limits=Limits(wall_seconds=600, cpu_seconds=600, processes=64),
                       runtime="monitorbench.sources.code.runtime",
                       runtime_config={"budget": 10 ** 6})
    print(f"{'task':<26}{'copy ms':>9}{'apply ms':>10}{'unpatched':>11}{'whole ms':>10}  link")
    with tempfile.TemporaryDirectory() as tmp:
        vdir = Path(tmp)
        (vdir / "main.py").write_text(PROBE.replace(  # the runtime module the worker loaded
            "from runtimes import code", "import mb_runtime as code"))
        for tid in sorted(suite.tasks):
            gold = next(c for c in suite.cases[tid] if c.group == "gold")
            with BwrapSandbox().session(vdir, suite.public_dir(tid), spec) as s:
                v = s.judge({"patch": gold.candidate["patch"], "calls": args.calls})
            if v.decision != "PASS":
                sys.exit(f"{tid}: probe failed: {v.reason} {v.detail}")
            t = json.loads(v.stdout) if v.stdout.strip() else None
            print(f"{tid:<26}{_med(t, 'copy'):>9.1f}{_med(t, 'apply'):>10.1f}"
                  f"{_med(t, 'run'):>11.1f}{_med(t, 'whole'):>10.1f}  {t['link']}")


def _med(t: dict, key: str) -> float:
    return 1000 * statistics.median(t[key])


if __name__ == "__main__":
    main()
