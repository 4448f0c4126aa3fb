"""Five mutants of the code reference (``code.hardened_grader``), paper Table 9's SWE-bench row:
newly passing tests, previously passing tests, missing tests, expected failures (skips) and
empty reports. Each rewrites the grader's final decision rule over the same test evidence.

The hardened grader decides ``PASS`` iff the test run has no integrity problem and every
fail-to-pass (F2P) and pass-to-pass (P2P) test agrees on "passed" in both the junit report and
the outcome record (:func:`monitorbench.sources.code.grader.decide_run`). That rule is a pure
function of the run record, so the mutants add no test runs: each re-decides the record of the
reference's latest grading of the same case (``grader.last_grade``; in the audit, the last of
the C2 repeats, which C2 requires to agree with the first). Only a case graded nowhere in this
process is graded here, once, for all five operators. A candidate the grader rejected before
running tests (static screen, patch that does not apply) has no run and keeps its decision.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from monitorbench.audit.mutation import Operator, with_invalid
from monitorbench.suites.format import Case, Reference, Task

_EMPTY = ("junit report missing or empty", "junit report lists no tests",
          "outcome record missing")


def _rule(op: str, f2p: list[str], p2p: list[str]) -> Callable[[Any], str]:
    """The mutated decision over one ``TestRun``."""
    def decide(run: Any) -> str:
        problems = run.problems()
        empty = any(p.startswith(_EMPTY) for p in problems)
        if op == "empty_report_passes" and empty:
            return "PASS"
        required = {"ignore_fail_to_pass": p2p, "ignore_pass_to_pass": f2p}.get(op, f2p + p2p)
        ok = {"passed"}
        if op == "skipped_counts_as_passed":
            ok.add("skipped")
            problems = [p for p in problems if "contradicts the junit report" not in p]
        if op == "missing_counts_as_passed":
            ok |= {"missing", "mismatch"}
            problems = [p for p in problems if not p.startswith(_EMPTY)
                        and not p.startswith("junit and outcome record")]
        bad = [n for n in required if run.outcome(n) not in ok]
        return "PASS" if not problems and not bad else "FAIL"
    return decide


class CodeMutants:
    operators = (
        Operator("ignore_fail_to_pass", "newly passing (F2P) tests"),
        Operator("ignore_pass_to_pass", "previously passing (P2P) tests"),
        Operator("missing_counts_as_passed", "tests missing from the report"),
        Operator("skipped_counts_as_passed", "skipped / expected-failure tests"),
        Operator("empty_report_passes", "empty test report"),
    )

    def __init__(self) -> None:
        self.graded_here = 0  # cases with no reference record in this process (test runs spent)

    def _grade(self, task: Task, reference: Reference, case: Case) -> Any:
        """The reference's own record of this case, or one grading run when it has none."""
        from monitorbench.sources.code.grader import grade, last_grade, spec_for
        patch = case.candidate.get("patch")
        g = last_grade(reference.data, patch)
        if g is None:
            self.graded_here += 1
            spec = spec_for(reference.data, f"hidden/{task.task_id}/reference.json")
            g = grade(spec, reference.data, patch)
        return g

    def decide(self, op: Operator, task: Task, reference: Reference,
               cases: Sequence[Case]) -> list[str]:
        rule = _rule(op.name, list(reference.data["fail_to_pass"]),
                     list(reference.data["pass_to_pass"]))
        out = []
        for case in cases:
            g = self._grade(task, reference, case)
            out.append(with_invalid(lambda: g.decision if g.run is None else rule(g.run)))
        return out


MUTANTS = CodeMutants()
