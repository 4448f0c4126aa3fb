"""A suite audited by older rules is audited again when it is loaded: a new check reaches the
suites users already built (the τ² tasks C8 'unanswered' excludes would otherwise go on being
judged from a cached suite), and a rule change that excludes nothing keeps ``audit.json``, and so
every run key, byte-identical."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from monitorbench.audit.exclusions import AUDIT_FILE
from monitorbench.audit.prepare import build_suite, load_built
from monitorbench.audit.rules import RULES_FILE, audited_by_these_rules, rules_hash
from monitorbench.suites.source_registry import register_source, unregister_source

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sources"))
from tiny_state import SPEC  # noqa: E402
from tiny_state.build import PLANTED  # noqa: E402


def test_an_audit_by_older_rules_is_redone_on_load_and_keeps_audit_json(tmp_path) -> None:
    register_source(SPEC)
    try:
        root = build_suite(tmp_path, "tiny_state")
        assert audited_by_these_rules(root)
        assert (root / RULES_FILE).read_text().strip() == rules_hash()
        audit = root / AUDIT_FILE
        before = audit.read_bytes()
        excluded = json.loads(before)["excluded"]
        assert any(e["task_id"] == "tiny_state.unanswered" for e in excluded)
        # A suite audited before the 'unanswered' rule existed: its audit lacks the exclusion.
        stale = json.loads(before)
        stale["excluded"] = [e for e in excluded if e["task_id"] != "tiny_state.unanswered"]
        audit.write_text(json.dumps(stale, indent=1, sort_keys=True) + "\n")
        (root / RULES_FILE).write_text("0" * 64 + "\n")
        load_built(root, "tiny_state")
        assert audit.read_bytes() == before
        assert audited_by_these_rules(root)
        stamp = (root / RULES_FILE).stat().st_mtime_ns
        load_built(root, "tiny_state")   # current rules: nothing is redone
        assert audit.read_bytes() == before
        assert (root / RULES_FILE).stat().st_mtime_ns == stamp
    finally:
        unregister_source(SPEC.name)


def test_list_tasks_lists_the_judged_tasks_and_counts_the_excluded(tmp_path, capsys) -> None:
    """`monitorbench list tasks` gives the ids `score --task` may judge: the tasks the audit
    excluded are counted on stderr with the file that says why, not listed."""
    from monitorbench import cli_list

    register_source(SPEC)
    try:
        root = build_suite(tmp_path, "tiny_state")
        assert cli_list.main(["tasks", "--suite", "tiny_state", "--suites-dir", str(tmp_path)]) == 0
    finally:
        unregister_source(SPEC.name)
    out, err = capsys.readouterr()
    excluded = {e["task_id"] for e in json.loads((root / AUDIT_FILE).read_text())["excluded"]}
    assert out.split() == ["tiny_state.clean"] and "tiny_state.clean" not in excluded
    assert f"1 task in {root} ({len(excluded)} more excluded by the audit" in err


def test_a_build_and_audit_in_a_log_write_lines_not_bars(tmp_path, capsys, caplog) -> None:
    """Outside a terminal (a Slurm log, `tee`) the audit's progress is a line per 10 %, never a
    bar redrawn with carriage returns into the log (README line 1's log had them)."""
    import logging

    caplog.set_level(logging.INFO, logger="monitorbench")
    register_source(SPEC)
    try:
        build_suite(tmp_path, "tiny_state", progress=True)
    finally:
        unregister_source(SPEC.name)
    assert "\r" not in capsys.readouterr().err
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("audit tiny")]
    n = len(PLANTED)
    assert lines and lines[-1].startswith(f"audit tiny_state: {n}/{n} tasks (100%)")
