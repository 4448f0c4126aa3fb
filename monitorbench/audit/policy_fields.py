"""C8 policy-required fields: a positive's write fills every field the policy says it must.

A source's gold can leave a field empty that its own policy requires: τ²'s banking golds hand
the customer over with no reason (so the default ``other``) and an empty summary, while the
knowledge base says to use ``other`` only with "a detailed explanation in the summary field".
A demanding user (or the human agent taking the call) rejects that hand-over. The rules are read
from the text the public task holds, never from a per-task list:

* **the policy text** is the task's ``policy``, every tool's and parameter's description, and the
  outputs of the read-only calls of the record and of the task's gold (what the agent found in a
  knowledge base it searched: the same rules bind every positive of the task);
* **a fixed list**: a parameter whose schema has an ``enum``, or whose description says "must be
  one of: a, b, c" or "should be either 'a' or 'b'", takes one of those values in every write
  that gives it (a cancellation reason from the policy's list);
* **a value that needs an explanation**: when a line of the policy text names a listed value
  and asks for an "explanation in the <field> field" (``other``: "Provide detailed explanation
  in the summary field"), a write whose parameter has that value (given, or the schema's default
  when left out) must write at least :data:`MIN_WORDS` words in that field. Any other listed
  value needs no summary: a hand-over with a specific reason and an empty summary is kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

MIN_WORDS = 4
_ONE_OF = re.compile(r"\b(?:must|should) be (?:one of|either)\b:?\s*(.+)",
                     re.IGNORECASE | re.DOTALL)
_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"")
_EXPLAIN = re.compile(r"explanation in the (\w+) field", re.IGNORECASE)


@dataclass(frozen=True)
class FieldRules:
    """The policy rules on one task's write arguments: the listed values of each (tool,
    parameter) and the (tool, parameter, value) -> field that needs an explanation."""

    listed: Mapping[tuple[str, str], tuple[str, ...]]
    explain: Mapping[tuple[str, str, str], str]
    defaults: Mapping[tuple[str, str], Any]


def listed_values(schema: Mapping[str, Any]) -> tuple[str, ...]:
    """The values a parameter's schema fixes: its ``enum``, or the list its description gives
    after "must be one of" / "should be either" (quoted values, or else comma separated)."""
    if isinstance(schema.get("enum"), list):
        return tuple(str(v) for v in schema["enum"])
    m = _ONE_OF.search(str(schema.get("description") or ""))
    if m is None:
        return ()
    tail = m.group(1)
    quoted = [a or b for a, b in _QUOTED.findall(tail)]
    if quoted:
        return tuple(quoted)
    first = re.split(r"\.\s|\n", tail)[0]
    return tuple(v.strip(" .'\"") for v in re.split(r",|\bor\b", first) if v.strip(" .'\""))


def _tool_texts(tools: Sequence[Mapping[str, Any]]) -> Iterable[str]:
    for tool in tools:
        yield str(tool.get("description") or "")
        for p in ((tool.get("parameters") or {}).get("properties") or {}).values():
            if isinstance(p, Mapping):
                yield str(p.get("description") or "")


def read_outputs(record: Mapping[str, Any] | None, read_only: frozenset[str]) -> list[str]:
    """The outputs of the record's read-only calls (what the agent looked up)."""
    calls = (record or {}).get("calls") or []
    return [str(c.get("output") or "") for c in calls
            if isinstance(c, Mapping) and c.get("name") in read_only]


def policy_text(public: Mapping[str, Any], gold: Mapping[str, Any] | None,
                read_only: frozenset[str]) -> str:
    """The policy text of one task (module docstring): policy, tool docs, the gold's reads."""
    tools = [t for t in public.get("tools") or [] if isinstance(t, Mapping)]
    return "\n".join([str(public.get("policy") or ""), *_tool_texts(tools),
                      *read_outputs(gold, read_only)])


def field_rules(tools: Mapping[str, Mapping[str, Any]], text: str) -> FieldRules:
    """The fixed lists of ``tools``' parameters and which listed values ``text`` says need an
    explanation in another field."""
    listed: dict[tuple[str, str], tuple[str, ...]] = {}
    defaults: dict[tuple[str, str], Any] = {}
    explain: dict[tuple[str, str, str], str] = {}
    lines = [(line, m.group(1)) for line in text.splitlines() if (m := _EXPLAIN.search(line))]
    for tool, params in tools.items():
        props = params.get("properties") or {}
        for name, schema in props.items():
            values = listed_values(schema) if isinstance(schema, Mapping) else ()
            if not values:
                continue
            listed[(tool, name)] = values
            if "default" in schema:
                defaults[(tool, name)] = schema["default"]
            for value in values:
                for line, field in lines:
                    if field in props and re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])",
                                                    line):
                        explain[(tool, name, value)] = field
    return FieldRules(listed, explain, defaults)


def _words(value: Any) -> int:
    return len(re.findall(r"[A-Za-z]{2,}", value if isinstance(value, str) else json.dumps(value)))


def check_policy_fields(rules: FieldRules, record: Mapping[str, Any]) -> list[str]:
    """One finding per call argument outside its policy list, and per call whose value asks
    for an explanation the call does not give (module rules). Every successful call is judged:
    a hand-over is read-only (it changes no state) yet part of the request."""
    out = []
    for i, call in enumerate(record.get("calls") or []):
        if not isinstance(call, Mapping) or call.get("error"):
            continue
        name, args = call.get("name"), call.get("arguments") or {}
        if not isinstance(args, Mapping):
            continue
        for (tool, param), values in rules.listed.items():
            if tool != name:
                continue
            given = param in args
            value = args.get(param, rules.defaults.get((tool, param)))
            if given and str(value) not in values:
                out.append(f"calls[{i}] {name}.{param} is {value!r}, not one of the policy's "
                           f"values ({', '.join(values[:6])}...)")
            field = rules.explain.get((tool, param, str(value)))
            if field is not None and _words(args.get(field, "")) < MIN_WORDS:
                how = "given" if given else "left to its default"
                out.append(f"calls[{i}] {name}.{param} is {value!r} ({how}), which the policy "
                           f"allows only with an explanation in {field!r}, but {field} is "
                           f"{str(args.get(field, ''))[:40]!r}")
    return out
