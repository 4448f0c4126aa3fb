"""The judgment store: nothing lost on a kill, nothing judged twice on resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from monitorbench.errors import InputError
from monitorbench.judging.records import Judgment, Outcome, UReason
from monitorbench.judging.store import JudgmentStore


def _dict(i: int, **kw) -> dict:
    base = {"task_id": "t", "task_type": "tool_call", "case_id": f"c{i:04d}", "group": "gold",
            "category": "gold", "label": "PASS", "outcome": "P", "reason": "", "detail": "",
            "confidence": None, "seconds": 0.001, "executions": 0, "round": 1,
            "access": "raw_parsed", "verifier_hash": "v", "case_hash": "h", "suite_hash": "s"}
    base.update(kw)
    return base


def _rec(i: int, **kw) -> Judgment:
    return Judgment.from_dict(_dict(i, **kw))


def record_key(j: Judgment) -> tuple:
    return j.key


def test_records_survive_reopen_and_duplicates_are_ignored(tmp_path: Path) -> None:
    s = JudgmentStore(tmp_path / "j.jsonl")
    for i in range(5):
        s.append(_rec(i))
    s.append(_rec(2, outcome="F"))  # same key: the first judgment stands
    s.close()
    s2 = JudgmentStore(tmp_path / "j.jsonl")
    assert len(s2) == 5
    assert record_key(_rec(2)) in s2
    assert [r.outcome for r in s2.records() if r.case_id == "c0002"] == [Outcome.P]
    assert len((tmp_path / "j.jsonl").read_text().splitlines()) == 5


def test_a_different_round_or_verifier_is_a_different_judgment(tmp_path: Path) -> None:
    s = JudgmentStore(tmp_path / "j.jsonl")
    s.append(_rec(0))
    s.append(_rec(0, round=2))
    s.append(_rec(0, verifier_hash="other"))
    assert len(s) == 3


def test_torn_last_line_is_repaired_not_fatal(tmp_path: Path) -> None:
    p = tmp_path / "j.jsonl"
    good = json.dumps(_dict(0)) + "\n"
    p.write_text(good + '{"task_id": "t", "case_')
    s = JudgmentStore(p)
    assert len(s) == 1 and s.repaired_bytes > 0
    s.append(_rec(1))
    s.close()
    lines = p.read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(x) for x in lines)


def test_incomplete_record_is_refused(tmp_path: Path) -> None:
    bad = _dict(0)
    del bad["label"]
    with pytest.raises(InputError, match="label"):
        Judgment.from_dict(bad)
    with pytest.raises(TypeError, match="Judgment"):
        JudgmentStore(tmp_path / "j.jsonl").append(bad)  # type: ignore[arg-type]


def test_judgments_written_before_sigkill_are_all_there(tmp_path: Path) -> None:
    """A writer killed mid-stream loses nothing it had appended."""
    p = tmp_path / "j.jsonl"
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
        from monitorbench.judging.records import Judgment
        from monitorbench.judging.store import JudgmentStore
        s = JudgmentStore({str(p)!r})
        base = {_dict(0)!r}
        for i in range(100000):
            s.append(Judgment.from_dict(dict(base, case_id=f"c{{i:06d}}")))
            print(i, flush=True)
            time.sleep(0.001)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    last = -1
    deadline = time.time() + 30
    while last < 200 and time.time() < deadline:
        last = int(proc.stdout.readline())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    s = JudgmentStore(p)
    assert len(s) >= last + 1  # every append acknowledged before the kill is on disk


def test_sandbox_failures_are_judged_again_on_resume(tmp_path: Path) -> None:
    """A case whose sandbox died (e.g. Slurm signalled the job's process tree) is not done."""
    p = tmp_path / "j.jsonl"
    s = JudgmentStore(p)
    s.append(_rec(0))
    s.append(_rec(1, outcome="U", reason="sandbox_error", detail="worker killed"))
    s.close()
    s2 = JudgmentStore(p)
    assert record_key(_rec(0)) in s2 and record_key(_rec(1)) not in s2
    assert len(s2) == 1 and len(s2.records()) == 2  # still reported until replaced
    s2.append(_rec(1, outcome="F"))
    s2.close()
    s3 = JudgmentStore(p)
    assert len(s3) == 2
    assert [r.outcome for r in s3.records() if r.case_id == "c0001"] == [Outcome.F]


def test_a_sandbox_error_is_not_done_within_the_run_either(tmp_path: Path) -> None:
    """The judging loop retries a sandbox error at once: the failed attempt is persisted, but the
    case stays pending in this process too, and the retry's judgment replaces it."""
    p = tmp_path / "j.jsonl"
    s = JudgmentStore(p)
    s.append(_rec(0, outcome="U", reason="sandbox_error", detail="attempt 1 of 3: worker exited"))
    assert record_key(_rec(0)) not in s and len(s) == 0
    assert [r.reason for r in s.records()] == [UReason.sandbox_error]  # reported until replaced
    s.append(_rec(0, outcome="P"))
    assert record_key(_rec(0)) in s and [r.outcome for r in s.records()] == [Outcome.P]
    s.close()
    assert [json.loads(x)["reason"] for x in p.read_text().splitlines()] == ["sandbox_error", ""]


def test_lines_written_before_the_records_were_typed_load_unchanged(tmp_path: Path) -> None:
    """A run directory from before the Judgment type (the same sorted-key JSON lines) resumes:
    every line loads, and appending writes lines byte-identical to the old format."""
    p = tmp_path / "j.jsonl"
    old = [json.dumps(_dict(i), sort_keys=True, ensure_ascii=False) for i in range(3)]
    p.write_text("\n".join(old) + "\n")
    s = JudgmentStore(p)
    assert len(s) == 3 and {r.case_id for r in s.records()} == {"c0000", "c0001", "c0002"}
    s.append(_rec(3, outcome="U", reason="timeout", detail="10 s"))
    s.close()
    lines = p.read_text().splitlines()
    assert lines[:3] == old
    assert lines[3] == json.dumps(_dict(3, outcome="U", reason="timeout", detail="10 s"),
                                  sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize("field,value,problem", [
    ("outcome", "PASS", "one of P, F, U"),
    ("reason", "oops", "sandbox_error"),
    ("round", 0, ">= 1"),
    ("group", "golden", "gold"),
    ("seconds", "1.0", "a number"),
])
def test_a_bad_line_names_the_file_the_line_and_the_field(
        tmp_path: Path, field: str, value: object, problem: str) -> None:
    p = tmp_path / "j.jsonl"
    lines = [json.dumps(_dict(0)), json.dumps(_dict(1, **{field: value})), json.dumps(_dict(2))]
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as e:
        JudgmentStore(p)
    assert e.value.file == str(p) and e.value.field == f"line 2.{field}"
    assert problem in e.value.problem


def test_a_corrupt_line_before_the_last_is_an_error_not_a_silent_truncation(
        tmp_path: Path) -> None:
    """Only a kill's torn last line is repaired; garbage in the middle would lose every later
    judgment if it were truncated, so it is reported instead and the file left as it is."""
    p = tmp_path / "j.jsonl"
    text = json.dumps(_dict(0)) + "\n{not json\n" + json.dumps(_dict(2)) + "\n"
    p.write_text(text)
    with pytest.raises(InputError, match="line 2"):
        JudgmentStore(p)
    assert p.read_text() == text


def test_enums_compare_equal_to_the_strings_on_disk() -> None:
    j = _rec(0, outcome="U", reason="sandbox_error")
    assert j.outcome == "U" and j.reason == "sandbox_error" and j.retryable
    assert j.to_dict() == _dict(0, outcome="U", reason="sandbox_error")
    assert Judgment.from_dict(j.to_dict()) == j


def test_a_repaired_torn_line_is_reported_once_naming_the_file(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    p = tmp_path / "j.jsonl"
    s = JudgmentStore(p)
    s.append(_rec(0))
    s.close()
    with open(p, "a") as f:
        f.write(json.dumps(_dict(1))[:40])  # a kill mid-write
    with caplog.at_level("WARNING", logger="monitorbench.judging.store"):
        JudgmentStore(p).close()
        JudgmentStore(p).close()   # repaired: nothing left to report
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and str(p) in said[0] and "torn last line (40 bytes)" in said[0]


WRITE_PAST_A_LIMIT = textwrap.dedent('''
    import resource, signal, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[2])
    from test_store import _rec
    from monitorbench.errors import MonitorbenchError
    from monitorbench.judging.store import JudgmentStore
    store = JudgmentStore(Path(sys.argv[1]))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # the write fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    try:
        for i in range(1000):
            store.append(_rec(i))
        store.close()
    except MonitorbenchError as e:
        print(e)
        sys.exit(3)
''')


def test_a_write_the_disk_refuses_names_the_file_and_says_resuming_is_safe(
        tmp_path: Path) -> None:
    """The kernel refuses the write (a file-size limit stands in for a full disk: the same
    failed write(2), EFBIG instead of ENOSPC); the store says which file and that a re-run
    resumes, and what it wrote before is intact."""
    p = tmp_path / "j.jsonl"
    r = subprocess.run([sys.executable, "-c", WRITE_PAST_A_LIMIT, str(p),
                        str(Path(__file__).parent)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 3, r.stderr[-2000:]
    assert f"cannot write judgments to {p}" in r.stdout and "safe to free space" in r.stdout
    assert "Traceback" not in r.stderr
    kept = JudgmentStore(p)   # a torn last line, if any, is repaired; the rest loads
    assert 0 < len(kept) < 1000 and os.path.getsize(p) <= 4096
