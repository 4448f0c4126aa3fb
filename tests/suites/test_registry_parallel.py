"""prepare.ensure_suites (suites.registry's, with the audit): missing suites are built in spawned worker processes, concurrently.

Real builders throughout: the error test sends two suites with an option their builders lack to
two workers (each imports its real builder and refuses the option), the build test builds and
audits a real code slice and a real BFCL slice at once.
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
def test_two_missing_suites_are_built_at_once_and_loaded_in_the_order_asked(tmp_path):
    # Both suites are missing: each is built and audited in its own spawned worker, at once.
    # The code slice (inflection, which no other test builds) is asked for first and takes
    # ~30x longer than the small BFCL slice, so the BFCL worker finishes first: the results
    # still come back in the order asked. The code worker builds in the session's code cache
    # (outputs/cache); two processes unpacking one cache at once is tests/sources/test_code.py's.
    wanted = [("code", {"libraries": ["inflection"], "tasks_per_library": 1}),
              ("bfcl", {"tasks_per_category": 2})]
    suites = ensure_suites(tmp_path / "suites", wanted)
    assert [s.name for s in suites] == ["code", "bfcl"]
    assert sorted(suites[0].tasks)[0].split(".")[1] == "inflection"
    assert len(suites[1].tasks) == 8  # 2 per BFCL category
    built = {}
    for (name, options), suite in zip(wanted, suites):
        root = suite_dir(tmp_path / "suites", name, options)
        built[name] = (root / "builder.json").stat().st_mtime
        assert ensure_suite(tmp_path / "suites", name, options).manifest == suite.manifest
    assert built["bfcl"] < built["code"]  # at once: one after the other, code would end first
