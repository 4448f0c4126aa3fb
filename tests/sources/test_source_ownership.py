"""A source owns its in-sandbox runtime and its adaptive-attack operators (issue 19).

``tiny_source`` keeps both in its own folder under tests/ and names them in ``SPEC``; nothing in
``monitorbench/`` names it. These tests run the real pipeline pieces: the run's sandbox spec picks
the runtime the source names, the real bubblewrap sandbox binds that one file (and none of the
source's other files, none of monitorbench), and the real adaptive attacker mutates the tiny
tasks with the tiny operators, or, for a source without operators, records that it did not.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.metadata
import importlib.util
import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

import monitorbench
from monitorbench.attack import run_adaptive_attack
from monitorbench.config import AccessConfig
from monitorbench.errors import InputError
from monitorbench.pipeline.prepare import sandbox_spec
from monitorbench.sandbox.base import Limits
from monitorbench.sandbox.bwrap import BwrapSandbox, bwrap_usable
from monitorbench.sandbox.image import closure, image_name
from monitorbench.sandbox.factory import make_sandbox
from monitorbench.suites.format import TASK_TYPES, load_suite
from monitorbench.suites.sandbox_image import image_recipe
from monitorbench.suites.source_registry import (get_source, register_source, source_names,
                                                 unregister_source)
from monitorbench.suites.source_spec import SourceSpec
from pipeline_helpers import ROOT
from tiny_source import SPEC
from tiny_source.attack import MUTATIONS
from tiny_source.build import build_tiny_suite

HERE = Path(__file__).resolve().parent
needs_bwrap = pytest.mark.skipif(not bwrap_usable(), reason="bwrap cannot run here")

# Reports what the sandbox shows of the runtime and of the source, and replays the calls.
PROBE = '''import json, os

def verify(candidate, env):
    seen = {"runtime": sorted(os.listdir("/mb/runtime")),
            "loader": sorted(os.listdir("/mb/runtimes")),
            "leaks": [p for p in HOST_PATHS if os.path.exists(p)],
            "results": env.run_public(candidate["calls"])}
    print(json.dumps(seen))
    return "PASS"
'''

# Weak: checks that the calls name the instruction's tool, never their values.
NAMES_ONLY = '''import re

def verify(candidate, env):
    verb = re.match(r"(Add|Multiply)", env.task["instruction"]).group(1).lower()
    calls = candidate.get("calls") or []
    return "PASS" if [c.get("name") for c in calls] == [verb] else "FAIL"
'''


@pytest.fixture()
def tiny_suite(tmp_path: Path):
    register_source(SPEC)
    yield load_suite(build_tiny_suite(tmp_path / "suites" / "tiny"))
    unregister_source(SPEC.name)


def _verifiers(root: Path, task_ids, source: str) -> dict[str, Path]:
    out = {}
    for tid in task_ids:
        (root / tid).mkdir(parents=True)
        (root / tid / "main.py").write_text(source)
        out[tid] = root / tid
    return out


def _attack(suite, vdirs, out_dir: Path, budget: int) -> dict[str, float]:
    spec = sandbox_spec("tiny", "tool_call", AccessConfig(), Limits(wall_seconds=5.0),
                        (str(out_dir.parent.resolve()),))
    return run_adaptive_attack(
        [suite.tasks[t] for t in sorted(suite.tasks)], suite.cases, suite.references, vdirs,
        sandbox=make_sandbox("bwrap"), spec_for=lambda t: spec,
        public_dir_for=lambda t: suite.public_dir(t.task_id), budget=budget, seed=0,
        out_dir=out_dir)


@needs_bwrap
def test_the_sandbox_binds_the_runtime_the_source_names_and_nothing_else(
        tiny_suite, tmp_path: Path) -> None:
    executing = sandbox_spec("tiny", "tool_call", AccessConfig(), Limits(wall_seconds=10.0),
                             (str(tmp_path.resolve()),), executes=True)
    assert executing.runtime == SPEC.runtime == "tiny_source.runtime"
    assert sandbox_spec("tiny", "tool_call", AccessConfig(), Limits(), ()).runtime == "none"
    secrets = [HERE / "tiny_source" / "reference.py", HERE / "tiny_source" / "build.py",
               HERE / "tiny_source" / "__init__.py", Path(monitorbench.__file__).parent]
    vdir = tmp_path / "probe"
    vdir.mkdir()
    (vdir / "main.py").write_text(f"HOST_PATHS = {[str(p) for p in secrets]!r}\n" + PROBE)
    task = sorted(tiny_suite.tasks)[0]  # "Add 2 and 3"
    calls = [{"name": "add", "arguments": {"a": 2, "b": 3}},
             {"name": "multiply", "arguments": {"a": 4, "b": 5}}, {"name": "pow"}]
    with BwrapSandbox().session(vdir, tiny_suite.public_dir(task), executing) as s:
        v = s.judge({"calls": calls})
    assert (v.decision, v.executions) == ("PASS", 1), v
    seen = json.loads(v.stdout)
    assert seen["runtime"] == ["runtime.py"] and seen["loader"] == ["__init__.py"]
    assert seen["leaks"] == []
    assert seen["results"] == [5, 20, "error: no tool 'pow'"]


@needs_bwrap
def test_the_attacker_mutates_with_the_operators_the_source_owns(tiny_suite, tmp_path: Path
                                                                 ) -> None:
    """A verifier that ignores argument values rejects every static attack, and the search
    breaks every task with mutants built only from tiny_source.attack's operators."""
    ids = sorted(tiny_suite.tasks)
    m = _attack(tiny_suite, _verifiers(tmp_path / "v", ids, NAMES_ONLY), tmp_path / "out", 5)
    assert m["attack/tasks_broken_static"] == 0.0 and m["attack/tasks_without_operators"] == 0
    assert m["attack/tasks_found"] == len(ids) == m["attack/n_tasks_broken_adaptive"]
    found = [json.loads(p.read_text()) for p in (tmp_path / "out" / "found").glob("*.json")]
    assert len(found) == len(ids)
    used = {name for rec in found for name in rec["mutations"]}
    assert "off_by_one" in used and used <= set(MUTATIONS)
    tasks = json.loads((tmp_path / "out" / "attack.json").read_text())["tasks"]
    assert all(t["operators"] and set(t["counts_by_mutation"]) <= set(MUTATIONS) for t in tasks)


@needs_bwrap
def test_a_source_without_operators_is_judged_and_its_skip_recorded(tmp_path: Path) -> None:
    """No other source's operators are borrowed: the cases are judged (static numbers stand),
    nothing is searched, and attack.json and the metrics say why."""
    bare = dataclasses.replace(SPEC, attack=None)
    register_source(bare)
    try:
        suite = load_suite(build_tiny_suite(tmp_path / "suites" / "tiny"))
        ids = sorted(suite.tasks)
        m = _attack(suite, _verifiers(tmp_path / "v", ids, NAMES_ONLY), tmp_path / "out", 5)
    finally:
        unregister_source(bare.name)
    assert m["attack/tasks_without_operators"] == len(ids) == m["attack/tasks_attacked"]
    assert m["attack/queries"] == 0 and m["attack/tasks_found"] == 0
    assert m["attack/fpr_h_static"] == m["attack/fpr_h_adaptive"] == 0.0
    lines = (tmp_path / "out" / "judgments.jsonl").read_text().splitlines()
    assert len(lines) == suite.n_cases()
    tasks = json.loads((tmp_path / "out" / "attack.json").read_text())["tasks"]
    assert [t["operators"] for t in tasks] == [False] * len(ids)


def test_a_runtime_is_named_by_module_path() -> None:
    with pytest.raises(InputError) as e:
        SourceSpec(name="x", task_type="state", builder="x.build:b", runtime="agentdojo")
    assert e.value.field == "SourceSpec('x').runtime" and "package.module" in e.value.fix
    with pytest.raises(InputError) as e:
        SourceSpec(name="x", task_type="state", builder="x.build:b", attack="x.attack")
    assert e.value.field == "SourceSpec('x').attack"


def _source_module(module: str, names: set[str]) -> bool:
    """A source's package, or a third-party package named like a source (e.g. its benchmark)."""
    return module.startswith("monitorbench.sources") or module.split(".")[0] in names


def _named_sources(path: Path, names: set[str]) -> list[str]:
    """Imports of a source's package and string literals (docstrings aside) naming a source."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef))
                  and n.body and isinstance(n.body[0], ast.Expr)}
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _source_module(node.module or "", names):
            hits.append(f"{path}:{node.lineno} imports {node.module}")
        elif isinstance(node, ast.Import):
            hits += [f"{path}:{node.lineno} imports {a.name}" for a in node.names
                     if _source_module(a.name, names)]
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docstrings
              and (node.value in names or "monitorbench.sources" in node.value)):
            hits.append(f"{path}:{node.lineno} names {node.value!r}")
    return hits


def test_the_attacker_and_the_sandbox_name_no_source(tiny_suite) -> None:
    """What a source owns is reached through its spec only: no module of the attacker or the
    sandbox imports a source package or branches on a source's name."""
    names = set(source_names()) - set(TASK_TYPES)  # "code" is a task type as well as a source
    assert {"bfcl", "agentdojo", "tiny"} <= names
    hits = [h for layer in ("attack", "sandbox")
            for p in sorted((ROOT / "monitorbench" / layer).rglob("*.py"))
            for h in _named_sources(p, names)]
    assert hits == []


def _third_party_imports(runtime: str) -> set[str]:
    """Top-level modules a runtime file imports that are neither stdlib nor relative."""
    tree = ast.parse(Path(importlib.util.find_spec(runtime).origin).read_text(encoding="utf-8"))
    mods = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    mods |= {n.module for n in ast.walk(tree)
             if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module}
    return {m.split(".")[0] for m in mods} - set(sys.stdlib_module_names) - {"__future__"}


def test_the_docker_image_carries_what_each_sources_runtime_imports() -> None:
    """Each built-in runtime's third-party imports come from its own spec's
    sandbox_distributions (with their requirements), and the image's recipe is the union of the
    registered sources' lists: registering a source that names one more distribution changes
    the image, removing it changes it back."""
    providers = importlib.metadata.packages_distributions()
    for name in source_names():
        spec = get_source(name)
        if spec.runtime == "none" or not spec.runtime.startswith("monitorbench."):
            continue
        carried = set(closure(spec.sandbox_distributions))
        for module in _third_party_imports(spec.runtime):
            assert {re.sub(r"[-_.]+", "-", d).lower() for d in providers[module]} & carried, \
                (name, module)
    before = image_recipe()
    assert set(before.distributions) == {d for n in source_names()
                                         for d in get_source(n).sandbox_distributions}
    extra = dataclasses.replace(SPEC, name="tiny_with_filelock",
                                sandbox_distributions=("filelock",))
    register_source(extra)
    try:
        assert image_recipe().distributions == tuple(sorted({*before.distributions, "filelock"}))
        assert image_name(image_recipe()) != image_name(before)
    finally:
        unregister_source(extra.name)
    assert image_name(image_recipe()) == image_name(before)
