"""The blind check of banking's question-made labels (issue 46): the reader's folder shows the
two replies of a task with an ``unanswered_question`` case and nothing of the record or the
labels, and the committed verdicts are counted against the labels."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("inspect_evals")

from monitorbench.sources.tau2.acceptance import load_records  # noqa: E402
from monitorbench.sources.tau2.acceptance import label_check as lc  # noqa: E402
from monitorbench.sources.tau2.build import build_tau2_suite  # noqa: E402
from monitorbench.suites.format import load_suite  # noqa: E402


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("label_check")
    build_tau2_suite(root / "suite", domains=["banking_knowledge"], task_ids=["task_058"])
    lc.write(root / "suite", root / "folder")
    return root / "suite", root / "folder"


def test_the_folder_shows_both_replies_in_the_drawn_order(folder: tuple[Path, Path]) -> None:
    suite, dest = folder
    assert json.loads((dest / "index.json").read_text()) == ["task_058"]
    [(task_id, gold, near)] = lc.pairs(load_suite(suite))
    text = (dest / "tasks" / "task_058.md").read_text()
    a, b = text.split("## Reply A", 1)[1].split("## Reply B", 1)
    shown = {"A": a.strip(), "B": b.strip()}
    letter = lc.gold_letters(["task_058"])["task_058"]
    assert shown[letter] == gold["final_message"].strip()
    assert shown["B" if letter == "A" else "A"] == near["final_message"].strip()
    assert gold["final_message"] != near["final_message"]
    assert "customer** `banking_apply_for_credit_card`" in text


def test_the_folder_holds_nothing_of_the_record_or_the_labels(folder: tuple[Path, Path]) -> None:
    _, dest = folder
    text = "\n".join(p.read_text() for p in dest.rglob("*") if p.is_file())
    for word in ("unanswered_question", "PASS", "FAIL", "must_tell", "near miss"):
        assert word not in text
    for q in load_records("banking_knowledge")["task_058"].questions:
        assert q.must_tell not in text and (not q.note or q.note not in text)


def test_compare_counts_the_verdicts_against_the_labels(tmp_path: Path) -> None:
    tasks = ["task_001", "task_002", "task_003"]
    gold = lc.gold_letters(tasks)
    other = {t: "B" if gold[t] == "A" else "A" for t in tasks}
    verdicts = {"task_001": {gold["task_001"]: "accept", other["task_001"]: "reject"},
                "task_002": {gold["task_002"]: "accept", other["task_002"]: "accept"},
                "task_003": {gold["task_003"]: "reject", other["task_003"]: "reject"}}
    result = tmp_path / "r.json"
    result.write_text(json.dumps({"seed": lc.SEED, "tasks": tasks, "verdicts": verdicts}))
    assert lc.compare(result) == {"tasks": 3, "agree": ["task_001"],
                                  "near_miss_accepted": ["task_002"],
                                  "gold_rejected": ["task_003"]}
    result.write_text(json.dumps({"seed": lc.SEED, "tasks": tasks[:2], "verdicts": verdicts}))
    with pytest.raises(ValueError, match="exactly the folder's tasks"):
        lc.compare(result)


def test_the_committed_check_is_what_the_docs_report() -> None:
    """label_check.json holds one verdict per task of the registered 24, and docs/tau2.md
    reports its count and the one task whose labels the reader did not draw as the record
    does; a changed result fails here rather than leaving a stale figure in print."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "tau2.md").read_text(encoding="utf-8")
    registered = docs.split("**A blind check of those labels", 1)[1].split("- **Reader:**")[0]
    tasks = [f"task_{n}" for n in re.findall(r"\b(\d{3})\b", registered)]
    result = lc.compare()
    assert result["tasks"] == len(tasks) == 24
    assert json.loads((lc.HERE / lc.RESULT).read_text())["tasks"] == tasks
    assert f"**The check gave {len(result['agree'])} of {result['tasks']}**" in docs
    assert result["near_miss_accepted"] == result["gold_rejected"] == ["task_015"]
    assert all(any(q.tells for q in load_records("banking_knowledge")[t].questions)
               for t in tasks)
