"""``monitorbench score VERIFIER_DIR --task TASK_ID``: score one verifier from the shell.

Before any case runs, the verifier is checked once: ``main.py`` is compiled in a separate Python
process (compiling executes nothing), then its module-level code (its imports) runs once in the
sandbox; a failure is reported there, once, instead of as the same U reason on every case. Then
the verifier runs in the sandbox on every hidden case of the task, and a table shows per case the
group, construction category, label, outcome, whether they agree (✓/✗) and the full U reason;
the summary gives TPR, TNR, BA_norm and FPR_h (computed by :func:`monitorbench.metrics.summarize`,
the run's own definitions) and the counts per category. ``--show-failures`` prints the candidates
the verifier got wrong, as the verifier saw them; ``--json`` prints one JSON object per case. The
labels are printed only here, on the framework side, after the verifier has decided.

Exit status: 0 scored; 1 scored, but the verifier does not load (every case is U); 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any


from monitorbench.audit.prepare import load_built
from monitorbench.cli_info import plain
from monitorbench.compose import CONF, compose_config, group_options
from monitorbench.config import MonitorbenchConfig, MonitorKind, PathsConfig
from monitorbench.errors import InputError, MonitorbenchError
from monitorbench.generation.base import verifier_hash
from monitorbench.judging.judge import TaskJob, judgment
from monitorbench.judging.records import Outcome
from monitorbench.pipeline.prepare import (hidden_roots, limits_for, sandbox_spec, typed_config,
                                           visible_cases)
from monitorbench.pipeline.score import score
from monitorbench.sandbox.base import SandboxSpec, Verdict
from monitorbench.suites.access import AccessView
from monitorbench.suites.format import Case, Suite, Task
from monitorbench.suites.locate import dir_holding, split_dir_name

EXAMPLES = """examples:
  monitorbench score my_verifier --task bfcl.simple_python_12
  monitorbench score my_verifier --task bfcl.simple_python_12 --access parsed --show-failures
  monitorbench score my_verifier --task bfcl.simple_python_12 --json
(list task ids with `monitorbench list tasks --suite bfcl`)"""
# Compiles main.py in a separate interpreter: a syntax error is found without running anything.
_COMPILE = ("import sys\np = sys.argv[1]\ntry:\n    compile(open(p, 'rb').read(), p, 'exec', "
            "dont_inherit=True)\nexcept (SyntaxError, ValueError) as e:\n"
            "    print(f'{type(e).__name__}: {e}')\n    sys.exit(1)\n")
_PROBE_TARGET = "_monitorbench_probe_target"
# Stands in for main.py in a copy of the verifier: importing the real main.py runs its
# module-level code (imports included) once, inside the sandbox like every case.
_PROBE = f'''import {_PROBE_TARGET} as _v


def verify(candidate, env):
    return "PASS" if callable(getattr(_v, "verify", None)) else "FAIL"
'''


def default_outputs_dir() -> str:
    """``$MONITORBENCH_OUTPUTS``, else ``outputs`` (where a run keeps its judgments)."""
    return os.environ.get("MONITORBENCH_OUTPUTS", "outputs")


def default_suites_dir() -> str:
    """``$MONITORBENCH_SUITES``, else ``$MONITORBENCH_OUTPUTS/suites`` (``outputs/suites``)."""
    return os.environ.get("MONITORBENCH_SUITES", str(Path(default_outputs_dir()) / "suites"))


def build_parser(prog: str = "monitorbench score") -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description=plain(__doc__.splitlines()[0]),
                                 epilog=EXAMPLES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("verifier_dir", type=Path, help="directory whose main.py defines verify")
    ap.add_argument("--task", required=True, help="task id, e.g. bfcl.simple_python_12")
    ap.add_argument("--suite", default=None, help="suite name (default: the task id's prefix)")
    ap.add_argument("--suites-dir", default=default_suites_dir())
    ap.add_argument("--outputs-dir", default=default_outputs_dir(),
                    help="outputs directory, hidden from the verifier as in a run "
                         "(default $MONITORBENCH_OUTPUTS or outputs)")
    ap.add_argument("--access", default="raw_parsed", choices=group_options("access"),
                    help="access setting, as the access= config group names it "
                         "(default raw_parsed, the paper's)")
    ap.add_argument("--backend", default="bwrap", help="sandbox backend: bwrap|unshare|docker")
    ap.add_argument("--wall-seconds", type=_positive_seconds, default=None,
                    help="per-case wall clock (default: 10 s; 300 s for code tasks)")
    ap.add_argument("--show-failures", action="store_true",
                    help="print each candidate the verifier got wrong, as it saw it")
    ap.add_argument("--json", action="store_true", help="one JSON object per case")
    return ap


def _positive_seconds(text: str) -> float:
    """``--wall-seconds``: the same rule as ``sandbox.limits.wall_seconds`` in a run."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds "
                                         "(e.g. --wall-seconds 10)")
    return value


def main(argv: list[str] | None = None, prog: str = "monitorbench score") -> int:
    args = build_parser(prog).parse_args(argv)
    try:
        return _score(args)
    except MonitorbenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `... | head`: the reader left; later writes go nowhere, quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def job_config(access: str) -> MonitorbenchConfig:
    """The typed config a run with ``access=<name>`` composes (the same checks and defaults: the
    access setting, the per-type limits); a model-judge access has no program to score."""
    if access not in group_options("access"):
        raise InputError(CONF / "access", "--access", f"no access setting {access!r}",
                         f"use one of {', '.join(group_options('access'))}")
    conf = typed_config(compose_config([f"access={access}"]))
    if conf.access.monitor != MonitorKind.code:
        raise InputError(CONF / "access" / f"{access}.yaml", "--access",
                         f"access={access} has a model read each case; there is no verifier "
                         "program to score", "use an access setting with a verifier program: "
                         + ", ".join(n for n in group_options("access") if n != access))
    return conf


@dataclass
class Scoring:
    """One task's cases under one access setting, and the sandbox that judges them."""

    suite: Suite
    task: Task
    view: AccessView
    cases: list[Case]
    hidden: list[Case]
    spec: SandboxSpec
    access: str

    def job(self, verifier_dir: Path) -> TaskJob:
        """The judging job of this task, as a run's judge stage would make it (one round)."""
        return TaskJob(self.task, self.cases, self.suite.public_dir(self.task.task_id),
                       verifier_dir, verifier_hash(verifier_dir), self.view,
                       self.suite.suite_hash, 1, self.access)


def _prepare(args: argparse.Namespace) -> Scoring:
    """The task's cases under the access setting and its sandbox spec, from the pipeline's
    prepare stage: the same masked paths, limits and projection a sweep job uses."""
    if not (args.verifier_dir / "main.py").is_file():
        raise InputError(args.verifier_dir / "main.py", None, "verifier has no main.py",
                         "a verifier is a directory whose main.py defines verify(candidate, env)")
    suite_name, suite = _suite_for(Path(args.suites_dir), args.suite, args.task)
    if args.task not in suite.tasks:
        near = [t for t in suite.tasks if args.task.split(".")[-1] in t][:5]
        raise InputError(suite.root / "manifest.json", "tasks", f"no task {args.task!r}",
                         f"use a task id from the suite, e.g. {near or list(suite.tasks)[:3]} "
                         f"(all: monitorbench list tasks --suite {suite_name})")
    task = suite.tasks[args.task]
    conf = job_config(args.access)
    access = conf.access
    view, cases, hidden = visible_cases(suite.cases[task.task_id], access, task.task_type)
    limits = limits_for(conf.sandbox, task.task_type)
    if args.wall_seconds is not None:
        limits = replace(limits, wall_seconds=args.wall_seconds)
    paths = PathsConfig(outputs=str(args.outputs_dir), suites=str(args.suites_dir))
    spec = sandbox_spec(suite_name, task.task_type, access, limits, hidden_roots(paths))
    return Scoring(suite, task, view, cases, hidden, spec, access.name)


def _suite_for(suites_dir: Path, suite_arg: str | None, task_id: str) -> tuple[str, Suite]:
    """The source name and the suite to score on: ``--suite`` may name a built slice
    (``agentdojo-<hash>``); otherwise the built suite or slice that holds the task. None holding
    it is an error naming the built suites and the build command: a typo in a task id must never
    start a build of a whole source (minutes for AgentDojo or code)."""
    name, slice_dir = split_dir_name(suite_arg or task_id.split(".", 1)[0])
    held = suites_dir / slice_dir if slice_dir else dir_holding(suites_dir, name, task_id)
    if held is None:
        raise not_built_error(suites_dir, name, task_id)
    if not (held / "manifest.json").is_file():
        raise InputError(held, "--suite", f"no built suite {held.name!r}",
                         f"list the built ones with `monitorbench list suites --suites-dir "
                         f"{suites_dir}`")
    return name, load_built(held, name)


def not_built_error(suites_dir: Path, name: str, task_id: str) -> InputError:
    """No built suite holds ``task_id``: which suites are built, and how to build ``name``'s."""
    from monitorbench.suites.locate import built_dirs
    from monitorbench.suites.source_registry import source_names

    built = [d.name for source in source_names() for d in built_dirs(suites_dir, source)]
    known = name in source_names()
    build = (f"`monitorbench build {name} --suites-dir {suites_dir}`" if known else
             f"a task id starts with its source: {', '.join(source_names())}")
    return InputError(suites_dir, "--task",
                      f"no built suite holds task {task_id!r} (built: "
                      f"{', '.join(built) or 'none'})",
                      f"pick an id from `monitorbench list tasks --suite "
                      f"{name if known else 'NAME'}`; to build the suite: {build}")


def compile_error(main_py: Path) -> str | None:
    """Why ``main.py`` does not compile, or None; compiled in a separate interpreter."""
    r = subprocess.run([sys.executable, "-I", "-S", "-B", "-c", _COMPILE, str(main_py)],
                       capture_output=True, text=True, timeout=120)
    if r.returncode == 0:
        return None
    return (r.stdout.strip() or r.stderr.strip().splitlines()[-1]) + " (main.py does not compile)"


def load_error(sandbox: Any, verifier_dir: Path, s: Scoring) -> str | None:
    """Why the verifier's module does not load or lacks ``verify``, or None: its module-level
    code runs once in the sandbox (a copy whose main.py imports the real one)."""
    if not s.cases:
        return None
    with tempfile.TemporaryDirectory(prefix="monitorbench-probe-") as tmp:
        probe = Path(tmp) / "verifier"
        shutil.copytree(verifier_dir, probe, symlinks=True)
        (probe / "main.py").rename(probe / f"{_PROBE_TARGET}.py")
        (probe / "main.py").write_text(_PROBE, encoding="utf-8")
        with sandbox.session(probe, s.suite.public_dir(s.task.task_id), s.spec) as session:
            v = session.judge(s.view.project(s.cases[0].candidate))
    if v.outcome == Outcome.P:
        return None
    if v.outcome == Outcome.F:
        return "main.py defines no callable verify(candidate, env)"
    return f"{v.reason}: {v.detail.replace(_PROBE_TARGET + '.py', 'main.py')}"


def _score(args: argparse.Namespace) -> int:
    from monitorbench.sandbox.factory import make_sandbox
    from monitorbench.suites.sandbox_image import image_recipe

    s = _prepare(args)
    sandbox = make_sandbox(args.backend, recipe=image_recipe())
    verifier_dir = args.verifier_dir.resolve()
    broken = compile_error(verifier_dir / "main.py") or load_error(sandbox, verifier_dir, s)
    if broken:
        print(f"verifier does not load: {broken}\n(the cases are judged anyway; a U below "
              "refers to this error instead of repeating it)", file=sys.stderr)
    if not args.json:
        print(f"{'case':<40} {'group':<15} {'category':<24} {'label':<5} {'out':<3} agree")
    judged: list[tuple[Case, Verdict]] = []
    with sandbox.session(verifier_dir, s.suite.public_dir(s.task.task_id), s.spec) as session:
        for case in s.cases:
            v = session.judge(s.view.project(case.candidate))
            judged.append((case, v))
            _print_case(case, v, as_json=args.json, load_failed=bool(broken))
    summary = _summary(s, verifier_dir, judged)
    if args.json:
        print(json.dumps({"summary": summary}))
    else:
        _print_summary(summary)
    if args.show_failures:
        _print_failures(s, judged)
    return 1 if broken else 0


def _agrees(case: Case, v: Verdict) -> bool:
    return v.outcome == (Outcome.P if case.label == "PASS" else Outcome.F)


def _print_case(case: Case, v: Verdict, *, as_json: bool, load_failed: bool) -> None:
    if as_json:
        print(json.dumps({"case_id": case.case_id, "group": case.group,
                          "category": case.category, "label": case.label,
                          "outcome": v.outcome, "agree": _agrees(case, v), "reason": v.reason,
                          "detail": v.detail, "seconds": round(v.seconds, 4)}))
        return
    why = ""
    if v.outcome == Outcome.U:
        why = f"  {v.reason}: " + ("see the load error above" if load_failed else v.detail)
    print(f"{case.case_id:<40} {case.group:<15} {case.category:<24} {case.label:<5} "
          f"{v.outcome:<3} {'✓' if _agrees(case, v) else '✗'}{why}")


def _summary(s: Scoring, verifier_dir: Path, judged: list[tuple[Case, Verdict]]
             ) -> dict[str, Any]:
    """Rates from the pipeline's score stage (the run's own metric functions) over the
    judgments the run's judge stage would record, plus outcome counts per (group, category)."""
    job = s.job(verifier_dir)
    _, m = score([judgment(job, c, v) for c, v in judged], several_rounds=False,
                 source="monitorbench score")
    categories: dict[str, dict[str, int]] = {}
    for case, v in judged:
        row = categories.setdefault(f"{case.group}/{case.category}",
                                    {"n": 0, "agree": 0, "P": 0, "F": 0, "U": 0})
        row["n"] += 1
        row["agree"] += int(_agrees(case, v))
        row[v.outcome] += 1
    n_pos = sum(c.label == "PASS" for c, _ in judged)
    return {"task_id": s.task.task_id, "tpr": round(m["tpr"], 2), "tnr": round(m["tnr"], 2),
            "ba_norm": round(m["ba_norm"], 2),
            "fpr_h": round(m["fpr_h"], 2) if "fpr_h" in m else None,
            "positives": n_pos, "negatives": len(judged) - n_pos,
            "attacks": sum(c.group == "attack" for c, _ in judged),
            "agree": sum(_agrees(c, v) for c, v in judged),
            "indistinguishable_under_access": len(s.hidden), "categories": categories}


def _print_summary(sm: dict[str, Any]) -> None:
    fpr_h = f"{sm['fpr_h']:.1f}" if sm["fpr_h"] is not None else "n/a (no attack cases)"
    print(f"\n{sm['task_id']}: TPR {sm['tpr']:.1f}  TNR {sm['tnr']:.1f}  "
          f"BA_norm {sm['ba_norm']:.1f}  FPR_h {fpr_h}")
    total = sm["positives"] + sm["negatives"]
    print(f"agree {sm['agree']}/{total}; {sm['positives']} positive, {sm['negatives']} negative "
          f"cases ({sm['attacks']} attacks)"
          + (f"; {sm['indistinguishable_under_access']} indistinguishable under this access, "
             "not scored" if sm["indistinguishable_under_access"] else ""))
    print(f"\n{'group/category':<40} {'n':>3} {'agree':>5} {'P':>3} {'F':>3} {'U':>3}")
    for name, row in sorted(sm["categories"].items()):
        print(f"{name:<40} {row['n']:>3} {row['agree']:>5} {row['P']:>3} {row['F']:>3} "
              f"{row['U']:>3}")


def _print_failures(s: Scoring, judged: list[tuple[Case, Verdict]]) -> None:
    wrong = [(c, v) for c, v in judged if not _agrees(c, v)]
    print(f"\n{len(wrong)} case(s) the verifier got wrong"
          + (":" if wrong else "."))
    for case, v in wrong:
        why = f" ({v.reason}: {v.detail})" if v.outcome == Outcome.U else ""
        print(f"\n--- {case.case_id}  [{case.group}/{case.category}]  label {case.label}, "
              f"verifier {v.outcome}{why}")
        print(json.dumps(s.view.project(case.candidate), indent=1, ensure_ascii=False))


if __name__ == "__main__":
    sys.exit(main())
