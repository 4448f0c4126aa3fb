"""Run a library's pytest in a subprocess and read back per-test outcomes two independent ways.

Every run writes a junit XML report (pytest's own reporting) and an outcome record from the
``_mb_grader_outcomes`` plugin (what each test actually raised, see that module). Both are read;
a test counts as passed only when both say so, and any disagreement, a missing or empty report,
or a replaced reporting function is an integrity problem. Per-test timeouts (pytest-timeout) and a
global wall clock that kills the process group are mandatory: one boltons mutant ran 422 s.
"""

from __future__ import annotations

import compileall
import json
import os
import py_compile
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from monitorbench.sources.code.runtime import run_capped, command_env
from monitorbench.sources.code.libraries import LibrarySpec

PLUGIN_DIR = Path(__file__).resolve().parent / "plugin"
PLUGIN = "_mb_grader_outcomes"
PER_TEST_TIMEOUT_S = 10
RUN_TIMEOUT_S = 180.0


def pytest_command(spec: LibrarySpec, targets: Sequence[str], junit: Path,
                   per_test_timeout: int, rootdir: Path) -> list[str]:
    """The exact command line; ``-P`` keeps a module planted in the checkout's root from
    shadowing pytest or the outcome plugin (the checkout is on the path via PYTHONPATH only).
    ``--rootdir`` pins node ids to the checkout: a checkout cached inside a project whose
    pyproject.toml configures pytest would otherwise get ids relative to that project, and the
    baseline's ids would not match the graders' (measured: every inflection task lost)."""
    return [sys.executable, "-P", "-m", "pytest", "-p", "no:cacheprovider", "-p", "pytest_timeout",
            "-p", PLUGIN, "-o", "addopts=", "-o", "junit_family=xunit2", "-q", "-rN",
            f"--rootdir={rootdir}", f"--timeout={per_test_timeout}", f"--junitxml={junit}",
            *spec.pytest_args, *targets]


def junit_key(nodeid: str) -> tuple[str, str]:
    """The (classname, name) pytest's junitxml writes for ``nodeid`` (its mangle_test_address)."""
    base, bracket, params = nodeid.partition("[")
    names = base.split("::")
    names[-1] += bracket + params
    path = names[0].replace("/", ".")
    if path.endswith(".py"):
        path = path[:-3]
    return ".".join([path, *names[1:-1]]), names[-1]


def _read_junit(path: Path) -> dict[tuple[str, str], str] | None:
    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        return None
    result: dict[tuple[str, str], str] = {}
    for tc in root.iter("testcase"):
        key = (tc.get("classname", ""), tc.get("name", ""))
        tags = {child.tag for child in tc}
        if "failure" in tags:
            outcome = "failed"
        elif "error" in tags:
            outcome = "error"
        elif "skipped" in tags:
            outcome = "skipped"
        else:
            outcome = "passed"
        # A test reported twice (call failure then teardown error) keeps its worst outcome.
        if result.get(key, "passed") == "passed":
            result[key] = outcome
    return result


def _read_record(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) and data.get("complete") is True else None


@dataclass
class TestRun:
    """What one pytest run produced. ``outcome(nodeid)`` is the agreed per-test outcome."""

    exit_code: int
    timed_out: bool
    output: str
    seconds: float
    junit: dict[tuple[str, str], str] | None
    raw: dict[str, str] | None
    tampered: list[str] = field(default_factory=list)

    __test__ = False  # not a pytest test class, despite the name

    def outcome(self, nodeid: str) -> str:
        """passed / failed / error / skipped when both records agree; missing or mismatch else."""
        if self.junit is None or self.raw is None:
            return "missing"
        j = self.junit.get(junit_key(nodeid))
        r = self.raw.get(nodeid)
        if j is None or r is None:
            return "missing"
        return j if j == r else "mismatch"

    def problems(self) -> list[str]:
        """Integrity problems that make the whole run unusable as evidence of passing."""
        out = []
        if self.timed_out:
            out.append("global timeout")
        if self.junit is None:
            out.append("junit report missing or empty")
        elif not self.junit:
            out.append("junit report lists no tests")
        if self.raw is None:
            out.append("outcome record missing (process ended early?)")
        out += [f"reporting tampered: {t}" for t in self.tampered]
        if self.junit is not None and self.raw is not None:
            raw_keys = {junit_key(n): o for n, o in self.raw.items()}
            if set(raw_keys) != set(self.junit):
                out.append("junit and outcome record list different tests")
            elif any(raw_keys[k] != self.junit[k] for k in raw_keys):
                out.append("junit and outcome record disagree on outcomes")
            clean = bool(self.junit) and all(v in ("passed", "skipped")
                                             for v in self.junit.values())
            if clean != (self.exit_code == 0):
                out.append(f"exit code {self.exit_code} contradicts the junit report")
        return out

    def passed_ids(self) -> list[str]:
        return sorted(n for n in (self.raw or {}) if self.outcome(n) == "passed")


def run_pytest(workdir: Path, spec: LibrarySpec, targets: Sequence[str], *,
               per_test_timeout: int = PER_TEST_TIMEOUT_S, timeout: float = RUN_TIMEOUT_S,
               output_chars: int = 20000, write_bytecode: bool = False) -> TestRun:
    """Run ``targets`` (node ids or paths) of ``spec``'s tests in ``workdir`` and collect outcomes.
    Runs never write bytecode into the tree they test, except :func:`precompile`'s."""
    with tempfile.TemporaryDirectory(prefix="mb-run-") as tmp:
        junit = Path(tmp) / "junit.xml"
        record = Path(tmp) / "outcomes.json"
        env = command_env(MB_OUTCOMES_FILE=str(record),
                       PYTHONPATH=os.pathsep.join([str(PLUGIN_DIR)] + [str(workdir / p)
                                                                       for p in spec.pythonpath]))
        if write_bytecode:
            del env["PYTHONDONTWRITEBYTECODE"]
        t0 = time.monotonic()
        code, out, timed_out = run_capped(
            pytest_command(spec, targets, junit, per_test_timeout, workdir), str(workdir), env,
            timeout, output_chars)
        rec = _read_record(record)
        return TestRun(exit_code=code, timed_out=timed_out, output=out,
                       seconds=time.monotonic() - t0, junit=_read_junit(junit),
                       raw=None if rec is None else dict(rec.get("outcomes", {})),
                       tampered=list(rec.get("tampered", [])) if rec else [])


def compile_sources(tree: Path, paths: Sequence[str] | None = None) -> None:
    """Write checked-hash bytecode for ``paths`` (relative ``.py`` paths; all of ``tree``'s when
    None). Checked-hash, not timestamp, bytecode: Python then hashes the source at every import
    and recompiles in memory when it differs, so a copy whose source a patch or a mutation
    changed (within the same second, to the same size) never runs the stale bytecode."""
    mode = py_compile.PycInvalidationMode.CHECKED_HASH
    if paths is None:
        compileall.compile_dir(str(tree), quiet=2, invalidation_mode=mode)
        return
    for rel in paths:
        if rel.endswith(".py") and (tree / rel).is_file():
            py_compile.compile(str(tree / rel), invalidation_mode=mode, doraise=False)


def precompile(tree: Path, spec: LibrarySpec) -> None:
    """Compile a checkout that every later test run copies, so those runs read bytecode instead
    of compiling the library and pytest-rewriting its test modules each time (toolz's graded
    runs fell from 0.70 to 0.29 CPU-seconds; tabulate's, whose tests dominate, 8 %).

    The sources get checked-hash bytecode (:func:`compile_sources`). The test modules get
    pytest's assertion-rewritten bytecode from one collection run that may write it: pytest
    keys that on the file's mtime and size, which holds because every run's test files are the
    pristine ones, copied with their mtimes (the grader restores any a candidate touched;
    mutations change only library sources). A module that fails to collect just gets none."""
    compile_sources(tree)
    run_pytest(tree, spec, ["--collect-only", *spec.test_paths], write_bytecode=True)
