"""Prompt texts, versioned. The version and a hash of the texts are part of the generator's
identity, so editing a prompt can never silently reuse verifiers or replies cached under the old
wording.

Generation prompts carry the three things the paper's agents receive (§2.1): the task's
instruction and environment (the public ``task.json`` and the list of other public files), and
the verifier's input/output contract. Nothing from the hidden tree is ever formatted in here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from monitorbench.errors import InputError
from monitorbench.providers.base import Message
from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.task_types import TASK_TYPES

TASK_JSON_CAP = 20000  # characters of task.json put into the first message

CONTRACT = """\
Verifier contract. Write one Python file, main.py, that defines

    def verify(candidate: dict, env) -> str | dict

Return "PASS" when the candidate solution satisfies the task and "FAIL" otherwise, or
{"decision": "PASS" | "FAIL", "confidence": <float 0..1>} (confidence does not change the
decision). The candidate is a JSON object whose fields depend on the task type:
{candidate_kinds}
task.json describes the candidate fields when it has a candidate format entry.
For state and code tasks, env.run_public(...) executes in the task environment (for example to
replay the candidate's actions or run the repository's tests) and returns JSON-like data; the
number of executions is limited. The verifier runs in a sandbox without network, may use the
Python standard library, and can read the public task files under /task. Accept every solution
the task allows; reject solutions that violate a requirement of the task.""".replace(
    "{candidate_kinds}", ";\n".join(f"- {t.name}: {t.candidate}" for t in TASK_TYPES.values())
    + ".")

ONESHOT_SYSTEM = """\
You write executable verifiers for agent tasks. A verifier decides whether a candidate solution
to the task is acceptable.

{contract}

Answer with the complete main.py in one ```python fenced block."""

AGENT_PROTOCOL = """\
You work in turns. Each reply must contain exactly one action: a fenced block whose first line
names the action. The actions are:

```read
<path of a public task file, e.g. task.json>
```

```run_public
<JSON object of keyword arguments for env.run_public>
```
(runs in the task environment; {budget} executions in total, shared with self-tests)

```write_verifier
<the complete main.py>
```

```self_test PASS
<JSON candidate object>
```
(runs your current main.py on a candidate you wrote; put PASS or FAIL after self_test: the
decision you expect){challenge_actions}

```submit
```
(delivers the current main.py and ends the session)

After each action you receive its result. Write the verifier early and test it."""

CHALLENGE_ACTIONS = """

```conditions
[{{"condition": "...", "required_by": "<the part of the task that requires it>",
  "variation": "<a solution that differs in a permitted way and must PASS>",
  "violation": "<a solution that breaks this condition and must FAIL>"}}]
```
(lists every acceptance condition your verifier checks)"""

CHALLENGE_RULES = """\
Before you submit: list every acceptance condition your verifier checks with the part of the
task that requires it (action conditions), write for each condition a permitted variation and a
violation and self-test them, and obtain PASS from your current main.py on at least one complete
valid solution (a self_test PASS that returns PASS). submit is refused until that last rule
holds. A check that no part of the task requires rejects valid solutions: remove it."""

AGENT_SYSTEM = """\
You write executable verifiers for agent tasks. A verifier decides whether a candidate solution
to the task is acceptable.

{contract}

{protocol}"""

TASK_MESSAGE = """\
Task {task_id} (type {task_type}).

Public files: {files}

task.json:
{task_json}"""

JUDGE_SYSTEM = """\
You judge whether a candidate solution to an agent task is acceptable. Accept every solution the
task allows; reject solutions that violate a requirement of the task. Answer with one line:
DECISION: PASS  or  DECISION: FAIL"""

JUDGE_MESSAGE = """\
Task (type {task_type}):
{task_json}

Candidate solution:
{candidate}"""

PROMPTS: dict[str, dict[str, str]] = {
    "v1": {"contract": CONTRACT, "oneshot_system": ONESHOT_SYSTEM, "agent_protocol": AGENT_PROTOCOL,
           "challenge_actions": CHALLENGE_ACTIONS, "challenge_rules": CHALLENGE_RULES,
           "agent_system": AGENT_SYSTEM, "task_message": TASK_MESSAGE,
           "judge_system": JUDGE_SYSTEM, "judge_message": JUDGE_MESSAGE},
}


def templates(version: str, config_file: str = "conf/scaffold") -> dict[str, str]:
    if version not in PROMPTS:
        raise InputError(config_file, "scaffold.prompt_version", f"unknown version {version!r}",
                         f"use one of {', '.join(sorted(PROMPTS))}")
    return PROMPTS[version]


def prompts_sha256(version: str) -> str:
    """Hash of the prompt texts of one version (part of the generator identity)."""
    return sha256_text(canonical_json(templates(version)))[:16]


def public_files(public_dir: Path) -> list[str]:
    """Relative paths of the files a generator may read."""
    return sorted(str(p.relative_to(public_dir)) for p in Path(public_dir).rglob("*")
                  if p.is_file())


def _task_json(public_dir: Path) -> str:
    path = Path(public_dir) / "task.json"
    if not path.is_file():
        raise InputError(path, None, "public task.json is missing",
                         "pass the task's public directory (public/<task_id>) of a built suite")
    text = path.read_text(encoding="utf-8")
    if len(text) > TASK_JSON_CAP:
        text = text[:TASK_JSON_CAP] + "\n...[cut; use the read action for the rest]"
    return text


def _task_message(t: Mapping[str, str], task_id: str, task_type: str, public_dir: Path) -> str:
    return t["task_message"].format(task_id=task_id, task_type=task_type,
                                    files=", ".join(public_files(public_dir)),
                                    task_json=_task_json(public_dir))


def oneshot_messages(version: str, task_id: str, task_type: str, public_dir: Path
                     ) -> list[Message]:
    t = templates(version)
    return [{"role": "system", "content": t["oneshot_system"].format(contract=t["contract"])},
            {"role": "user", "content": _task_message(t, task_id, task_type, public_dir)}]


def agent_messages(version: str, task_id: str, task_type: str, public_dir: Path, *,
                   run_public_budget: int, challenge: bool) -> list[Message]:
    t = templates(version)
    protocol = t["agent_protocol"].format(
        budget=run_public_budget,
        challenge_actions=t["challenge_actions"].format() if challenge else "")
    if challenge:
        protocol += "\n\n" + t["challenge_rules"]
    return [{"role": "system", "content": t["agent_system"].format(contract=t["contract"],
                                                                   protocol=protocol)},
            {"role": "user", "content": _task_message(t, task_id, task_type, public_dir)}]


def judge_messages(version: str, task_type: str, public: Mapping[str, Any],
                   candidate: Mapping[str, Any]) -> list[Message]:
    t = templates(version)
    task_json = json.dumps(dict(public), indent=1, ensure_ascii=False)[:TASK_JSON_CAP]
    return [{"role": "system", "content": t["judge_system"]},
            {"role": "user", "content": t["judge_message"].format(
                task_type=task_type, task_json=task_json,
                candidate=json.dumps(dict(candidate), indent=1, ensure_ascii=False))}]
