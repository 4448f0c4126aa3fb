"""The source registry: every source described once, found lazily, unknown names explained."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import pytest

from monitorbench.errors import InputError
from monitorbench.suites import source_registry as registry
from monitorbench.suites.source_registry import (get_source, register_source,
                                                 source_for_reference, source_names,
                                                 unregister_source)
from monitorbench.suites.source_spec import SourceSpec


def test_builtin_sources_keep_their_names_order_and_builder_versions():
    assert source_names()[:3] == ["bfcl", "agentdojo", "code"]
    assert {n: get_source(n).builder_version for n in ("bfcl", "agentdojo", "code")} == \
        {"bfcl": 4, "agentdojo": 4, "code": 2}
    assert get_source("agentdojo").runtime == "monitorbench.sources.agentdojo.runtime"
    assert source_for_reference("code.hardened_grader").name == "code"
    assert source_for_reference("nobody.checker") is None


def test_unknown_source_is_an_input_error_listing_the_known_names():
    with pytest.raises(InputError) as e:
        get_source("bfc")
    assert "unknown suite 'bfc'" in str(e.value) and "agentdojo, bfcl, code" in str(e.value)


def test_listing_sources_imports_no_builder_and_no_optional_dependency():
    """Only the registry, the spec and each source's ``__init__`` (its SPEC) are imported."""
    code = ("import sys; from monitorbench.suites.source_registry import source_names;"
            "source_names(); ok = ('monitorbench.suites', 'monitorbench.suites.source_registry',"
            "'monitorbench.suites.source_spec');"
            "bad = [m for m in sys.modules if m.startswith(('agentdojo', 'bfcl_eval', "
            "'monitorbench.audit')) or m.startswith('monitorbench.suites') and m not in ok"
            " or m.startswith('monitorbench.sources.') and m.count('.') > 2]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_register_source_adds_a_name_and_refuses_a_taken_one():
    spec = SourceSpec(name="reg_probe", task_type="tool_call", builder="x.y:build")
    register_source(spec)
    try:
        assert get_source("reg_probe") is spec and "reg_probe" in source_names()
        with pytest.raises(InputError, match="already registered"):
            register_source(SourceSpec(name="bfcl", task_type="tool_call", builder="x:y"))
    finally:
        unregister_source("reg_probe")
    assert "reg_probe" not in source_names()


def test_spec_refuses_a_builder_that_is_not_module_colon_function():
    with pytest.raises(InputError, match="module:function"):
        SourceSpec(name="bad", task_type="tool_call", builder="x.y.build")


class _EntryPoint:
    """A stand-in for an installed distribution's entry point: installing a real package into
    the environment just for this test would change the developer's interpreter."""

    def __init__(self, name: str, value: str) -> None:
        self.name, self.value = name, value

    def load(self) -> object:
        if self.value == "broken":
            raise ImportError("No module named 'not_installed'")
        return SourceSpec(name=self.name, task_type="tool_call", builder="plug.mod:build")


def test_entry_point_sources_are_found_and_a_broken_one_is_skipped(monkeypatch, caplog):
    def fake(group: str):
        assert group == registry.ENTRY_POINT_GROUP
        return [_EntryPoint("plugged", "plug.mod:SPEC"), _EntryPoint("bad_plug", "broken")]

    monkeypatch.setattr(importlib.metadata, "entry_points", fake)
    monkeypatch.setattr(registry, "_discovered", None)
    names = source_names()
    assert "plugged" in names and "bad_plug" not in names and "bfcl" in names
    assert "bad_plug = broken cannot be loaded" in caplog.text
