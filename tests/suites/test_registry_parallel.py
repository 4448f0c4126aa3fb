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


def test_a_spawned_builder_logs_its_build_and_audit_seconds_as_bench_task_all_reads_them(
        tmp_path):
    """A worker process starts with logging unconfigured; its build and audit lines must still
    reach stderr, in the form bench/task_all.py parses into phases."""
    import importlib.util
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("task_all", repo / "bench" / "task_all.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    code = ("import sys; from pathlib import Path; from monitorbench.suites import registry; "
            "from monitorbench.audit.prepare import audit_built; "
            "registry._build_reporting(Path(sys.argv[1]), 'bfcl', {'tasks_per_category': 1}, "
            "audit_built)")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=repo,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    built = bench.BUILT.search(proc.stderr)
    audited = bench.AUDITED.search(proc.stderr)
    assert built and built[1] == "bfcl" and float(built[3]) <= float(built[2]), proc.stderr
    assert audited and audited[1] == "bfcl" and audited[3] == "4", proc.stderr
