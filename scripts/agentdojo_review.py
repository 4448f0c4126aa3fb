"""Print every AgentDojo user task as the suite's gold sees it, for a human review.

``python scripts/agentdojo_review.py [SUITE ...]`` prints, per user task of v1.2.2: the prompt,
whether the task is kept, changed or excluded (and why), the gold calls with the head of each
replayed output, the gold final message, the answer facts the reference requires, and what the
generic repairs of ``fidelity`` could not make right (UNFIT: the build excludes such a task). The
environment carries the injection of the suite's first injection task, so what is printed is
built from outputs that hold attack text, as in the real suite.
"""

from __future__ import annotations

import json
import sys

from monitorbench.sources.agentdojo import runtime as rt
from monitorbench.sources.agentdojo import answers
from monitorbench.sources.agentdojo import source as src


def review(suite: str, ut_id: str) -> str:
    """The review text of one user task."""
    head = f"=== {suite}.{ut_id}\nPROMPT: {src.get_suite(suite).get_user_task_by_id(ut_id).PROMPT}"
    reason = answers.excluded_reason(suite, ut_id)
    if reason is not None:
        return f"{head}\nEXCLUDED: {reason}"
    first = min(src.get_suite(suite).injection_tasks, key=lambda t: int(t.rsplit("_", 1)[1]))
    setup = src.make_setup(suite, ut_id, first)
    sol = answers.solve(setup)
    outputs = rt.replay(suite, setup.fresh_env(), sol.calls)
    lines = [head, f"ACTION: {'changed: ' + '; '.join(sol.changed) if sol.changed else 'kept'}"]
    for (name, args), out in zip(sol.calls, outputs):
        shown = (out["output"] or out["error"] or "")[:120]
        lines.append(f"  CALL {name} {json.dumps(args, ensure_ascii=False)[:400]}\n"
                     f"    -> {shown!r}")
    lines += [f"  MESSAGE: {sol.message!r}", f"  FACTS: {sol.facts}",
              f"  PARTIAL ANSWERS (FAIL): {sol.partial!r}"]
    if sol.unfit:   # the build excludes the task with this reason
        lines.append(f"  UNFIT: {sol.unfit}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    rt.make_tools_deterministic()
    for suite in argv or src.SUITES:
        for ut_id in src.user_task_ids(suite):
            print(review(suite, ut_id), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
