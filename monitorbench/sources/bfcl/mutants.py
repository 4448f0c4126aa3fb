"""Nine mutants of the BFCL reference (``bfcl.ast_checker``): patched copies of its checks.

Each operator swaps functions of BFCL's ``ast_checker`` module (and, for the record-integrity
operator, of monitorbench's wrapper around it) for versions with one check removed, runs the
unchanged reference ``explain()`` on top, and restores the originals. Everything else - decoding,
string normalisation, order-free matching - is BFCL's own code, so a detection measures the one
removed check. The patches are process-wide while active; the audit runs them on one thread.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib
from typing import Any, Callable, Iterator, Mapping, Sequence

from monitorbench.audit.model import INVALID
from monitorbench.audit.mutation import Operator, by_candidate
from monitorbench.sources.bfcl import reference as bfcl_reference
from monitorbench.suites.format import Case, Reference, Task

_CHECKER = "bfcl_eval.eval_checker.ast_eval.ast_checker"
_VALID = {"valid": True, "error": []}


def _checker() -> Any:
    bfcl_reference._load_bfcl()  # installs the model_config stand-in before the import
    return importlib.import_module(_CHECKER)


@contextlib.contextmanager
def _patched(module: Any, **attrs: Any) -> Iterator[None]:
    old = {k: getattr(module, k) for k in attrs}
    for k, v in attrs.items():
        setattr(module, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(module, k, v)


def _gold_types(task: Task, reference: Reference) -> set[str]:
    """Schema types of the arguments the gold calls give a value (what the checks exercise);
    an argument whose only option is omission never reaches a type or value check."""
    tools = {t.get("name"): t for t in task.public.get("tools", [])}
    types = set()
    for call in reference.data.get("possible_answer", []):
        for fname, args in call.items():
            props = tools.get(fname, {}).get("parameters", {}).get("properties", {})
            types |= {str(props.get(p, {}).get("type")) for p, opts in args.items()
                      if any(o != "" for o in opts)}
    return types


def _has_arguments(task: Task, reference: Reference) -> bool:
    return any(args for call in reference.data.get("possible_answer", []) for args in call.values())


def _has_containers(task: Task, reference: Reference) -> bool:
    return bool(_gold_types(task, reference) & {"array", "tuple", "dict"})


def _has_confusable_types(task: Task, reference: Reference) -> bool:
    """Integer and boolean arguments: only there can a wrongly typed value still compare equal
    (5.0 == 5, True == 1), so only there does skipping the type check change a decision; a
    wrongly typed string or container value makes the value checks crash or reject."""
    return bool(_gold_types(task, reference) & {"integer", "boolean"})


# ----------------------------------------------------------------------- the mutated functions


def _one_call(model_output: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    (name, params), = model_output.items()
    return name, params


def _any_name(orig: Callable[..., dict]) -> Callable[..., dict]:
    def simple(func_description, model_output, possible_answer, language, model_name):
        _, params = _one_call(model_output)
        return orig(func_description, {func_description["name"]: params}, possible_answer,
                    language, model_name)
    return simple


def _no_presence(orig: Callable[..., dict]) -> Callable[..., dict]:
    """Required-argument and missing-argument checks removed: nothing must be present."""
    def simple(func_description, model_output, possible_answer, language, model_name):
        fd = copy.deepcopy(func_description)
        fd["parameters"]["required"] = []
        pa = {f: {p: opts if "" in opts else [*opts, ""] for p, opts in args.items()}
              for f, args in possible_answer.items()}
        return orig(fd, model_output, pa, language, model_name)
    return simple


def _no_unexpected(orig: Callable[..., dict]) -> Callable[..., dict]:
    """Arguments the schema or answer key does not know are dropped instead of rejected."""
    def simple(func_description, model_output, possible_answer, language, model_name):
        name, params = _one_call(model_output)
        props = func_description["parameters"]["properties"]
        expected = list(possible_answer.values())[0]
        kept = {p: v for p, v in params.items() if p in props and p in expected}
        return orig(func_description, {name: kept}, possible_answer, language, model_name)
    return simple


def _no_type(orig: Callable[..., dict], mod: Any) -> Callable[..., dict]:
    def type_checker(param, value, possible_answer, expected_desc, expected_conv, nested_conv):
        result = orig(param, value, possible_answer, expected_desc, expected_conv, nested_conv)
        if result["valid"]:
            return result
        pa_type = mod.get_possible_answer_type(possible_answer)
        return {"valid": True, "error": [],
                "is_variable": pa_type is not None and pa_type != expected_conv}
    return type_checker


def _values_accepted(orig: Callable[..., dict]) -> Callable[..., dict]:
    """The given value of every expected argument joins its acceptable values."""
    def simple(func_description, model_output, possible_answer, language, model_name):
        _, params = _one_call(model_output)
        pa = {f: {p: [*opts, params[p]] if p in params else opts for p, opts in args.items()}
              for f, args in possible_answer.items()}
        return orig(func_description, model_output, pa, language, model_name)
    return simple


def _matching(mod: Any, *, extra_ok: bool, missing_ok: bool) -> Callable[..., dict]:
    """``ast_checker`` with its call-count check replaced by order-free matching that ignores
    extra output calls (``extra_ok``) or expected calls nobody made (``missing_ok``)."""
    def ast_checker(func_description, model_output, possible_answer, language, test_category,
                    model_name):
        used: set[int] = set()
        for answer in possible_answer:
            desc = mod.find_description(func_description, next(iter(answer)))
            hit = next((i for i, out in enumerate(model_output) if i not in used and
                        mod.simple_function_checker(desc, out, answer, language,
                                                    model_name)["valid"]), None)
            if hit is None and not missing_ok:
                return {"valid": False, "error": ["no match"], "error_type": "mutant:no_match"}
            if hit is not None:
                used.add(hit)
        if len(used) != len(model_output) and not extra_ok:
            return {"valid": False, "error": ["unmatched"], "error_type": "mutant:unmatched"}
        return dict(_VALID)
    return ast_checker


# ----------------------------------------------------------------------------------- decide


class BfclMutants:
    """The operator set and its runner (see :class:`monitorbench.audit.mutation.MutantSet`)."""

    operators = (
        Operator("accept_any_function_name", "function name", lambda t, r: True),
        Operator("ignore_missing_arguments", "required / expected arguments present",
                 _has_arguments),
        Operator("ignore_unexpected_arguments", "no unknown arguments", lambda t, r: True),
        Operator("skip_type_check", "argument types", _has_confusable_types),
        Operator("ignore_values", "argument values", _has_arguments),
        Operator("skip_container_checks", "list / dict contents", _has_containers),
        Operator("ignore_extra_calls", "number of calls (extra)", lambda t, r: True),
        Operator("ignore_missing_calls", "number of calls (missing)", lambda t, r: True),
        Operator("ignore_raw_parsed_integrity", "raw text equals parsed calls",
                 lambda t, r: True),
    )

    def _patches(self, name: str) -> tuple[dict[str, Any], Callable[..., dict] | None]:
        """(attributes of BFCL's checker module to replace, replacement top-level checker)."""
        mod = _checker()
        simple = mod.simple_function_checker
        always = lambda *a, **k: dict(_VALID)  # noqa: E731
        table: dict[str, tuple[dict[str, Any], Callable[..., dict] | None]] = {
            "accept_any_function_name": ({"simple_function_checker": _any_name(simple)}, None),
            "ignore_missing_arguments": ({"simple_function_checker": _no_presence(simple)}, None),
            "ignore_unexpected_arguments": ({"simple_function_checker": _no_unexpected(simple)},
                                            None),
            "skip_type_check": ({"type_checker": _no_type(mod.type_checker, mod)}, None),
            "ignore_values": ({"simple_function_checker": _values_accepted(simple),
                               "string_checker": always, "list_checker": always,
                               "dict_checker": always, "list_dict_checker": always}, None),
            "skip_container_checks": ({"list_checker": always, "dict_checker": always,
                                       "list_dict_checker": always}, None),
            "ignore_extra_calls": ({}, _matching(mod, extra_ok=True, missing_ok=False)),
            "ignore_missing_calls": ({}, _matching(mod, extra_ok=False, missing_ok=True)),
            "ignore_raw_parsed_integrity": ({}, None),
        }
        return table[name]

    def decide(self, op: Operator, task: Task, reference: Reference,
               cases: Sequence[Case]) -> list[str]:
        mod = _checker()
        attrs, top = self._patches(op.name)
        loaded = bfcl_reference._load_bfcl()
        crashed = [False]

        def guarded(*args: Any) -> dict:
            try:
                return (top or mod.ast_checker)(*args)
            except Exception:
                crashed[0] = True
                raise

        mutated = dataclasses.replace(loaded, ast_checker=guarded)
        ref_patches: dict[str, Any] = {"_load_bfcl": lambda: mutated}
        if op.name == "ignore_raw_parsed_integrity":
            # explain() compares _as_json(decoded) with _as_json(parsed): make them always equal,
            # so the calls decoded from the raw text are judged whatever the parsed calls say.
            ref_patches["_as_json"] = lambda value: None
        verifier = bfcl_reference.BfclAstReference()

        def one(candidate: Mapping[str, Any]) -> str:
            crashed[0] = False
            decision = verifier.decide(task, reference, candidate)
            return f"{INVALID}: checker crashed" if crashed[0] else decision

        with _patched(mod, **attrs), _patched(bfcl_reference, **ref_patches):
            return by_candidate(one, cases)


MUTANTS = BfclMutants()
