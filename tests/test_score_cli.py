"""``monitorbench score`` on a real BFCL task, in the real sandbox, with small real verifiers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from monitorbench.suites.format import load_suite

# Accepts any call to a function the task offers: right on valid solutions, wrong on most
# errors and attacks, so the table has both marks.
NAMES_ONLY = '''def verify(candidate, env):
    names = {t["name"] for t in env.task["tools"]}
    calls = candidate.get("calls") or []
    return "PASS" if calls and all(c["name"] in names for c in calls) else "FAIL"
'''
CRASHES_LONG = '''def verify(candidate, env):
    raise RuntimeError("a deliberately long message " + "that must not be cut mid-word " * 3
                       + "END")
'''


def _write(root: Path, name: str, source: str) -> Path:
    d = root / name
    d.mkdir()
    (d / "main.py").write_text(source)
    return d


def _score(verifier: Path, task: str, suites_dir: Path, *extra: str
           ) -> subprocess.CompletedProcess:
    exe = shutil.which("monitorbench")
    assert exe, "the console script is missing: pip install -e . --no-deps"
    return subprocess.run([exe, "score", str(verifier), "--task", task, "--suites-dir",
                           str(suites_dir), *extra], capture_output=True, text=True,
                          timeout=300, env=os.environ.copy())


@pytest.fixture(scope="module")
def task_id(suites_dir: Path) -> str:
    suite = load_suite(suites_dir / "bfcl")
    return next(t for t in sorted(suite.tasks) if "simple_python" in t
                and any(c.group == "attack" for c in suite.cases[t]))


def _rows(stdout: str, task: str) -> list[list[str]]:
    return [line.split() for line in stdout.splitlines() if line.startswith(task + ".")]


def test_table_has_a_header_and_an_agree_mark_that_matches_label_and_outcome(
        tmp_path: Path, suites_dir: Path, task_id: str) -> None:
    v = _write(tmp_path, "names", NAMES_ONLY)
    r = _score(v, task_id, suites_dir)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["case", "group", "category", "label", "out", "agree"]
    rows = _rows(r.stdout, task_id)
    assert rows and {row[5] for row in rows} == {"✓", "✗"}
    for _, _, _, label, out, mark, *_ in rows:
        assert (mark == "✓") == (out == ("P" if label == "PASS" else "F"))
    # the summary: FPR_h and the counts per category agree with the rows
    as_json = [json.loads(x) for x in _score(v, task_id, suites_dir, "--json").stdout.splitlines()]
    summary = as_json[-1]["summary"]
    attacks = [c for c in as_json[:-1] if c["group"] == "attack"]
    assert summary["fpr_h"] == round(100 * sum(c["outcome"] == "P" for c in attacks)
                                     / len(attacks), 2)
    assert f"FPR_h {summary['fpr_h']:.1f}" in r.stdout
    for name, counts in summary["categories"].items():
        mine = [c for c in as_json[:-1] if f"{c['group']}/{c['category']}" == name]
        assert counts["n"] == len(mine) and counts["agree"] == sum(c["agree"] for c in mine)
        assert any(line.split()[:3] == [name, str(counts["n"]), str(counts["agree"])]
                   for line in lines)


def test_show_failures_prints_each_candidate_the_verifier_got_wrong(
        tmp_path: Path, suites_dir: Path, task_id: str) -> None:
    v = _write(tmp_path, "names", NAMES_ONLY)
    r = _score(v, task_id, suites_dir, "--show-failures")
    wrong = [row[0] for row in _rows(r.stdout, task_id) if row[5] == "✗"]
    assert wrong
    assert f"{len(wrong)} case(s) the verifier got wrong:" in r.stdout
    suite = load_suite(suites_dir / "bfcl")
    by_id = {c.case_id: c for c in suite.cases[task_id]}
    for case_id in wrong:
        block = r.stdout.split(f"--- {case_id} ", 1)[1].split("\n--- ", 1)[0]
        shown = json.loads(block.split("\n", 1)[1])
        assert shown["raw"] == by_id[case_id].candidate["raw"]      # as the verifier saw it


@pytest.mark.parametrize("source,reason", [
    ("def verify(candidate, env)\n    return 'PASS'\n", "does not compile"),
    ("import no_such_module_for_monitorbench\n\ndef verify(candidate, env):\n"
     "    return 'PASS'\n", "No module named 'no_such_module_for_monitorbench'"),
    ("x = 1\n", "defines no callable verify"),
])
def test_a_verifier_that_does_not_load_is_reported_once_before_any_case(
        tmp_path: Path, suites_dir: Path, task_id: str, source: str, reason: str) -> None:
    v = _write(tmp_path, "broken", source)
    r = _score(v, task_id, suites_dir)
    assert r.returncode == 1
    both = r.stderr + r.stdout
    assert both.count(reason) == 1, both
    # before any case: unbuffered, one stream, the report precedes the first row
    merged = subprocess.run([shutil.which("monitorbench"), "score", str(v), "--task", task_id,
                             "--suites-dir", str(suites_dir)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=300,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}).stdout
    assert merged.index("verifier does not load") < merged.index(task_id + ".")
    rows = _rows(r.stdout, task_id)
    assert len(rows) == len(load_suite(suites_dir / "bfcl").cases[task_id])
    assert all(row[4] == "U" and "see the load error above" in " ".join(row) for row in rows)


def test_the_load_check_never_runs_the_verifier_in_the_framework_process(
        tmp_path: Path, suites_dir: Path, task_id: str) -> None:
    """Module-level code that writes a host file: it runs only in the sandbox, where the host's
    /tmp is not visible, so the file never appears and the failure is reported once."""
    marker = tmp_path / "ran-on-the-host"
    v = _write(tmp_path, "sneaky", f"open({str(marker)!r}, 'w').write('x')\n\n"
                                   "def verify(candidate, env):\n    return 'PASS'\n")
    r = _score(v, task_id, suites_dir)
    assert not marker.exists()
    assert r.returncode == 1 and r.stderr.count("verifier does not load") == 1


def test_u_reasons_are_printed_in_full(tmp_path: Path, suites_dir: Path, task_id: str) -> None:
    v = _write(tmp_path, "crashes", CRASHES_LONG)
    r = _score(v, task_id, suites_dir)
    assert r.returncode == 0
    rows = [line for line in r.stdout.splitlines() if line.startswith(task_id + ".")]
    assert rows and all(line.rstrip().endswith("mid-word END (at main.py:2)") for line in rows)


def test_model_judge_access_has_no_program_to_score(tmp_path: Path, suites_dir: Path,
                                                    task_id: str) -> None:
    v = _write(tmp_path, "names", NAMES_ONLY)
    r = _score(v, task_id, suites_dir, "--access", "model_judge")
    assert r.returncode == 2 and "no verifier program" in r.stderr and "raw_parsed" in r.stderr
    typo = _score(v, task_id, suites_dir, "--access", "rawparsed")
    assert typo.returncode == 2 and "invalid choice: 'rawparsed'" in typo.stderr
