"""Pull code and actions out of model text.

A reply cut off by ``max_tokens`` (or by a model that never closes its fence) ends inside an open
fenced block. Code in such a block is *salvaged* the way EvalPlus sanitizes truncated samples:
the longest prefix of whole lines that parses and still defines ``verify`` at top level is kept,
and the number of dropped lines is reported so the scaffold can trace it and tell the model.
The text is only parsed (``ast.parse``), never executed, in the framework's process.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

# A fenced block: ``` + info string on the opening line, body, closing ``` on its own line.
_FENCE = re.compile(r"^[ \t]*```[ \t]*([^\n`]*)\n(.*?)^[ \t]*```[ \t]*$", re.M | re.S)
# An opening fence with no closing one after it: the rest of the reply is its body.
_OPEN_FENCE = re.compile(r"^[ \t]*```[ \t]*([^\n`]*)\n(.*)\Z", re.M | re.S)
_INLINE_SUBMIT = re.compile(r"```[ \t]*submit[ \t]*```")
_PYTHON_INFO = (["python"], ["py"])


@dataclass(frozen=True)
class Block:
    info: str
    body: str
    closed: bool  # False: the reply ended inside this block


@dataclass(frozen=True)
class Code:
    """Verifier code taken from a reply; ``dropped_lines`` > 0 when it was salvaged from a cut
    block."""

    text: str
    dropped_lines: int = 0


@dataclass(frozen=True)
class Action:
    name: str
    arg: str    # rest of the opening line (e.g. the expected decision of self_test)
    body: str
    dropped_lines: int = 0  # write_verifier salvaged from a cut block


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block in order; a trailing block the reply never closed comes last."""
    blocks, end = [], 0
    for m in _FENCE.finditer(text):
        blocks.append(Block(m.group(1).strip(), m.group(2), True))
        end = m.end()
    tail = _OPEN_FENCE.search(text, end)
    if tail is not None:
        blocks.append(Block(tail.group(1).strip(), tail.group(2), False))
    return blocks


def defines_verify(code: str) -> bool:
    """True if ``code`` parses and defines a top-level function ``verify``."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "verify"
               for n in tree.body)


def salvage(body: str) -> Code | None:
    """The longest whole-line prefix of a cut block that parses and defines verify, or None."""
    lines = body.splitlines()
    for keep in range(len(lines), 0, -1):
        code = "\n".join(lines[:keep]).rstrip() + "\n"
        if "def verify" in code and defines_verify(code):
            return Code(code, len(lines) - keep)
    return None


def _as_code(block: Block) -> Code | None:
    if block.closed:
        return Code(block.body.strip("\n") + "\n")
    return salvage(block.body)


def python_block(text: str) -> Code | None:
    """The verifier code in a reply: the last ```python block that defines verify, else the
    last ```python block, else None (the oneshot scaffold's only parse rule). A block without a
    language tag counts when its code defines verify (small models often drop the tag). A cut
    block counts only if a prefix of it can be salvaged."""
    codes = []
    for b in fenced_blocks(text):
        tag = b.info.split()[:1]
        code = _as_code(b) if tag in _PYTHON_INFO or not tag else None
        if code is not None and (tag or defines_verify(code.text)):
            codes.append(code)
    with_verify = [c for c in codes if "def verify" in c.text]
    return (with_verify or codes or [None])[-1]


def parse_actions(text: str, names: tuple[str, ...]) -> list[Action]:
    """Every action block in a reply. A reply with no action block but a ```python block that
    defines verify is read as write_verifier: small models answer that way even when asked for
    the protocol, and the intent is unambiguous. A cut block is an action only for
    write_verifier (salvaged code); a cut read, run_public or self_test is not run."""
    actions = []
    for b in fenced_blocks(text):
        head, _, rest = b.info.partition(" ")
        if head not in names:
            continue
        if b.closed:
            actions.append(Action(head, rest.strip(), b.body.strip("\n")))
        elif head == "write_verifier" and (code := salvage(b.body)) is not None:
            actions.append(Action(head, rest.strip(), code.text, code.dropped_lines))
    if not actions and _INLINE_SUBMIT.search(text) and "submit" in names:
        actions.append(Action("submit", "", ""))
    if not actions and "write_verifier" in names:
        code = python_block(text)
        if code is not None and "def verify" in code.text:
            actions.append(Action("write_verifier", "", code.text, code.dropped_lines))
    return actions
