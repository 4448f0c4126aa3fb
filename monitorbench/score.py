"""``python -m monitorbench.score VERIFIER_DIR --task TASK_ID``: score one verifier from the shell.

Runs the verifier in the sandbox on every hidden case of the task and prints, per case, group,
category, label and outcome (with the U reason), then the task's TPR and TNR. ``--json`` prints
one JSON object per case instead. The labels are printed only here, on the framework side,
after the verifier has decided.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

from monitorbench.config import AccessConfig, AccessMode, SandboxConfig
from monitorbench.errors import InputError, MonitorbenchError
from monitorbench.sandbox.base import Limits, SandboxSpec
from monitorbench.suites.access import split_consistent, view_for
from monitorbench.suites.registry import ensure_suite, masked_paths, source_info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("verifier_dir", type=Path)
    ap.add_argument("--task", required=True, help="task id, e.g. bfcl.simple_python_12")
    ap.add_argument("--suite", default=None, help="suite name (default: the task id's prefix)")
    ap.add_argument("--suites-dir", default=os.environ.get(
        "MONITORBENCH_SUITES", str(Path(os.environ.get("MONITORBENCH_OUTPUTS", "outputs"))
                                   / "suites")))
    ap.add_argument("--access", default=None,
                    help="access mode for this task type (default: the paper's default)")
    ap.add_argument("--backend", default="bwrap", help="sandbox backend: bwrap|unshare|docker")
    ap.add_argument("--wall-seconds", type=float, default=None,
                    help="per-case wall clock (default: 10 s; 300 s for code tasks)")
    ap.add_argument("--json", action="store_true", help="one JSON object per case")
    args = ap.parse_args(argv)
    try:
        return _score(args)
    except MonitorbenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def _score(args: argparse.Namespace) -> int:
    from monitorbench.sandbox.factory import make_sandbox

    if not (args.verifier_dir / "main.py").is_file():
        raise InputError(args.verifier_dir / "main.py", None, "verifier has no main.py",
                         "a verifier is a directory whose main.py defines verify(candidate, env)")
    suite_name = args.suite or args.task.split(".", 1)[0]
    suite = ensure_suite(Path(args.suites_dir), suite_name)
    if args.task not in suite.tasks:
        near = [t for t in suite.tasks if args.task.split(".")[-1] in t][:5]
        raise InputError(suite.root / "manifest.json", "tasks", f"no task {args.task!r}",
                         f"use a task id from the suite, e.g. {near or list(suite.tasks)[:3]}")
    task = suite.tasks[args.task]
    access = AccessConfig()
    if args.access:
        try:
            setattr(access, task.task_type, AccessMode(args.access))
        except ValueError:
            raise InputError(None, "--access", f"unknown access mode {args.access!r}",
                             f"use one of {', '.join(m.value for m in AccessMode)}") from None
    view = view_for(access, task.task_type)
    cases, hidden = split_consistent(suite.cases[task.task_id], view)
    base = SandboxConfig().code_limits if task.task_type == "code" else SandboxConfig().limits
    limits = Limits(**{**asdict(base), **({"wall_seconds": args.wall_seconds}
                                          if args.wall_seconds is not None else {})})
    spec = SandboxSpec(limits=limits,
                       masked_paths=masked_paths(suite_name) + (str(Path(args.suites_dir)
                                                                    .resolve()),),
                       runtime=source_info(suite_name).runtime if view.executes else "none",
                       runtime_config={"budget": access.judge_budget})
    sandbox = make_sandbox(args.backend)
    acc = {"pos": 0, "tp": 0, "neg": 0, "tn": 0}
    with sandbox.session(args.verifier_dir.resolve(), suite.public_dir(task.task_id),
                         spec) as session:
        for case in cases:
            v = session.judge(view.project(case.candidate))
            pos = case.label == "PASS"
            acc["pos" if pos else "neg"] += 1
            acc["tp"] += int(pos and v.outcome == "P")
            acc["tn"] += int(not pos and v.outcome == "F")
            row = {"case_id": case.case_id, "group": case.group, "category": case.category,
                   "label": case.label, "outcome": v.outcome, "reason": v.reason,
                   "detail": v.detail[:200], "seconds": round(v.seconds, 4)}
            if args.json:
                print(json.dumps(row))
            else:
                why = f"  ({v.reason}: {v.detail[:80]})" if v.outcome == "U" else ""
                print(f"{case.case_id:<36} {case.group:<15} {case.category:<22} "
                      f"{case.label:<5} {v.outcome}{why}")
    tpr = 100.0 * acc["tp"] / acc["pos"]
    tnr = 100.0 * acc["tn"] / acc["neg"]
    summary = {"task_id": task.task_id, "tpr": round(tpr, 2), "tnr": round(tnr, 2),
               "ba_norm": round(tpr + tnr - 100, 2), "positives": acc["pos"],
               "negatives": acc["neg"], "indistinguishable_under_access": len(hidden)}
    if args.json:
        print(json.dumps({"summary": summary}))
    else:
        print(f"\n{task.task_id}: TPR {tpr:.1f}  TNR {tnr:.1f}  BA_norm {tpr + tnr - 100:.1f}  "
              f"({acc['pos']} positive, {acc['neg']} negative cases"
              + (f"; {len(hidden)} indistinguishable under this access, not scored)"
                 if hidden else ")"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
