"""The audit may run a task's reference decisions concurrently; its result must not change."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from monitorbench.audit.checks import run_reference
from monitorbench.sources.bfcl.reference import BfclAstReference
from monitorbench.suites.format import load_suite


class _PairedBfcl(BfclAstReference):
    """The real BFCL reference, declared safe to run concurrently, whose decisions each wait
    until a second decision is in flight: a run that is not concurrent times out at the barrier
    and records INVALID instead of the label."""

    parallel_decisions = True

    def __init__(self) -> None:
        super().__init__()
        self.barrier = threading.Barrier(2, timeout=5)

    def decide(self, task, reference, candidate):
        try:
            self.barrier.wait()
        except threading.BrokenBarrierError:
            self.barrier.reset()
            raise
        return super().decide(task, reference, candidate)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two usable CPUs")
def test_concurrent_reference_runs_decide_exactly_as_sequential_ones(suites_dir: Path) -> None:
    suite = load_suite(suites_dir / "bfcl")
    task_id = sorted(suite.tasks)[0]
    task, ref, cases = suite.tasks[task_id], suite.references[task_id], suite.cases[task_id]
    cases = cases[:6]  # the barrier pairs decisions: an even count per run
    sequential = run_reference(BfclAstReference(), task, ref, cases, repeats=3)
    concurrent = run_reference(_PairedBfcl(), task, ref, cases, repeats=3)
    assert concurrent == sequential
    assert sequential[0] == [c.label for c in cases]


class _Counting:
    """A reference that decides by a lookup table, counts its decisions, and offers recorded
    decisions for some candidates (as the code grader does for what the build graded)."""

    verifier_id = "test.counting"
    version = "1"

    def __init__(self, recorded: dict[str, str]) -> None:
        self.decided: list[str] = []
        self.recorded_table = recorded

    def decide(self, task, reference, candidate):
        self.decided.append(candidate["x"])
        return "PASS" if candidate["x"].startswith("p") else "FAIL"

    def recorded(self, task, reference, candidate):
        return self.recorded_table.get(candidate["x"])


def test_first_pass_takes_recorded_decisions_and_later_passes_decide_afresh() -> None:
    from monitorbench.suites.format import Case, Reference, Task

    task = Task("t", "tool_calls", "test", {})
    ref = Reference("test.counting", "1", {})
    cases = [Case(f"c{i}", "t", "gold", "x", "PASS", {"x": x})
             for i, x in enumerate(["p1", "f2", "p3"])]
    # A recorded decision that differs from a fresh one shows where each pass came from; one
    # that is no label (None, garbage) is decided afresh.
    verifier = _Counting({"p1": "FAIL", "f2": "maybe"})
    runs = run_reference(verifier, task, ref, cases, repeats=3)
    assert runs == [["FAIL", "FAIL", "PASS"], ["PASS", "FAIL", "PASS"], ["PASS", "FAIL", "PASS"]]
    assert sorted(verifier.decided) == sorted(["f2", "p3"] + ["p1", "f2", "p3"] * 2)
