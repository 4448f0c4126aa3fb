"""The reading aid of a blind banking pass (issue 46): it lists the lines of a reader's own
record that a rule of GUIDE.md names by its words, for the reader to decide again. Checked on
the deciding twenty-seventh pass, read without it: the lines its reader misfiled are listed,
and the lines the guide itself files by those words are not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("inspect_evals")

from monitorbench.sources.tau2.acceptance import HERE, parse_record  # noqa: E402
from monitorbench.sources.tau2.acceptance import blind_folder as bf  # noqa: E402
from monitorbench.sources.tau2.acceptance import second_pass as sp  # noqa: E402
from monitorbench.sources.tau2.acceptance.reading_aid import to_confirm  # noqa: E402


@pytest.fixture(scope="module")
def twenty_seventh() -> dict:
    return sp.load_pass(sp.TWENTY_SEVENTH_PASS)


def _listed(lines: list[str], quote: str) -> list[str]:
    return [line for line in lines if repr(quote) in line]


@pytest.mark.parametrize("task,quote,cue", [
    ("task_024", "If the agent mentions multiple cards, ask them to make one recommendation, and "
                 "you should follow that.", "a condition"),
    ("task_061", "First, I want to close my Green Account and just keep the Silver one going "
                 "forward.", "what is kept"),
    ("task_081", "You're organized but stressed because your wallet was stolen at a coffee shop.",
     "a reason a tool may take"),
    ("task_100", "If agent recommends a specific account that you DO qualify for RIGHT NOW, "
                 "submit the referral immediately:", "a condition"),
    ("task_077", "After both debit cards are frozen, confirm they're definitely lost:",
     "a lead-in"),
])
def test_the_lines_the_deciding_passs_reader_misfiled_are_listed(
        twenty_seventh: dict, task: str, quote: str, cue: str) -> None:
    listed = _listed(to_confirm(twenty_seventh[f"banking_knowledge/{task}"]), quote)
    assert listed and cue in listed[0], listed


def test_order_lines_a_restatement_of_its_cue_and_figures_where_nothing_is_opened_are_not(
        twenty_seventh: dict) -> None:
    """`order` is the guide's place for a lead-in ("If asked to provide verification:" is one
    only when filed so); a restatement whose item holds the same words says nothing new; a
    dispute task's amounts are its situation (coverage rule 2)."""
    lines = [line for rec in twenty_seventh.values() for line in to_confirm(rec)]
    assert not [line for line in lines if line.startswith("not-item (order)")]
    disputes = to_confirm(twenty_seventh["banking_knowledge/task_084"])
    assert not _listed(disputes, "But my statement shows $189.23!")
    rec = twenty_seventh["banking_knowledge/task_033"]
    asks = [n for n in rec.not_items if n.why == "restated" and "human" in n.quote
            and "human" in (n.of or "")]
    assert len(asks) >= 3
    assert not [n for n in asks if _listed(to_confirm(rec), n.quote)]


def test_an_aid_folder_prints_the_lines_to_decide_again_and_still_passes(
        tmp_path: Path, capsys) -> None:
    """The lines are advice, not problems: the check's exit code is the problems' alone. A
    folder of the twenty-seventh pass marked for the aid (no pass before the twenty-eighth is)
    lists exactly :func:`to_confirm` of each record."""
    dest = tmp_path / "folder"
    bf.write_blind_folder(sp.TWENTY_SEVENTH_PASS, dest)
    index = json.loads((dest / bf.INDEX).read_text(encoding="utf-8"))
    assert not [e for e in index if e.get("aid")]
    path = HERE / sp.TWENTY_SEVENTH_PASS
    assert bf.aid_lines(dest, path) == []
    for entry in index:
        entry["aid"] = True
    (dest / bf.INDEX).write_text(json.dumps(index), encoding="utf-8")
    raw = json.loads(path.read_text(encoding="utf-8"))["tasks"]
    expected = [f"{e['key']}: {line}" for e in index
                for line in to_confirm(parse_record(path, e["key"], raw[e["key"]]))]
    assert bf.aid_lines(dest, path) == expected and len(expected) > 20
    assert bf.main(["check", str(dest), str(path)]) == 0
    out = capsys.readouterr().out
    assert f"to decide again ({len(expected)} lines; README.md):" in out
    assert expected[0] in out


def test_the_passes_read_with_the_aid_get_it_in_their_folder(tmp_path: Path) -> None:
    """The twenty-eighth pass on are read with the aid: every task of its folder is marked for
    it and the folder's README says how to use the list; the twenty-seventh's says nothing of
    it (its reader had no aid)."""
    bf.write_blind_folder(sp.TWENTY_EIGHTH_PASS, tmp_path / "28")
    index = json.loads((tmp_path / "28" / bf.INDEX).read_text(encoding="utf-8"))
    assert len(index) == 20 and all(e.get("aid") and e.get("coverage") for e in index)
    assert "to decide again" in (tmp_path / "28" / bf.README).read_text(encoding="utf-8")
    bf.write_blind_folder(sp.TWENTY_SEVENTH_PASS, tmp_path / "27")
    assert "to decide again" not in (tmp_path / "27" / bf.README).read_text(encoding="utf-8")


def test_a_pass_file_that_is_not_an_object_gets_its_problem_not_a_crash(tmp_path: Path) -> None:
    """A pass file holding a list is reported by the check as a problem (exit 1); the aid lists
    nothing for it rather than failing on it."""
    dest = tmp_path / "folder"
    bf.write_blind_folder(sp.TWENTY_EIGHTH_PASS, dest)
    bad = tmp_path / "bad.json"
    bad.write_text("[]", encoding="utf-8")
    assert bf.aid_lines(dest, bad) == []
    assert bf.main(["check", str(dest), str(bad)]) == 1
