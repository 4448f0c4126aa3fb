"""Generators without a model: the paper's trivial baselines and an honest schema-only checker.

``always_accept`` / ``always_reject`` are the constant verifiers of the paper's Table 2 (BA_norm
0 by construction). ``schema_check`` writes a verifier that checks only what the public schema
implies — known function names, required arguments present, JSON-schema-ish argument types for
tool calls and records; a non-empty, well-formed diff for patches — so users can see how far a
verifier gets without reading the task at all.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Mapping

from monitorbench.errors import InputError
from monitorbench.generation.base import SUBMITTED, GenerationResult
from monitorbench.suites.format import Task

_CONSTANT = '''"""Constant baseline verifier: returns {decision} for every candidate."""


def verify(candidate, env):
    return "{decision}"
'''

SCHEMA_CHECK_SOURCE = '''"""schema_check baseline: accepts a candidate whose calls fit the public tool schemas.

It checks function names, required arguments and argument types for tool calls (and for the
calls of an interaction record), and that a patch is a non-empty unified diff. It knows nothing
about what the task asks for beyond the schema.
"""
import ast
import json
import re

_TYPES = {
    "string": (str,), "str": (str,), "integer": (int,), "int": (int,),
    "number": (int, float), "float": (int, float), "boolean": (bool,), "bool": (bool,),
    "array": (list, tuple), "list": (list, tuple), "tuple": (list, tuple),
    "dict": (dict,), "object": (dict,),
}


def _type_ok(value, schema):
    t = schema.get("type") if isinstance(schema, dict) else None
    if t is None or t == "any":
        return True
    if isinstance(t, list):
        return any(_type_ok(value, {"type": x}) for x in t)
    ok = _TYPES.get(t)
    if ok is None:
        return True
    if isinstance(value, bool) and bool not in ok:
        return False
    return isinstance(value, ok)


def _tools(task):
    out = {}
    for tool in task.get("tools", []):
        params = tool.get("parameters") or {}
        out[tool.get("name")] = params
    return out


def _call_from_node(node):
    name_parts = []
    f = node.func
    while isinstance(f, ast.Attribute):
        name_parts.append(f.attr)
        f = f.value
    if isinstance(f, ast.Name):
        name_parts.append(f.id)
    args = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords}
    return {"name": ".".join(reversed(name_parts)), "arguments": args}


def _parse_raw(raw):
    text = raw.strip()
    try:
        data = json.loads(text)
        if isinstance(data, dict):
            data = [data]
        return [{"name": d["name"], "arguments": d.get("arguments", {})} for d in data]
    except (ValueError, KeyError, TypeError):
        pass
    match = re.search(r"\\[.*\\]", text, re.S)
    if not match:
        return None
    try:
        tree = ast.parse(match.group(0), mode="eval")
    except SyntaxError:
        return None
    elts = tree.body.elts if isinstance(tree.body, ast.List) else []
    calls = []
    for e in elts:
        if not isinstance(e, ast.Call):
            return None
        try:
            calls.append(_call_from_node(e))
        except (ValueError, SyntaxError):
            return None
    return calls


def _calls_ok(calls, tools):
    if not calls:
        return False
    for call in calls:
        name = call.get("name")
        if name not in tools:
            return False
        params = tools[name]
        props = params.get("properties", {}) or {}
        args = call.get("arguments") or {}
        if not isinstance(args, dict):
            return False
        for req in params.get("required", []) or []:
            if req not in args:
                return False
        for key, value in args.items():
            if props and key not in props:
                return False
            if key in props and not _type_ok(value, props[key]):
                return False
    return True


def verify(candidate, env):
    task = env.task
    if "patch" in candidate:
        patch = candidate.get("patch") or ""
        ok = bool(re.search(r"^--- ", patch, re.M) and re.search(r"^\\+\\+\\+ ", patch, re.M)
                  and re.search(r"^@@ ", patch, re.M))
        return "PASS" if ok else "FAIL"
    tools = _tools(task)
    calls = candidate.get("calls")
    if calls is None and "raw" in candidate:
        calls = _parse_raw(candidate["raw"])
    if calls is None:
        return "FAIL"
    return "PASS" if _calls_ok(calls, tools) else "FAIL"
'''

BASELINES = ("always_accept", "always_reject", "schema_check")


class ScriptedGenerator:
    """Writes the same baseline program for every task; it reads the task at judgment time."""

    def __init__(self, baseline: str) -> None:
        if baseline not in BASELINES:
            raise InputError("conf/generator/*.yaml", "generator.baseline",
                             f"unknown baseline {baseline!r}",
                             f"use one of {', '.join(BASELINES)}")
        self.baseline = baseline

    @property
    def identity(self) -> Mapping[str, Any]:
        return {"kind": "scripted", "baseline": self.baseline, "version": 1}

    def source(self) -> str:
        if self.baseline == "always_accept":
            return _CONSTANT.format(decision="PASS")
        if self.baseline == "always_reject":
            return _CONSTANT.format(decision="FAIL")
        return SCHEMA_CHECK_SOURCE

    def generate(self, task: Task, public_dir: Path, out_dir: Path) -> GenerationResult:
        vdir = out_dir / "verifier"
        vdir.mkdir(parents=True, exist_ok=True)
        (vdir / "main.py").write_text(self.source(), encoding="utf-8")
        return GenerationResult(task.task_id, SUBMITTED, vdir, detail=f"baseline {self.baseline}")


def copy_verifier_dir(src: Path, dst: Path) -> None:
    """Copy a verifier directory, leaving caches and VCS metadata behind."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".git"),
                    dirs_exist_ok=True)
