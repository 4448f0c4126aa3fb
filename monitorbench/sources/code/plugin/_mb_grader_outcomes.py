"""Pytest plugin the hardened grader loads with ``-p`` before the package under test is imported.

It records each test's outcome from what the test *did* (did setup/call/teardown raise?), not from
pytest's ``TestReport`` objects, and snapshots pytest's reporting machinery at load time. A patch
that rewrites reports in-process (monkeypatching ``TestReport.from_item_and_call``, hooks in an
injected conftest) therefore makes this record disagree with the junit XML, or shows up as a
replaced function; either makes the grader's result invalid. Standard library and pytest only:
it is imported from a directory put first on the path of the process under test.
"""

from __future__ import annotations

import _imp
import json
import os
import sys
import unittest

import _pytest.assertion.rewrite
import _pytest.junitxml
import _pytest.reports
import _pytest.runner
import pytest
from _pytest.outcomes import Skipped, XFailed

_OUT = open(os.environ["MB_OUTCOMES_FILE"], "w", encoding="utf-8")  # opened before any test code
_WATCHED = {
    "TestReport.from_item_and_call": (_pytest.reports.TestReport, "from_item_and_call"),
    "TestReport.__init__": (_pytest.reports.TestReport, "__init__"),
    "BaseReport.passed": (_pytest.reports.BaseReport, "passed"),
    "BaseReport.failed": (_pytest.reports.BaseReport, "failed"),
    "runner.call_and_report": (_pytest.runner, "call_and_report"),
    "runner.runtestprotocol": (_pytest.runner, "runtestprotocol"),
    "CallInfo.from_call": (_pytest.runner.CallInfo, "from_call"),
    "LogXML.pytest_runtest_logreport": (_pytest.junitxml.LogXML, "pytest_runtest_logreport"),
    "LogXML.pytest_sessionfinish": (_pytest.junitxml.LogXML, "pytest_sessionfinish"),
}
_ORIGINAL = {k: vars(owner).get(attr) if isinstance(owner, type) else getattr(owner, attr)
             for k, (owner, attr) in _WATCHED.items()}
_SITE = os.path.dirname(os.path.dirname(os.path.abspath(pytest.__file__)))
_outcomes: dict[str, str] = {}


def _relocated(read_pyc):
    """pytest's reader of a cached assertion-rewritten test module, with the code's file names
    set to where the module is now (as importlib does for ordinary bytecode). The grader's
    checkouts carry that bytecode from the tree it was compiled in (testrun.precompile), and a
    test that reads its own source through a traceback (boltons' tbutils) fails on the old
    path. A pytest without the reader fails every run here, never silently."""
    def read(source, pyc, trace=lambda _msg: None):
        co = read_pyc(source, pyc, trace)
        if co is not None:
            _imp._fix_co_filename(co, str(source))
        return co
    return read


_pytest.assertion.rewrite._read_pyc = _relocated(_pytest.assertion.rewrite._read_pyc)


def _kind(exc: BaseException) -> str:
    """pytest reports these three as skipped; everything else raised is a failure."""
    return "skipped" if isinstance(exc, (Skipped, XFailed, unittest.SkipTest)) else "failed"


def _record(nodeid: str, phase: str, exc: BaseException | None) -> None:
    if exc is None:
        if phase == "call" and _outcomes.get(nodeid) == "setup-ok":
            _outcomes[nodeid] = "passed"
        elif phase == "setup":
            _outcomes[nodeid] = "setup-ok"
        return
    kind = _kind(exc)
    if phase == "teardown" and _outcomes.get(nodeid) == "passed" and kind == "failed":
        _outcomes[nodeid] = "error"
    elif phase != "teardown" and _outcomes.get(nodeid) in (None, "setup-ok"):
        _outcomes[nodeid] = kind if phase == "call" or kind == "skipped" else "error"


def _phase(phase: str):
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def hook(item):
        try:
            res = yield
        except BaseException as exc:
            _record(item.nodeid, phase, exc)
            raise
        _record(item.nodeid, phase, None)
        return res
    return hook


pytest_runtest_setup = _phase("setup")
pytest_runtest_call = _phase("call")
pytest_runtest_teardown = _phase("teardown")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    tampered = []
    for key, (owner, attr) in _WATCHED.items():
        now = vars(owner).get(attr) if isinstance(owner, type) else getattr(owner, attr)
        if now is not _ORIGINAL[key]:
            tampered.append(key)
    for mod in ("pytest", "_pytest", "pluggy"):
        m = sys.modules.get(mod)
        if m is None or not os.path.abspath(getattr(m, "__file__", "") or "").startswith(_SITE):
            tampered.append(f"module {mod} not loaded from {_SITE}")
    outcomes = {k: ("error" if v == "setup-ok" else v) for k, v in _outcomes.items()}
    _OUT.write(json.dumps({"complete": True, "outcomes": outcomes, "tampered": tampered}))
    _OUT.close()
