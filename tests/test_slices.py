"""A built slice (a suite built with options, as ``task=mixed_small`` builds them) is found by
``list tasks`` and ``score`` by its task ids and by its own directory name, without building
the source's default suite (for AgentDojo that is many minutes)."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from monitorbench import cli_list, score
from monitorbench.audit.prepare import build_suite
from monitorbench.suites.format import load_suite

PASSES = 'def verify(candidate, env):\n    return "PASS"\n'


@pytest.fixture(scope="module")
def slice_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("slices")
    build_suite(root, "bfcl", {"tasks_per_category": 1})
    return root


def _slice(root: Path) -> Path:
    (d,) = [p for p in root.iterdir() if p.name.startswith("bfcl-")]
    return d


def test_list_tasks_finds_a_built_slice_by_source_and_by_its_name(
        slice_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ids = sorted(load_suite(_slice(slice_root)).tasks)
    for name in ("bfcl", _slice(slice_root).name):
        assert cli_list.main(["tasks", "--suite", name, "--suites-dir", str(slice_root),
                              "--json"]) == 0
        listed = [json.loads(line)["task_id"] for line in capsys.readouterr().out.splitlines()]
        assert listed == ids
    assert not (slice_root / "bfcl").exists()
    assert cli_list.main(["suites", "--suites-dir", str(slice_root)]) == 0
    assert f"built: {_slice(slice_root).name}" in capsys.readouterr().out


def test_score_finds_a_task_in_a_built_slice_without_building_the_default(
        slice_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task_id = sorted(load_suite(_slice(slice_root)).tasks)[0]
    verifier = tmp_path / "v"
    verifier.mkdir()
    (verifier / "main.py").write_text(PASSES)
    rc = score.main([str(verifier), "--task", task_id, "--suites-dir", str(slice_root),
                     "--outputs-dir", str(tmp_path / "out")])
    assert rc == 0 and "TPR" in capsys.readouterr().out
    assert not (slice_root / "bfcl").exists()
    unknown = score.main([str(verifier), "--task", task_id, "--suite", "bfcl-0000000000",
                          "--suites-dir", str(slice_root)])
    assert unknown == 2 and "no built suite 'bfcl-0000000000'" in capsys.readouterr().err
