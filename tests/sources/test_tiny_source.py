"""A source added from tests/ alone: registered, built, audited and judged end to end.

``tiny_source`` (this folder) is a whole task source: builder, reference verifier, mutants,
in-sandbox runtime and attack operators, described by one ``SourceSpec``. Nothing in ``monitorbench/`` or ``conf/`` names it; the tests
below register it, build and audit it through the path every run uses, and judge it through the
real run pipeline (scripted and replayed verifiers in the bubblewrap sandbox, metrics computed).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from monitorbench.audit.exclusions import read_exclusions
from monitorbench.audit.prepare import build_suite, ensure_suite
from monitorbench.launch.run import run_job
from monitorbench.suites.source_registry import register_source, source_names, unregister_source
from monitorbench.suites.registry import check_builder_version, masked_paths, source_info
from pipeline_helpers import ROOT, compose_cfg
from tiny_source import SPEC

HERE = Path(__file__).resolve().parent

# A correct verifier for the tiny tasks, written like a generated one: it reads only the public
# task (``env.task``, its task.json) and the candidate, and runs inside the sandbox.
CORRECT = '''import json, re

def verify(candidate, env):
    verb, a, b = re.match(r"(Add|Multiply) (\\d+) and (\\d+)", env.task["instruction"]).groups()
    want = [{"name": verb.lower(), "arguments": {"a": int(a), "b": int(b)}}]
    try:
        raw = json.loads(candidate["raw"])
    except ValueError:
        return "FAIL"
    return "PASS" if raw == candidate["calls"] == want else "FAIL"
'''


@pytest.fixture()
def tiny():
    register_source(SPEC)
    yield SPEC
    unregister_source(SPEC.name)


def test_the_source_lives_in_tests_and_the_framework_never_names_it(tiny) -> None:
    modules = [SPEC.builder.partition(":")[0], SPEC.mutants, *SPEC.references.values(),
               SPEC.runtime, SPEC.attack.partition(":")[0]]
    for mod in modules:
        assert Path(importlib.util.find_spec(mod).origin).is_relative_to(HERE / "tiny_source")
    for folder in ("monitorbench", "conf"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".yaml", ".json", ".toml"):
                text = path.read_text(encoding="utf-8")
                assert "tiny_source" not in text and "tiny.exact_call" not in text, path
    assert "tiny" in source_names() and source_info("tiny").runtime == "tiny_source.runtime"
    assert masked_paths("tiny") == ()


def test_building_audits_the_suite_with_the_source_reference_and_mutants(tiny, tmp_path) -> None:
    root = build_suite(tmp_path, "tiny")
    check_builder_version(root, "tiny")
    assert read_exclusions(root)["excluded"] == [] and read_exclusions(root)["tasks_audited"] == 5
    report = json.loads((root / "audit" / "report.json").read_text())
    c6 = [t["checks"]["C6"] for t in report["tasks"]]
    assert len(c6) == 5 and all(c["passed"] for c in c6)
    assert {op for c in c6 for op in c["details"]["operators"]} == \
        {"skip_raw_check", "skip_names_check", "skip_values_check"}
    suite = ensure_suite(tmp_path, "tiny")
    assert sorted(suite.tasks) == [f"tiny.t{i}" for i in range(5)] and suite.n_cases() == 30


def test_an_undetected_mutant_excludes_the_task(tiny, tmp_path, monkeypatch) -> None:
    """The audit really runs the source's mutants: with two cases removed from the build, the
    values-check and raw-check mutants go undetected and C6 excludes every task."""
    from tiny_source import build as tiny_build

    real = tiny_build._cases
    monkeypatch.setattr(tiny_build, "_cases", lambda *a: [
        c for c in real(*a) if c.category not in ("wrong_value", "raw_disagrees")])
    root = build_suite(tmp_path, "tiny")
    excluded = read_exclusions(root)["excluded"]
    assert len(excluded) == 5
    assert all({r["code"] for r in e["reasons"]} == {"C6"} for e in excluded)


@pytest.mark.parametrize("generator,expect", [
    ("always_accept", {"tpr": 100.0, "tnr": 0.0}),
    ("always_reject", {"tpr": 0.0, "tnr": 100.0}),
    ("replay", {"tpr": 100.0, "tnr": 100.0}),
])
def test_the_run_pipeline_judges_the_source_in_the_sandbox(tiny, tmp_path, generator,
                                                           expect) -> None:
    overrides = [f"generator={generator}", "task.task_types=[tool_call]",
                 "task.suites=[{name: tiny, options: {}}]", "tracking.enabled=false",
                 "sandbox=bwrap"]
    if generator == "replay":
        for i in range(5):
            (tmp_path / "verifiers" / f"tiny.t{i}").mkdir(parents=True)
            (tmp_path / "verifiers" / f"tiny.t{i}" / "main.py").write_text(CORRECT)
        overrides.append(f"generator.dir={tmp_path / 'verifiers'}")
    m = run_job(compose_cfg(tmp_path / "out", tmp_path / "suites", overrides))
    assert {k: m[k] for k in expect} == expect
    assert m["n_tasks"] == 5 and m["n_cases"] == 30 and m["valid_output_rate"] == 100.0


def test_a_suite_built_from_other_source_files_is_built_again(tiny, tmp_path,
                                                              monkeypatch) -> None:
    """A frozen suite follows the checkout that loads it: loaded as it is while its source's
    package is unchanged, built again once a file of it changes (a record repaired, a builder
    fixed), so no run judges labels the checkout no longer holds. Real files, real builds: the
    tiny source is copied and its copy edited."""
    import shutil
    import sys

    from monitorbench.hashing import tree_hash

    pkg = tmp_path / "src" / "tiny_source"
    shutil.copytree(HERE / "tiny_source", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    original = {m: mod for m, mod in sys.modules.items() if m.split(".")[0] == "tiny_source"}
    for name in original:
        del sys.modules[name]
    monkeypatch.syspath_prepend(str(pkg.parent))
    try:
        suites = tmp_path / "suites"
        root = build_suite(suites, "tiny")
        built = json.loads((root / "builder.json").read_text())["source_code"]
        assert built == tree_hash(pkg)
        (root / "marker").write_text("")
        assert build_suite(suites, "tiny") == root and (root / "marker").exists()
        (pkg / "build.py").write_text((pkg / "build.py").read_text() + "\n# a fix\n")
        assert build_suite(suites, "tiny") == root and not (root / "marker").exists()
        rebuilt = json.loads((root / "builder.json").read_text())["source_code"]
        assert rebuilt == tree_hash(pkg) != built
        assert ensure_suite(suites, "tiny").n_cases() == 30
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == "tiny_source"]:
            del sys.modules[name]
        sys.modules.update(original)
