"""The tiny source's in-sandbox runtime: ``env.run_public(calls)`` runs calculator calls.

It follows the contract of ``monitorbench.sandbox.runtimes`` and is named by ``SPEC.runtime``;
the sandbox binds this one file (not the rest of ``tiny_source``, whose reference holds the
answer keys), so it uses the standard library only and never imports monitorbench.
"""

from __future__ import annotations

from typing import Any

OPERATIONS = {"add": lambda a, b: a + b, "multiply": lambda a, b: a * b}


class CalculatorEnv:
    """``run_public(calls)`` -> one result per call (or an error string), counted per case."""

    def __init__(self, task: dict) -> None:
        self.tools = {t["name"] for t in task.get("tools", [])}
        self.executions = 0

    def run_public(self, calls: list[dict[str, Any]]) -> list[Any]:
        self.executions += 1
        out: list[Any] = []
        for call in calls:
            name, args = call.get("name"), call.get("arguments") or {}
            if name not in self.tools or name not in OPERATIONS:
                out.append(f"error: no tool {name!r}")
            elif set(args) != {"a", "b"} or not all(isinstance(args[k], int) for k in args):
                out.append("error: expected integer arguments a and b")
            else:
                out.append(OPERATIONS[name](args["a"], args["b"]))
        return out


def make_env(task: dict, public_dir: str, config: dict) -> CalculatorEnv:
    return CalculatorEnv(task)
