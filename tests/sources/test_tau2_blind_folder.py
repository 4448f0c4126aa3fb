"""The folder a blind reader of the τ² acceptance records is given (issue 46): written from the
repository alone, it holds the pass's sample and each task's public text, nothing of the
records, and the committed pass checks clean against it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("inspect_evals")

from monitorbench.errors import InputError  # noqa: E402
from monitorbench.sources.tau2 import source as src  # noqa: E402
from monitorbench.sources.tau2.acceptance import HERE, load_records, record_path  # noqa: E402
from monitorbench.sources.tau2.acceptance import blind_folder as bf  # noqa: E402
from monitorbench.sources.tau2.acceptance import second_pass as sp  # noqa: E402


@pytest.fixture(scope="module")
def tenth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("blind") / "tenth"
    keys = bf.write_blind_folder(sp.TENTH_PASS, dest)
    assert keys == [f"{d}/{t}" for d, t in sp.blind_sample(sp.TENTH_PASS)]
    return dest


def _index(folder: Path) -> list[dict[str, str]]:
    return json.loads((folder / bf.INDEX).read_text(encoding="utf-8"))


def test_the_folder_holds_the_sample_and_each_tasks_public_text(tenth: Path) -> None:
    index = _index(tenth)
    assert [e["key"] for e in index] == [f"{d}/{t}" for d, t in sp.blind_sample(sp.TENTH_PASS)]
    for entry in index:
        domain, task_id = entry["key"].split("/", 1)
        task = next(t for t in src.load_tasks(domain) if t.task_id == task_id)
        assert bf.public_text(tenth, entry) == src.user_request(task)
        assert (tenth / entry["policy"]).read_text(encoding="utf-8") == src.policy(domain)
        assert json.loads((tenth / entry["tools"]).read_text(encoding="utf-8")) \
            == json.loads(json.dumps(src.public_tools(domain)))
    assert (tenth / bf.GUIDE).read_text(encoding="utf-8") \
        == (HERE / bf.GUIDE).read_text(encoding="utf-8")


def test_the_committed_pass_checks_clean_and_an_altered_quote_is_reported(
        tenth: Path, tmp_path: Path) -> None:
    assert bf.check_blind_pass(tenth, HERE / sp.TENTH_PASS) == []
    data = json.loads((HERE / sp.TENTH_PASS).read_text(encoding="utf-8"))
    key, rec = next(iter(data["tasks"].items()))
    altered = rec["preferences"][0]["quote"] + " twice"
    rec["preferences"][0]["quote"] = altered
    path = tmp_path / sp.TENTH_PASS
    path.write_text(json.dumps(data), encoding="utf-8")
    assert bf.check_blind_pass(tenth, path) == [
        f"{key}: quote {altered!r} not in the task's public text"]


@pytest.mark.parametrize("change,problem", [
    (lambda r: r.update(gold_breaks="x"), "unknown field 'gold_breaks'"),
    (lambda r: r.update(nothing_stated=True), "field 'tasks.{key}.nothing_stated' is true"),
    (lambda r: r["preferences"][0].pop("binds"), "missing key(s) ['binds']"),
    (lambda r: r.update(policy=["Not a line of the policy."]), "policy 'Not a line"),
])
def test_a_field_problem_is_reported(tenth: Path, tmp_path: Path, change, problem: str) -> None:
    data = json.loads((HERE / sp.TENTH_PASS).read_text(encoding="utf-8"))
    key, rec = next(iter(data["tasks"].items()))
    change(rec)
    data["tasks"]["retail/999"] = data["tasks"].pop(_index(tenth)[-1]["key"])
    path = tmp_path / "pass.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    problems = bf.check_blind_pass(tenth, path)
    assert any(p.startswith(key) and problem.format(key=key) in p for p in problems), problems
    assert "retail/999: not a task of the folder's index" in problems
    assert f"{_index(tenth)[-1]['key']}: no record written" in problems


def test_nothing_of_the_records_is_written(tenth: Path, tmp_path: Path) -> None:
    """No pass or records file, and no record's resolution, answer, note, finding or why (of
    more than 30 characters) of a sampled task in any file written: the tenth pass's folder,
    and the eleventh's (banking only, asking for coverage)."""
    _no_record_leaks(tenth, sp.TENTH_PASS)
    bf.write_blind_folder(sp.ELEVENTH_PASS, tmp_path / "eleventh")
    _no_record_leaks(tmp_path / "eleventh", sp.ELEVENTH_PASS)


def _no_record_leaks(folder: Path, name: str) -> None:
    """Asserts ``folder`` holds nothing of the records of pass ``name``'s tasks beyond what
    their public texts show (an address the customer gives is both)."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert not [p for p in files if p.name.endswith("_pass.json")]
    texts = {p: p.read_text(encoding="utf-8") for p in files}
    secret = {record_path(d).read_text(encoding="utf-8") for d in sp.THIRD_DOMAINS}
    assert not [p for p, text in texts.items() if text in secret]
    hidden = set()
    for domain, task_id in sp.blind_sample(name):
        rec = load_records(domain)[task_id]
        hidden |= {rec.note, rec.gold_breaks, *(n.why for n in rec.not_questions)}
        hidden |= {x for p in rec.preferences for x in (p.resolves_to, p.note)}
        hidden |= {x for q in rec.questions for x in (q.must_tell, q.note)}
    public = [bf.public_text(folder, e) for e in _index(folder)]  # a value the task shows
    hidden = {h for h in hidden if len(h) > 30 and not any(h in text for text in public)}
    assert hidden
    assert not [(p, h) for p, text in texts.items() for h in hidden if h in text]


def test_a_non_empty_dest_and_an_unknown_pass_are_refused(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match=f"{tmp_path}.*is not an empty folder"):
        bf.write_blind_folder(sp.TENTH_PASS, tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["kept.txt"]
    with pytest.raises(InputError, match="'no_such_pass.json' is not a blind pass.*"
                                         f"third_pass.json.*{sp.LATER_PASSES[-1].name}"):
        bf.write_blind_folder("no_such_pass.json", tmp_path / "new")
    assert not (tmp_path / "new").exists()


def test_the_command_line_writes_checks_and_refuses(tmp_path: Path, capsys) -> None:
    dest = tmp_path / "folder"
    assert bf.main(["write", sp.TENTH_PASS, str(dest)]) == 0
    assert f"wrote the 20 tasks of {sp.TENTH_PASS} to {dest}" in capsys.readouterr().out
    assert bf.main(["check", str(dest), str(HERE / sp.TENTH_PASS)]) == 0
    assert "no problems" in capsys.readouterr().out
    assert bf.main(["write", "nope.json", str(tmp_path / "other")]) == 2
    assert "use one of third_pass.json" in capsys.readouterr().err


def test_a_reconciling_folder_holds_the_two_passes_and_their_comparison_only(
        tmp_path: Path) -> None:
    """The thirty-second pass reconciles the thirtieth and thirty-first: its folder holds their
    two passes as written and where they differ, from :func:`second_pass.compare_passes`
    (which reads no record), and nothing of the records."""
    dest = tmp_path / "32"
    bf.write_blind_folder(sp.THIRTY_SECOND_PASS, dest)
    readers = dest / bf.READERS
    assert sorted(p.name for p in readers.iterdir()) == sorted(
        [sp.THIRTIETH_PASS, sp.THIRTY_FIRST_PASS, bf.COMPARED])
    for name in (sp.THIRTIETH_PASS, sp.THIRTY_FIRST_PASS):
        assert (readers / name).read_bytes() == (HERE / name).read_bytes()
    compared = (readers / bf.COMPARED).read_text(encoding="utf-8").splitlines()
    found = sp.disagreements(sp.compare_passes(sp.THIRTIETH_PASS, sp.THIRTY_FIRST_PASS))
    assert compared[1:] == [f"{k}: {line}" for k, lines in found.items() for line in lines]
    assert len(compared) > 1
    assert "readers/compared.txt" in (dest / bf.README).read_text(encoding="utf-8")
    for path in readers.iterdir():  # the folder's other files are checked as every folder's
        path.unlink()
    readers.rmdir()
    _no_record_leaks(dest, sp.THIRTY_SECOND_PASS)
    assert not (tmp_path / "30").exists()
    bf.write_blind_folder(sp.THIRTIETH_PASS, tmp_path / "30")
    assert not (tmp_path / "30" / bf.READERS).exists()
