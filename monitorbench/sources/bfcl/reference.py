"""The BFCL reference verifier: BFCL's own decoder and ``ast_checker``, plus record integrity.

A candidate is ``{"raw": str, "calls": [{"name": str, "arguments": dict}, ...]}``. The reference
decodes ``raw`` (a JSON list of name/arguments objects, or a Python-style call list decoded by
BFCL's ``default_decode_ast_prompting``), requires the decoded calls to equal ``calls`` (an
interaction record whose text and parsed form disagree is invalid), and then asks BFCL's
``ast_checker`` whether the calls answer the task. Undecodable text is a FAIL, as in BFCL.

This runs on the framework side at build time and in audits, never inside a sandbox.
"""

from __future__ import annotations

import ast
import json
import os
import sys
import tempfile
import types
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Mapping

from monitorbench.hashing import canonical_json
from monitorbench.sources.bfcl.source import Call, bfcl_version
from monitorbench.suites.format import Reference, Task
from monitorbench.suites.reference import register_reference

REFERENCE_ID = "bfcl.ast_checker"
REFERENCE_REVISION = "1"  # bump when decide() changes behaviour for the same bfcl-eval version
CHECKER_MODEL_NAME = "monitorbench-reference"

# AST nodes BFCL's decoder handles without eval(): it eval()s BinOp and Lambda nodes, which would
# run candidate text in the framework's process, so raw text containing them is undecodable here.
_SAFE_NODES = (ast.Expression, ast.List, ast.Tuple, ast.Dict, ast.Call, ast.keyword,
               ast.Attribute, ast.Name, ast.Load, ast.Constant, ast.UnaryOp, ast.USub, ast.UAdd)


@dataclass(frozen=True)
class _Bfcl:
    ast_checker: Callable[..., dict[str, Any]]
    decode_python: Callable[[str], list[dict[str, dict[str, Any]]]]
    python: Any  # bfcl_eval.constants.enums.Language.PYTHON


@lru_cache(maxsize=1)
def _load_bfcl() -> _Bfcl:
    """Import BFCL's checker and decoder with the one workaround they need.

    ``ast_checker.py`` imports ``bfcl_eval.constants.model_config`` only to look up, per model,
    whether function names had "." replaced by "_" for APIs that forbid dots. That module imports
    every vendor SDK (openai, anthropic, google, ...), which a lean install does not have. A
    stand-in registered in ``sys.modules`` before the import answers every lookup with
    ``underscore_to_dot=False``: calls are compared under their real dotted names, as a
    prompting model writes them. ``bfcl_eval.constants.eval_config`` also creates result
    folders under BFCL_PROJECT_ROOT (default: next to site-packages) on import, so when the user
    has not chosen a root, the import points it at a temporary folder and then restores the env.
    """
    name = "bfcl_eval.constants.model_config"
    if name not in sys.modules:
        stand_in = types.ModuleType(name)
        stand_in.__doc__ = "monitorbench stand-in: see monitorbench.sources.bfcl.reference"

        class _AllNamesKeepDots(dict):
            def __missing__(self, key: str) -> Any:
                return types.SimpleNamespace(underscore_to_dot=False)

        stand_in.MODEL_CONFIG_MAPPING = _AllNamesKeepDots()  # type: ignore[attr-defined]
        sys.modules[name] = stand_in
    chose_root = "BFCL_PROJECT_ROOT" not in os.environ
    if chose_root:
        os.environ["BFCL_PROJECT_ROOT"] = os.path.join(tempfile.gettempdir(), "monitorbench-bfcl")
    try:
        from bfcl_eval.constants.enums import Language
        from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
        from bfcl_eval.model_handler.utils import default_decode_ast_prompting
    finally:
        if chose_root:
            del os.environ["BFCL_PROJECT_ROOT"]
    return _Bfcl(ast_checker, default_decode_ast_prompting, Language.PYTHON)


def _json_calls(raw: str) -> list[Call] | None:
    """``raw`` as a JSON list of {"name", "arguments"} objects, or None if it is not one."""
    try:
        obj = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(obj, list):
        return None
    calls = []
    for item in obj:
        if not (isinstance(item, dict) and set(item) == {"name", "arguments"}
                and isinstance(item["name"], str) and isinstance(item["arguments"], dict)):
            return None
        calls.append({"name": item["name"], "arguments": item["arguments"]})
    return calls


def _python_is_safe(raw: str) -> bool:
    """Whether BFCL's decoder can read ``raw`` without eval(); mirrors its own text cleaning."""
    text = raw.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    tree = ast.parse(text.strip().strip("'"), mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, _SAFE_NODES):
            return False
        if isinstance(node, ast.keyword) and node.arg is None:
            return False  # f(**x) has no argument name to record
    return True


def decode_raw(raw: str) -> tuple[list[Call] | None, str]:
    """Decode a candidate's raw text into calls; (None, why) when it cannot be decoded."""
    calls = _json_calls(raw)
    if calls is not None:
        return calls, "json"
    try:
        if not _python_is_safe(raw):
            return None, "raw contains expressions BFCL would eval()"
        decoded = _load_bfcl().decode_python(raw)
    except Exception as e:  # BFCL's decoder signals bad text by any exception (assert included)
        return None, f"raw undecodable ({type(e).__name__})"
    out: list[Call] = []
    for item in decoded:
        (name, arguments), = item.items()
        out.append({"name": name, "arguments": arguments})
    return out, "python"


def _as_json(value: Any) -> Any:
    """Tuples become lists, as they do when a parsed call is stored as JSON."""
    return json.loads(json.dumps(value))


def _parsed_calls(candidate: Mapping[str, Any]) -> list[Call] | None:
    calls = candidate.get("calls")
    if not isinstance(calls, list):
        return None
    for c in calls:
        if not (isinstance(c, dict) and set(c) == {"name", "arguments"}
                and isinstance(c["name"], str) and isinstance(c["arguments"], dict)):
            return None
    return calls


class BfclAstReference:
    """BFCL's AST checker as a monitorbench reference verifier."""

    verifier_id = REFERENCE_ID

    def __init__(self) -> None:
        self.version = f"bfcl-eval=={bfcl_version()}+monitorbench.{REFERENCE_REVISION}"

    def explain(self, task: Task, reference: Reference,
                candidate: Mapping[str, Any]) -> tuple[str, str]:
        """(decision, why): the why names the failed check, for build reports and audits."""
        raw = candidate.get("raw")
        if not isinstance(raw, str):
            return "FAIL", "candidate has no raw text"
        parsed = _parsed_calls(candidate)
        if parsed is None:
            return "FAIL", "candidate calls are not a list of {name, arguments} objects"
        decoded, how = decode_raw(raw)
        if decoded is None:
            return "FAIL", how
        try:
            same = canonical_json(_as_json(decoded)) == canonical_json(_as_json(parsed))
        except (TypeError, ValueError):
            return "FAIL", "raw decodes to values that have no JSON form"
        if not same:
            return "FAIL", "raw/parsed mismatch"
        bfcl = _load_bfcl()
        model_output = [{c["name"]: c["arguments"]} for c in decoded]
        try:
            result = bfcl.ast_checker(list(task.public["tools"]), model_output,
                                      list(reference.data["possible_answer"]), bfcl.python,
                                      str(reference.data["category"]), CHECKER_MODEL_NAME)
        except Exception as e:  # BFCL crashes on some malformed calls; it scores those wrong
            return "FAIL", f"ast_checker raised {type(e).__name__}"
        if result.get("valid"):
            return "PASS", "ast_checker accepted"
        return "FAIL", str(result.get("error_type", "ast_checker rejected"))

    def decide(self, task: Task, reference: Reference, candidate: Mapping[str, Any]) -> str:
        return self.explain(task, reference, candidate)[0]


register_reference(REFERENCE_ID, BfclAstReference)
