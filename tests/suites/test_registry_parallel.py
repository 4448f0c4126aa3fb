"""prepare.ensure_suites (suites.registry's, with the audit): missing suites are built in spawned worker processes, concurrently.

Real builders throughout: the error test sends two suites with an option their builders lack to
two workers (each imports its real builder and refuses the option), the build test builds and
audits two real code slices at once from the pinned bugs.
"""

from __future__ import annotations

import pytest

from monitorbench.errors import InputError
from monitorbench.audit.prepare import ensure_suite, ensure_suites
from monitorbench.suites.registry import suite_dir


def test_a_worker_input_error_reaches_the_caller_with_its_fields(tmp_path):
    with pytest.raises(InputError) as e:
        ensure_suites(tmp_path, [("bfcl", {"nope": 1}), ("code", {"nope": 2})])
    assert e.value.field == "task.suites[bfcl].options.nope"
    assert "builder has no option" in e.value.problem and e.value.fix
    assert not any(p.name.startswith(("bfcl", "code")) for p in tmp_path.iterdir())


@pytest.mark.slow
def test_two_missing_code_slices_are_built_at_once_and_loaded_in_order(tmp_path):
    # Both suites are missing: each is built and audited in a spawned worker, at once. The
    # workers share the session's code cache (outputs/cache, safe for concurrent builds), where
    # tests/conftest.py's code_slice (the toolz options here) builds toolz's bugs and cases once
    # per run; what is tested is two suite builds at once, not the size or freshness of each.
    wanted = [("code", {"libraries": ["inflection"], "tasks_per_library": 1}),
              ("code", {"libraries": ["toolz"], "tasks_per_library": 1})]
    suites = ensure_suites(tmp_path / "suites", wanted)
    assert [sorted(s.tasks)[0].split(".")[1] for s in suites] == ["inflection", "toolz"]
    for (name, options), suite in zip(wanted, suites):
        root = suite_dir(tmp_path / "suites", name, options)
        assert (root / "builder.json").is_file()
        assert ensure_suite(tmp_path / "suites", name, options).manifest == suite.manifest
