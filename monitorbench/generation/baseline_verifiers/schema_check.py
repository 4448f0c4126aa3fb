"""schema_check baseline: accepts a candidate whose calls fit the public tool schemas.

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
    match = re.search(r"\[.*\]", text, re.S)
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


def patch_ok(patch):
    """A non-empty unified diff: file headers and at least one hunk."""
    return bool(re.search(r"^--- ", patch, re.M) and re.search(r"^\+\+\+ ", patch, re.M)
                and re.search(r"^@@ ", patch, re.M))


def calls_of(candidate):
    """The candidate's calls: the parsed ones when given, else those its raw text states."""
    calls = candidate.get("calls")
    if calls is None and "raw" in candidate:
        calls = _parse_raw(candidate["raw"])
    return calls


def verify(candidate, env):
    if "patch" in candidate:
        return "PASS" if patch_ok(candidate.get("patch") or "") else "FAIL"
    calls = calls_of(candidate)
    if calls is None:
        return "FAIL"
    return "PASS" if _calls_ok(calls, _tools(env.task)) else "FAIL"
