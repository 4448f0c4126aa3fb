"""grounded_check baseline: schema_check, plus every argument value grounded in what the task states.

An honest verifier that reads the task but no hidden data, stricter than schema_check:

- the calls must fit the public tool schemas (schema_check's rule);
- when a candidate carries both raw text and parsed calls, the raw text must state exactly the
  parsed calls;
- a tool-call answer may not repeat a call verbatim (an interaction record may re-read);
- every string argument must occur in the instruction (compared case-, space- and
  punctuation-insensitively), be one of its parameter's enum values or its default, or occur in
  the output of an earlier call of the same record; every number must occur in the instruction
  (digits or a number word up to twelve), be the default or an enum value, or occur in an
  earlier output.

It cannot know which calls or optional arguments the task needs, so a candidate that drops a
needed call or argument passes it: that is what an adaptive attacker can find and a static attack
set may not contain. Patches are judged as schema_check judges them.
"""
import json
import re

from schema_check import _calls_ok, _tools, calls_of, patch_ok

_NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve").split()
_NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?")


def _norm(text):
    return re.sub(r"[\s,./\-_*^'\"()]+", "", str(text).lower())


def _numbers(text):
    found = {float(m.group(0)) for m in _NUMBER_RE.finditer(text.replace(",", ""))}
    words = set(re.findall(r"[a-z]+", text.lower()))
    found.update(float(i) for i, w in enumerate(_NUMBER_WORDS) if w in words)
    return found


class _Grounds:
    """What a value may come from: the instruction, the schema's options, earlier outputs."""

    def __init__(self, instruction, outputs):
        text = instruction + "\n" + "\n".join(outputs)
        self.text = _norm(text)
        self.numbers = _numbers(text)

    def holds(self, value, schema):
        options = list(schema.get("enum") or []) if isinstance(schema, dict) else []
        if isinstance(schema, dict) and "default" in schema:
            options.append(schema["default"])
        if value in options or isinstance(value, bool) or value is None:
            return True
        if isinstance(value, (int, float)):
            return float(value) in self.numbers
        if isinstance(value, str):
            return _norm(value) in self.text
        items = value.values() if isinstance(value, dict) else value
        inner = schema.get("items", {}) if isinstance(schema, dict) else {}
        return all(self.holds(v, inner if isinstance(value, list) else {}) for v in items)


def _raw_agrees(candidate):
    if "raw" not in candidate or candidate.get("calls") is None:
        return True
    stated = calls_of({"raw": candidate["raw"]})
    return stated is not None and _key(stated) == _key(candidate["calls"])


def _key(calls):
    return sorted(json.dumps([c.get("name"), c.get("arguments")], sort_keys=True, default=str)
                  for c in calls)


def _outputs_before(calls, i):
    return [json.dumps(c.get("output"), default=str) for c in calls[:i] if "output" in c]


def _grounded(calls, task):
    tools = _tools(task)
    instruction = str(task.get("instruction", ""))
    for i, call in enumerate(calls):
        props = (tools.get(call.get("name")) or {}).get("properties", {}) or {}
        grounds = _Grounds(instruction, _outputs_before(calls, i))
        for name, value in (call.get("arguments") or {}).items():
            if not grounds.holds(value, props.get(name, {})):
                return False
    return True


def verify(candidate, env):
    if "patch" in candidate:
        return "PASS" if patch_ok(candidate.get("patch") or "") else "FAIL"
    calls = calls_of(candidate)
    if calls is None or not _calls_ok(calls, _tools(env.task)) or not _raw_agrees(candidate):
        return "FAIL"
    if "final_message" not in candidate and len(set(_key(calls))) != len(calls):
        return "FAIL"  # a tool-call answer states each call once; records may re-read
    return "PASS" if _grounded(calls, env.task) else "FAIL"
