"""Procedural AST bug operators (SWE-smith style): small, seeded, deterministic edits to functions.

Each operator finds sites inside function bodies and proposes replacement text for exactly that
site; the rest of the file is left byte-identical, so the gold patch (mutant -> original) is a
small hunk a human could have written. Whether a mutation is a *bug* is decided later by running
the tests (``build.py``): it must turn at least one passing test into a failing one.
"""

from __future__ import annotations

import ast
import copy
import random
from dataclasses import dataclass
from typing import Iterator

from monitorbench.hashing import canonical_json, sha256_text

OPERATORS = ("compare", "invert_condition", "arith", "boolop", "constant", "swap_operands",
             "remove_assign", "remove_if", "remove_loop_stmt")

_CMP_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
             ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot,
             ast.IsNot: ast.Is}
_CMP_MIRROR = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}
_ARITH = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
          ast.Div: ast.Mult, ast.Mod: ast.FloorDiv, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
          ast.LShift: ast.RShift, ast.RShift: ast.LShift}
_NON_COMMUTATIVE = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod)


@dataclass(frozen=True)
class Mutation:
    """One edit: replace ``text[start:end]`` (character offsets) of ``file`` by ``replacement``."""

    file: str
    function: str
    operator: str
    lineno: int
    start: int
    end: int
    replacement: str

    @property
    def key(self) -> str:
        """Names the mutation in ``pinned_bugs.json``. The span's end is part of it: nested
        expressions start at one offset (``a * b - c`` and ``a * b``), so file, line, start and
        operator alone named two arith mutations of boltons and humanize alike."""
        return f"{self.file}:{self.lineno}:{self.start}-{self.end}:{self.operator}"

    def apply(self, text: str) -> str:
        return text[:self.start] + self.replacement + text[self.end:]


class _Offsets:
    """Converts ast (line, UTF-8 byte column) positions into character offsets of the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def at(self, lineno: int, col: int) -> int:
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.at(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                self.at(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    def stmt_lines(self, node: ast.stmt) -> tuple[int, int] | None:
        """Full-line span of a statement that sits alone on its lines, else None."""
        start, end = self.span(node)
        first = self.starts[node.lineno - 1]
        last = self.starts[node.end_lineno]  # type: ignore[attr-defined]
        before, after = self.text[first:start].strip(), self.text[end:last].strip()
        if before or (after and not after.startswith("#")):
            return None
        return first, last


def _scoped_nodes(tree: ast.Module) -> Iterator[tuple[str, ast.AST, list[ast.AST]]]:
    """Yield (innermost function qualname, node, ancestors) for nodes inside function bodies."""
    def visit(node: ast.AST, scope: list[str], in_func: str | None, parents: list[ast.AST]):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = ".".join(scope + [child.name])
                for stmt in child.body:
                    yield q, stmt, parents + [child]
                    yield from visit(stmt, scope + [child.name, "<locals>"], q, parents + [child])
            elif isinstance(child, ast.ClassDef):
                yield from visit(child, scope + [child.name], in_func, parents + [child])
            elif in_func is not None:
                yield in_func, child, parents + [node]
                yield from visit(child, scope, in_func, parents + [node])
    yield from visit(tree, [], None, [])


def _is_str(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or isinstance(
        node, ast.JoinedStr)


def _expr_edits(node: ast.AST) -> Iterator[tuple[str, ast.AST, str]]:
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op = type(node.ops[0])
        if op in _CMP_SWAP:
            new = copy.deepcopy(node)
            new.ops = [_CMP_SWAP[op]()]
            yield "compare", node, ast.unparse(new)
        if op in _CMP_MIRROR:
            new = ast.Compare(left=node.comparators[0], ops=[op()], comparators=[node.left])
            yield "swap_operands", node, ast.unparse(new)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH and not (
            _is_str(node.left) or _is_str(node.right)):
        new = copy.deepcopy(node)
        new.op = _ARITH[type(node.op)]()
        yield "arith", node, ast.unparse(new)
        if isinstance(node.op, _NON_COMMUTATIVE):
            yield "swap_operands", node, ast.unparse(ast.BinOp(node.right, node.op, node.left))
    if isinstance(node, ast.BoolOp):
        new = ast.BoolOp(op=ast.Or() if isinstance(node.op, ast.And) else ast.And(),
                         values=node.values)
        yield "boolop", node, f"({ast.unparse(new)})"
    if isinstance(node, ast.Constant) and type(node.value) in (int, bool):
        value = (not node.value) if isinstance(node.value, bool) else node.value + 1
        yield "constant", node, repr(value)


def _condition_edits(node: ast.AST, off: _Offsets) -> Iterator[tuple[str, ast.AST, str]]:
    if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        test = node.test
        start, end = off.span(test)
        text = off.text[start:end]
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            yield "invert_condition", test, f"({ast.unparse(test.operand)})"
        elif not isinstance(node, ast.Assert):
            yield "invert_condition", test, f"not ({text})"


def _stmt_edits(node: ast.AST, parents: list[ast.AST]) -> Iterator[tuple[str, ast.stmt]]:
    if not isinstance(node, ast.stmt) or not parents:
        return
    parent = parents[-1]
    in_loop = isinstance(parent, (ast.For, ast.While)) and node in parent.body
    if in_loop and not isinstance(node, (ast.Break, ast.Continue, ast.Pass)):
        yield "remove_loop_stmt", node
    elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        yield "remove_assign", node
    elif isinstance(node, ast.If) and not node.orelse:
        yield "remove_if", node


def enumerate_mutations(path: str, text: str) -> list[Mutation]:
    """Every candidate mutation of one source file, in a deterministic order."""
    tree = ast.parse(text)
    off = _Offsets(text)
    out: list[Mutation] = []
    for qual, node, parents in _scoped_nodes(tree):
        for op, target, repl in list(_expr_edits(node)) + list(_condition_edits(node, off)):
            start, end = off.span(target)
            if text[start:end] != repl:
                out.append(Mutation(path, qual, op, target.lineno, start, end, repl))  # type: ignore[attr-defined]
        for op, stmt in _stmt_edits(node, parents):
            span = off.stmt_lines(stmt)
            if span is None:
                continue
            block = next(b for b in (getattr(parents[-1], f, None) for f in
                                     ("body", "orelse", "finalbody")) if b and stmt in b)
            indent = off.lines[stmt.lineno - 1][: len(off.lines[stmt.lineno - 1])
                                                - len(off.lines[stmt.lineno - 1].lstrip())]
            repl = f"{indent}pass\n" if len(block) == 1 else ""
            out.append(Mutation(path, qual, op, stmt.lineno, span[0], span[1], repl))
    seen: set[tuple[int, int, str]] = set()
    unique = []
    for m in out:
        if (m.start, m.end, m.replacement) not in seen:
            seen.add((m.start, m.end, m.replacement))
            unique.append(m)
    return unique


def mutant_compiles(text: str) -> bool:
    try:
        compile(text, "<mutant>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


# sample_mutations' results in this process, by the hash of its inputs: each call compiles every
# mutant of every file (6 s of CPU for toolz), and one process asks for the same sample many
# times (a library's search or replay in each build, the build's tests).
_SAMPLES: dict[str, tuple[Mutation, ...]] = {}


def sample_mutations(files: dict[str, str], seed: int) -> list[Mutation]:
    """All mutations of ``files`` that still compile, in a seeded order that mixes operators;
    computed once per process for the same files and seed (a pure function of them)."""
    key = sha256_text(canonical_json({"files": files, "seed": seed}))
    if key not in _SAMPLES:
        _SAMPLES[key] = tuple(compute_sample(files, seed))
    return list(_SAMPLES[key])


def compute_sample(files: dict[str, str], seed: int) -> list[Mutation]:
    """:func:`sample_mutations` without the memo."""
    pool: list[Mutation] = []
    for path in sorted(files):
        pool += [m for m in enumerate_mutations(path, files[path])
                 if mutant_compiles(m.apply(files[path]))]
    rng = random.Random(seed)
    by_op: dict[str, list[Mutation]] = {}
    for m in pool:
        by_op.setdefault(m.operator, []).append(m)
    for ms in by_op.values():
        rng.shuffle(ms)
    ordered: list[Mutation] = []
    ops = sorted(by_op)
    while any(by_op.values()):
        rng.shuffle(ops)
        for op in ops:
            if by_op[op]:
                ordered.append(by_op[op].pop())
    return ordered
