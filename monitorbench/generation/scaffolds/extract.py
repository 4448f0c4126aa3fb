"""Pull code and actions out of model text."""

from __future__ import annotations

import re
from dataclasses import dataclass

# A fenced block: ``` + info string on the opening line, body, closing ``` on its own line.
_FENCE = re.compile(r"^[ \t]*```[ \t]*([^\n`]*)\n(.*?)^[ \t]*```[ \t]*$", re.M | re.S)
_INLINE_SUBMIT = re.compile(r"```[ \t]*submit[ \t]*```")


@dataclass(frozen=True)
class Action:
    name: str
    arg: str    # rest of the opening line (e.g. the expected decision of self_test)
    body: str


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(info string, body) of every fenced block, in order."""
    return [(m.group(1).strip(), m.group(2)) for m in _FENCE.finditer(text)]


def python_block(text: str) -> str | None:
    """The verifier code in a reply: the last ```python block that defines verify, else the
    last ```python block, else None (the oneshot scaffold's only parse rule)."""
    blocks = [b for info, b in fenced_blocks(text) if info.split()[:1] in (["python"], ["py"])]
    with_verify = [b for b in blocks if "def verify" in b]
    chosen = (with_verify or blocks or [None])[-1]
    return chosen.strip("\n") + "\n" if chosen else None


def parse_actions(text: str, names: tuple[str, ...]) -> list[Action]:
    """Every action block in a reply. A reply with no action block but a ```python block that
    defines verify is read as write_verifier: small models answer that way even when asked for
    the protocol, and the intent is unambiguous."""
    actions = []
    for info, body in fenced_blocks(text):
        head, _, rest = info.partition(" ")
        if head in names:
            actions.append(Action(head, rest.strip(), body.strip("\n")))
    if not actions and _INLINE_SUBMIT.search(text) and "submit" in names:
        actions.append(Action("submit", "", ""))
    if not actions and "write_verifier" in names:
        code = python_block(text)
        if code is not None and "def verify" in code:
            actions.append(Action("write_verifier", "", code))
    return actions
