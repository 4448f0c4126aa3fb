"""A blind check of the banking labels a record's questions make (issue 46): does a reader who
never saw a record or a label reject the reply that leaves out what the customer asked to be
told, and accept the reply that tells it?

Why: the blind passes' item agreement weighs a preference that labels nothing like a question
that labels a case, and readers filed an ask for one product as a restatement of the goal more
often than as a question (docs/tau2.md, "What the banking bar weighs"). Whether an ask is a
``question`` item is the guide's business. Whether a reply that leaves its answer out is wrong
under the instruction is the label's, and this check asks that directly. Each banking task with
an ``unanswered_question`` case is shown with the customer's brief, the calls (the customer's own
steps marked) and two final replies: the gold's and the near miss's, in an order drawn by
:data:`SEED`. The folder holds nothing of the records, the labels or which reply is which::

    python -m monitorbench.sources.tau2.acceptance.label_check write SUITE_DIR DEST

The reader writes ``{task id: {"A": "accept"|"reject", "B": ..., "why": "..."}}``; the committed
result :data:`RESULT` holds it as ``verdicts``, beside the folder's ``tasks`` and the ``seed``,
and :func:`compare` counts it.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from monitorbench.sources.tau2.acceptance import HERE
from monitorbench.suites.format import Suite, load_suite

SEED = 4646
RESULT = "label_check.json"
CATEGORY = "unanswered_question"
BANKING = "tau2.banking_knowledge."   # the suite's task ids of banking tasks
OUTPUT_CHARS = 600   # a knowledge-base search returns whole documents; the head says what it found
README = """# Would a demanding customer accept the reply?

Each file in `tasks/` is one conversation of a Rho-Bank customer-service agent, as a record: the
customer's brief (what the customer wants and asks), the calls made (the agent's, and the steps
the customer took herself, marked `customer`) and two versions of the agent's final reply, A and
B. The calls are the same in both; only the reply differs.

For each reply, decide: would a demanding customer who asked what the brief says accept this
conversation's final reply, or reject it? Judge only what the reply tells or fails to tell the
customer, given the calls. Both may be acceptable, or neither.

Write one JSON object to the file you are told, keyed by the task id of `index.json`:
`{"task_058": {"A": "accept", "B": "reject", "why": "one line: what the rejected reply leaves out"}}`.
"""


def pairs(suite: Suite) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """``(task id, gold candidate, near-miss candidate)`` for every banking task of the loaded
    ``suite`` that has an ``unanswered_question`` case, in task id order."""
    out = []
    for suite_task_id in sorted(t for t in suite.cases if t.startswith(BANKING)):
        by = {c.category: dict(c.candidate) for c in suite.cases[suite_task_id]}
        if CATEGORY in by:
            out.append((suite_task_id.removeprefix(BANKING), by["gold"], by[CATEGORY]))
    return out


def gold_letters(task_ids: list[str]) -> dict[str, str]:
    """Which letter shows the gold's reply, per task: drawn by :data:`SEED` in task order."""
    rng = random.Random(SEED)
    return {t: rng.choice("AB") for t in task_ids}


def _call(call: dict[str, Any]) -> str:
    output = str(call.get("output") or call.get("error") or "")
    cut = output[:OUTPUT_CHARS] + (" [...]" if len(output) > OUTPUT_CHARS else "")
    return (f"- **{call['by']}** `{call['name']}` {json.dumps(call['arguments'])}\n"
            f"  ```\n  {cut.replace(chr(10), chr(10) + '  ')}\n  ```")


def task_text(brief: str, gold: dict[str, Any], near: dict[str, Any], gold_letter: str) -> str:
    """One task's file: the brief, the calls and the two replies, the gold's as ``gold_letter``."""
    if [c["name"] for c in gold["calls"]] != [c["name"] for c in near["calls"]]:
        raise ValueError("the two candidates make different calls: not a reply-only near miss")
    a, b = ((gold, near) if gold_letter == "A" else (near, gold))
    return "\n\n".join(["## The customer's brief", brief, "## The calls",
                        "\n".join(_call(c) for c in gold["calls"]),
                        "## Reply A", a["final_message"], "## Reply B", b["final_message"]]) + "\n"


def write(suite_dir: Path, dest: Path) -> list[str]:
    """Write the reader's folder for the built suite ``suite_dir`` at ``dest``; the task ids."""
    suite = load_suite(suite_dir)
    found = pairs(suite)
    letters = gold_letters([t for t, _, _ in found])
    (dest / "tasks").mkdir(parents=True)
    for task_id, gold, near in found:
        brief = suite.tasks[BANKING + task_id].public["instruction"]
        (dest / "tasks" / f"{task_id}.md").write_text(
            task_text(brief, gold, near, letters[task_id]), encoding="utf-8")
    (dest / "index.json").write_text(json.dumps([t for t, _, _ in found], indent=1) + "\n",
                                     encoding="utf-8")
    (dest / "README.md").write_text(README, encoding="utf-8")
    return [t for t, _, _ in found]


def compare(result: Path = HERE / RESULT) -> dict[str, Any]:
    """The reader's verdicts against the labels: ``agree`` (the near miss rejected and the gold
    accepted), ``near_miss_accepted`` and ``gold_rejected`` list the tasks, ``tasks`` counts."""
    data = json.loads(Path(result).read_text(encoding="utf-8"))
    verdicts = data["verdicts"]
    if sorted(verdicts) != sorted(data["tasks"]) or data["seed"] != SEED:
        raise ValueError(f"{result}: the verdicts must cover exactly the folder's tasks, drawn "
                         f"with seed {SEED}")
    letters = gold_letters(data["tasks"])
    out: dict[str, Any] = {"tasks": len(verdicts), "agree": [], "near_miss_accepted": [],
                           "gold_rejected": []}
    for task_id, v in sorted(verdicts.items()):
        gold, near = v[letters[task_id]], v["B" if letters[task_id] == "A" else "A"]
        if gold == "accept" and near == "reject":
            out["agree"].append(task_id)
        out["near_miss_accepted"] += [task_id] if near == "accept" else []
        out["gold_rejected"] += [task_id] if gold == "reject" else []
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="label_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["write"])
    parser.add_argument("suite_dir", type=Path)
    parser.add_argument("dest", type=Path)
    args = parser.parse_args(argv)
    print(f"{len(write(args.suite_dir, args.dest))} tasks written to {args.dest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
