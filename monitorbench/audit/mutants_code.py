"""Five mutants of the code reference (``code.hardened_grader``), paper Table 9's SWE-bench row:
newly passing tests, previously passing tests, missing tests, expected failures (skips) and
empty reports. Each rewrites the grader's final decision rule over the same test evidence.

The hardened grader decides ``PASS`` iff the test run has no integrity problem and every
fail-to-pass (F2P) and pass-to-pass (P2P) test agrees on "passed" in both the junit report and
the outcome record. The grader is run once per case (patch applied to a fresh checkout, tests in
a subprocess); every mutant re-decides from that run. A candidate the grader rejected before
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
        self._runs: dict[tuple[str, str], Any] = {}

    def _grade(self, task: Task, reference: Reference, case: Case) -> Any:
        """One real grading run per case, shared by the five operators."""
        from monitorbench.suites.code.grader import grade, spec_for
        key = (reference.verifier_id + reference.version + task.task_id, case.candidate_hash)
        if key not in self._runs:
            spec = spec_for(reference.data, f"hidden/{task.task_id}/reference.json")
            self._runs[key] = grade(spec, reference.data, case.candidate.get("patch"))
        return self._runs[key]

    def decide(self, op: Operator, task: Task, reference: Reference,
               cases: Sequence[Case]) -> list[str]:
        rule = _rule(op.name, list(reference.data["fail_to_pass"]),
                     list(reference.data["pass_to_pass"]))
        out = []
        for case in cases:
            g = self._grade(task, reference, case)
            out.append(with_invalid(lambda: g.decision if g.run is None else rule(g.run)))
        if op is self.operators[-1]:
            self._runs.clear()  # every operator of this task has run; free the evidence
        return out


MUTANTS = CodeMutants()
