"""Reading BFCL v4 questions and answer keys from the installed ``bfcl-eval`` wheel.

The wheel ships ``bfcl_eval/data/BFCL_v4_<category>.json`` (JSON lines: id, question, function)
and ``bfcl_eval/data/possible_answer/BFCL_v4_<category>.json`` (id, ground_truth). This module
only reads and screens that data; it imports nothing from bfcl_eval, so building a task list does
not pull in the package's import-time side effects.

Screening follows the paper's exclusions (reason code "D"): an answer key that lets an argument be
omitted (``""`` among its options) conflicts with the default-argument rule when the argument is
schema-required, or when the schema states a default that is not itself an acceptable value. A
verifier that follows the published contract ("defaults apply when an optional argument is
omitted") would then disagree with the reference on an omission, so such tasks are skipped.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from monitorbench.errors import InputError
from monitorbench.jsonl import read_strict

PACKAGE = "bfcl-eval"
# Categories whose answer keys the Python AST checker grades (Java/JS need other type converters,
# multi-turn categories are stateful and graded differently).
SUPPORTED_CATEGORIES = (
    "simple_python", "multiple", "parallel", "parallel_multiple",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
)

Call = dict[str, Any]  # {"name": str, "arguments": dict}


@dataclass(frozen=True)
class BfclEntry:
    """One BFCL question with its answer key, exactly as the wheel ships them."""

    bfcl_id: str
    category: str
    messages: list[dict[str, str]]
    functions: list[dict[str, Any]]
    ground_truth: list[dict[str, dict[str, list[Any]]]]

    @property
    def instruction(self) -> str:
        """The request text; role prefixes only when a system message precedes the user's."""
        if len(self.messages) == 1:
            return self.messages[0]["content"]
        return "\n\n".join(f"{m['role']}: {m['content']}" for m in self.messages)

    def function(self, name: str) -> dict[str, Any] | None:
        return next((f for f in self.functions if f.get("name") == name), None)


@functools.cache  # a build asks ~1,100 times (13% of a BFCL build's CPU in a profile)
def bfcl_version() -> str:
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise InputError(None, "suite", f"{PACKAGE} is not installed",
                         f"pip install --no-deps {PACKAGE}==2026.3.23 (see scripts/install.sh)")


def data_dir() -> Path:
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise InputError(None, "suite", "the bfcl_eval package cannot be found",
                         f"pip install --no-deps {PACKAGE}==2026.3.23 (see scripts/install.sh)")
    return Path(list(spec.submodule_search_locations)[0]) / "data"


def check_categories(categories: Sequence[str]) -> list[str]:
    """Validate a category list from a config; names the offending entry and the valid ones."""
    if isinstance(categories, str) or not categories:
        raise InputError(None, "categories", f"expected a non-empty list, got {categories!r}",
                         f"pass a list drawn from {', '.join(SUPPORTED_CATEGORIES)}")
    out: list[str] = []
    for i, c in enumerate(categories):
        if c not in SUPPORTED_CATEGORIES:
            raise InputError(None, f"categories[{i}]", f"{c!r} is not a supported BFCL category",
                             f"use one of {', '.join(SUPPORTED_CATEGORIES)}")
        if c in out:
            raise InputError(None, f"categories[{i}]", f"{c!r} is listed twice",
                             "list each category once")
        out.append(c)
    return out


def _read_jsonl(path: Path) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        raise InputError(path, None, "BFCL data file is missing",
                         f"reinstall {PACKAGE} (pip install --no-deps --force-reinstall)")
    return {obj["id"]: obj for _, obj in read_strict(path, f"reinstall {PACKAGE}")}


def load_category(category: str) -> list[BfclEntry]:
    """All entries of one category that have an answer key, in BFCL's id order."""
    root = data_dir()
    questions = _read_jsonl(root / f"BFCL_v4_{category}.json")
    answers = _read_jsonl(root / "possible_answer" / f"BFCL_v4_{category}.json")
    entries = []
    for qid, q in questions.items():
        if qid not in answers or len(q["question"]) != 1:
            continue  # single-turn AST categories only; multi-turn entries have other graders
        entries.append(BfclEntry(qid, category, list(q["question"][0]), list(q["function"]),
                                 list(answers[qid]["ground_truth"])))
    return entries


# ------------------------------------------------------------------------- answer-key screening

_STD_RE = re.compile(r"[ ,./\-_*^]")
_NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", re.I)
# "Default is 'cm'.", "Defaults to miles.", "(optional, default is kilometers)." - a single clean
# token followed by the end of a clause; phrases like "Default is 9.81 m/s^2" are left alone
# because their value cannot be read reliably.
_DEFAULT_RE = re.compile(
    r"\bdefaults?(?:\s+value)?(?:\s+(?:is|to|of)|\s*[:=])?\s+(?:is\s+)?"
    r"(?P<v>'[^']*'|\"[^\"]*\"|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|[A-Za-z]+)"
    r"(?=\s*$|[.;,)]+(?:\s|$)|\s+(?:if|unless|when)\b)", re.I)


def standardize(text: str) -> str:
    """BFCL's string normalisation (ast_checker.standardize_string), for comparing defaults."""
    return _STD_RE.sub("", text).lower().replace("'", '"')


def _stated_default(prop: dict[str, Any]) -> tuple[bool, Any]:
    """The default a schema states for a parameter, if it states one we can read unambiguously."""
    ptype = prop.get("type")
    if "default" in prop:
        value = prop["default"]
    else:
        if ptype not in ("string", "integer", "float", "boolean"):
            return False, None
        m = _DEFAULT_RE.search(str(prop.get("description", "")))
        if not m:
            return False, None
        value = m.group("v")
        if value[0] in "'\"":
            value = value[1:-1]
        elif _NUMBER_RE.fullmatch(value):
            value = float(value)
        elif ptype != "string" and not (ptype == "boolean" and value.lower() in ("true", "false")):
            return False, None
    if ptype == "boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
        value = value.lower() == "true"
    return True, value


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, str) and isinstance(b, (str, int, float)):
        return standardize(a) == standardize(str(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    return bool(a == b)


def answer_key_defect(entry: BfclEntry) -> str | None:
    """Why this task's answer key conflicts with the default-argument rule, or None."""
    for call in entry.ground_truth:
        (fname, args), = call.items()
        fdoc = entry.function(fname)
        if fdoc is None:
            return f"answer key calls {fname!r}, which is not among the task's functions"
        params = fdoc.get("parameters", {})
        required = set(params.get("required", []))
        for pname, options in args.items():
            if "" not in options:
                continue
            if pname in required:
                return (f"answer key marks schema-required argument {fname}.{pname} as omittable")
            accepted = [o for o in options if o != ""]
            stated, default = _stated_default(params.get("properties", {}).get(pname, {}))
            if stated and accepted and not any(_same_value(o, default) for o in accepted):
                return (f"answer key lets {fname}.{pname} be omitted, but its schema default "
                        f"{default!r} is not an acceptable value {accepted!r}")
    return None


def gold_calls(entry: BfclEntry) -> list[Call] | str:
    """The first acceptable option of every argument, or why no gold can be built.

    Arguments whose options are only ``""`` are omitted; an argument with an empty option list has
    no acceptable value at all (a known BFCL answer-key quirk), so the task has no gold.
    """
    calls: list[Call] = []
    for call in entry.ground_truth:
        (fname, args), = call.items()
        arguments: dict[str, Any] = {}
        for pname, options in args.items():
            if not options:
                return f"answer key gives argument {fname}.{pname} no acceptable value"
            value = next((o for o in options if o != ""), "")
            if value != "":
                arguments[pname] = value
        calls.append({"name": fname, "arguments": arguments})
    return calls
