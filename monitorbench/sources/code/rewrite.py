"""Semantics-preserving rewrites of whole functions, for valid-variant cases.

A correct fix need not be the gold hunk: it may rename locals and reformat the function
(``rewritten_fix``), override the broken definition later in the module (``fix_elsewhere``) or
come with an unrelated refactor (``fix_plus_refactor``). These rewrites produce such texts from
the original function. They are conservative (they refuse functions using ``locals``/``eval``-like
introspection, zero-argument ``super`` or name mangling) and every case built from them is still
confirmed by the reference grader before it is kept.
"""

from __future__ import annotations

import ast
import textwrap

_INTROSPECTION = {"locals", "vars", "eval", "exec", "super", "globals"}


def find_function(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The def node for a dotted qualname (``Class.method``, ``f.<locals>.g``)."""
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    nodes: list[ast.stmt] = list(tree.body)
    found: ast.AST | None = None
    for name in parts:
        found = next((n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                          ast.ClassDef)) and n.name == name), None)
        if found is None:
            return None
        nodes = list(found.body)  # type: ignore[attr-defined]
    return found if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def function_span(text: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    """Character span of whole lines from the first decorator to the end of the body."""
    lines = text.splitlines(keepends=True)
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    start = sum(len(line) for line in lines[:first - 1])
    end = sum(len(line) for line in lines[:node.end_lineno])  # type: ignore[arg-type]
    return start, end


def _local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str] | None:
    """Names safe to rename consistently inside ``fn``, or None when the function is unsafe."""
    declared: set[str] = set()
    nested_args: set[str] = set()
    stored: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.Name):
            if node.id in _INTROSPECTION:
                return None
            if isinstance(node.ctx, ast.Store):
                stored.add(node.id)
        elif isinstance(node, ast.arg) and node not in _own_args(fn):
            nested_args.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not fn:
            nested_args.add(node.name)
    own = {a.arg for a in _own_args(fn)}
    names = sorted(n for n in stored - declared - nested_args - own if not n.startswith("__"))
    return names


def _own_args(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    a = fn.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs, *([a.vararg] if a.vararg else []),
            *([a.kwarg] if a.kwarg else [])]


class _Renamer(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.mapping:
            return ast.copy_location(ast.Name(self.mapping[node.id], node.ctx), node)
        return node


def renamed_function_text(text: str, qualname: str) -> str | None:
    """``text`` with function ``qualname`` re-emitted with its locals renamed; None if unsafe."""
    tree = ast.parse(text)
    fn = find_function(tree, qualname)
    if fn is None:
        return None
    names = _local_names(fn)
    if not names:
        return None
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    mapping = {}
    for n in names:
        new = f"{n}_value"
        while new in taken:
            new += "_"
        mapping[n] = new
    start, end = function_span(text, fn)
    indent = text[start:].split("\n", 1)[0]
    indent = indent[: len(indent) - len(indent.lstrip())]
    new_fn = _Renamer(mapping).visit(ast.parse(textwrap.dedent(text[start:end])).body[0])
    body = textwrap.indent(ast.unparse(new_fn), indent) + "\n"
    return text[:start] + body + text[end:]


def override_later(original: str, mutant: str, qualname: str) -> str | None:
    """``mutant`` with a corrected definition of ``qualname`` appended at the end of the module.

    Only for module-level functions and undecorated methods of module-level classes; the class
    attribute is replaced after the class body. Returns None when this cannot be done safely.
    """
    tree = ast.parse(original)
    fn = find_function(tree, qualname)
    parts = qualname.split(".")
    if fn is None or "<locals>" in parts or len(parts) > 2:
        return None
    if any(isinstance(n, ast.Name) and (n.id == "super" or n.id.startswith("__"))
           for n in ast.walk(fn)):
        return None
    start, end = function_span(original, fn)
    src = textwrap.dedent(original[start:end])
    note = "\n\n# Corrected implementation; supersedes the definition above.\n"
    if len(parts) == 1:
        return mutant.rstrip("\n") + note + src
    if fn.decorator_list:
        return None
    cls, meth = parts
    helper = f"_{cls}_{meth}_fixed".replace("__", "_")
    src = src.replace(f"def {meth}(", f"def {helper}(", 1)
    return (mutant.rstrip("\n") + note + src + f"\n\n{cls}.{meth} = {helper}\n"
            f"del {helper}\n")
