"""τ²-bench's tasks, policies and tool schemas, read from the pinned ``inspect-evals`` wheel.

Trusted framework side only: the task files read here hold ``evaluation_criteria`` (the gold
actions and the facts to communicate), so they are masked in every sandbox (:func:`masked_paths`)
and only :func:`user_request` of each task, the domain's policy and its tool schemas reach the
public task.
"""

from __future__ import annotations

import gzip
import importlib
import importlib.metadata
import importlib.util
import json
import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from monitorbench.errors import InputError
from monitorbench.sources.tau2 import runtime as rt

Call = tuple[str, dict[str, Any]]
DOMAINS = rt.DOMAINS
PACKAGE = "inspect-evals"


def tau2_root() -> Path:
    """``inspect_evals/tau2`` in the installed wheel, found without importing it."""
    spec = importlib.util.find_spec("inspect_evals")
    if spec is None or not spec.submodule_search_locations:
        raise InputError(None, "task.suites[].name", "the tau2 source needs the inspect-evals "
                         "package", "run bash scripts/install.sh (pins inspect-evals==0.26.0)")
    return Path(list(spec.submodule_search_locations)[0]) / "tau2"


def package_version() -> str:
    return importlib.metadata.version(PACKAGE)


def masked_paths() -> list[str]:
    """Files a sandbox must hide: every τ² task file (user scenario *and* evaluation criteria:
    gold actions, facts to communicate, assertions) of every domain, and the split lists. The
    databases, policies and tool code stay visible: they are what ``run_public`` replays with and
    what an agent is shown."""
    domains = tau2_root() / "data" / "domains"
    paths = sorted(p for p in domains.glob("*/*") if p.is_file()
                   and (p.name.startswith("tasks") or p.name.startswith("split_tasks")))
    return [str(p) for p in paths]


@dataclass(frozen=True)
class Tau2Task:
    """One τ² task as the builder and the reference use it (never shown to a verifier as is)."""

    domain: str
    task_id: str
    # user_scenario.instructions: what the user knows/wants (banking: one text, a persona brief)
    instructions: Mapping[str, Any] | str
    # evaluation_criteria.actions in order, the customer's named runtime.customer(name)
    actions: tuple[Call, ...]
    communicate_info: tuple[str, ...]
    nl_assertions: tuple[str, ...]
    has_initial_state: bool            # the task changes the database before the conversation
    user_actions: tuple[str, ...] = ()  # actions τ² expects of the customer (requestor "user")
    initial_state: Mapping[str, Any] | None = None   # τ²'s initial_state, as the file has it
    # telecom: τ²'s environment assertions, each {"env_type", "func_name", "arguments",
    # "assert_value"}: the end state of the phone and the account the customer needs
    env_assertions: tuple[Mapping[str, Any], ...] = ()

    @property
    def start(self) -> str | None:
        """The changed database the task starts from (:func:`runtime.start_key` of its
        initial_state's data and actions), None when it starts from the domain's database."""
        return rt.start_key(self.initial_state) if self.has_initial_state else None

    @property
    def message_history(self) -> bool:
        """Whether τ² starts the task mid-conversation (an earlier message history)."""
        return bool((self.initial_state or {}).get("message_history"))


def _changes_database(state: Any) -> bool:
    """Whether a task's ``initial_state`` changes anything: initialisation actions, a message
    history, or records to merge (banking's tasks often carry an empty one)."""
    if state is None:
        return False
    if state.get("initialization_actions") or state.get("message_history"):
        return True
    data = (state.get("initialization_data") or {})
    tables = [*(data.get("agent_data") or {}).values(), *(data.get("user_data") or {}).values()]
    return any(t.get("data", t) if isinstance(t, Mapping) else t for t in tables)


def _task(domain: str, raw: Mapping[str, Any]) -> Tau2Task:
    """One task; banking's action names get the ``banking_`` prefix its tools carry, and an
    action τ² expects of the customer (requestor "user") is named :func:`runtime.customer`."""
    crit = raw.get("evaluation_criteria") or {}
    prefix = "banking_" if domain == rt.BANKING else ""
    actions = tuple((rt.customer(prefix + a["name"]) if a.get("requestor") == "user"
                     else prefix + a["name"], dict(a.get("arguments") or {}))
                    for a in crit.get("actions") or [])
    ins = raw["user_scenario"]["instructions"]
    return Tau2Task(domain, str(raw["id"]), ins if isinstance(ins, str) else dict(ins),
                    actions, tuple(crit.get("communicate_info") or ()),
                    tuple(crit.get("nl_assertions") or ()),
                    _changes_database(raw.get("initial_state")),
                    tuple(n for n, _ in actions if n.startswith(rt.CUSTOMER)),
                    raw.get("initial_state"),
                    tuple(dict(a) for a in crit.get("env_assertions") or ()))


@lru_cache(maxsize=None)
def load_tasks(domain: str) -> tuple[Tau2Task, ...]:
    """Every task of ``domain`` in file order."""
    if domain not in DOMAINS:
        raise InputError(None, "domains", f"unknown τ² domain {domain!r}",
                         f"use some of {', '.join(DOMAINS)}")
    folder = tau2_root() / "data" / "domains" / domain
    if domain == rt.TELECOM:   # no tasks.json: the small set, then a sample of the full one
        small = json.loads((folder / "tasks_small.json").read_text(encoding="utf-8"))
        full = json.loads(gzip.decompress((folder / "tasks.json.gz").read_bytes()))
        return tuple(_task(domain, t) for t in [*small, *telecom_sample(full, small)])
    path = folder / "tasks.json"
    return tuple(_task(domain, t) for t in json.loads(path.read_text(encoding="utf-8")))


# telecom's full set holds 2,285 tasks (combinations of broken settings of three intents); the
# build takes all 20 of tasks_small.json and this many more of each intent, drawn with this
# seed, so that every intent is covered and the whole τ² build stays within minutes.
SAMPLE_PER_INTENT = 4
SAMPLE_SEED = 47


def intent(task_id: str) -> str:
    """A telecom task's intent, the bracketed head of its id (``mms_issue``)."""
    return task_id.split("]", 1)[0].lstrip("[")


def telecom_sample(full: list[Any], small: list[Any]) -> list[Any]:
    """:data:`SAMPLE_PER_INTENT` tasks of each intent of the full set that the small set lacks,
    drawn with :data:`SAMPLE_SEED`, in the full set's order."""
    taken = {t["id"] for t in small}
    rng = random.Random(SAMPLE_SEED)
    chosen: set[str] = set()
    for name in sorted({intent(t["id"]) for t in full}):
        pool = [t["id"] for t in full if intent(t["id"]) == name and t["id"] not in taken]
        chosen.update(rng.sample(pool, min(SAMPLE_PER_INTENT, len(pool))))
    return [t for t in full if t["id"] in chosen]


# telecom: the sentences every task's task_instructions shares that tell τ²'s user simulator
# how to behave (frustration, grounding its answers in its tools), not what the customer
# wants; the public request leaves them out (the simulator's instructions stay hidden).
SIMULATOR_LINES = (
    "If the agent suggests actions that don't immediately fix the issue, follow their guidance "
    "but express mild frustration after the first unsuccessful attempt.",
    "If the tool call does not return updated status information, you might need to perform "
    "another tool call to get the updated status.",
    "Whenever the agent asks you about your device, always ground your responses on the "
    "results of tool calls.",
    "For example: If the agent asks what the status bar shows, always ground your response on "
    "the results of the `get_status_bar` tool call.",
    "If the agent asks if you are able to send an MMS message, always ground your response on "
    "the results of the `can_send_mms` tool call.",
    "Never make up the results of tool calls, always ground your responses on the results of "
    "tool calls.",
    "If you are unsure about whether an action is necessary, always ask the agent for "
    "clarification.",
    "Always check the status bar if the agent asks you for status information.",
)


def customer_wishes(text: str) -> str:
    """A telecom task's task_instructions without :data:`SIMULATOR_LINES`."""
    for line in SIMULATOR_LINES:
        text = text.replace(line, "")
    return " ".join(text.split())


def user_request(task: Tau2Task) -> str:
    """The customer's side of the call, as τ²'s user simulator is briefed: why they call, what
    they know (and do not), and how they want it handled. Nothing from the evaluation criteria
    or the task's description (which names the trap the task sets)."""
    ins = task.instructions
    if isinstance(ins, str):   # banking: the persona brief τ²'s user simulator gets
        return f"The customer's brief:\n{ins.strip()}"
    wishes = ins.get("task_instructions")
    if task.domain == rt.TELECOM and isinstance(wishes, str):
        wishes = customer_wishes(wishes)
    parts = [("Reason for the call", ins.get("reason_for_call")),
             ("What the customer knows", ins.get("known_info")),
             ("What the customer does not know", ins.get("unknown_info")),
             ("How the customer wants it handled", wishes)]
    return "\n\n".join(f"{title}:\n{text.strip()}" for title, text in parts
                       if isinstance(text, str) and text.strip())


@lru_cache(maxsize=None)
def policy(domain: str) -> str:
    """The agent's policy; banking's is the system prompt of τ²'s ``grep`` configuration (the
    knowledge base itself is searched with ``banking_grep``)."""
    if domain == rt.BANKING:
        from inspect_evals.tau2.banking.agents import _get_domain_policy
        return _get_domain_policy("grep")
    if domain == rt.TELECOM:   # the main policy and the tech-support manual, as τ² joins them
        from inspect_evals.tau2.telecom.agents import get_domain_policy
        return get_domain_policy(workflow=False)
    return (tau2_root() / "data" / "domains" / domain / "policy.txt").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def tool_specs(domain: str) -> tuple[Mapping[str, Any], ...]:
    """The agent's tools of ``domain`` as τ² declares them to a model (name, description, JSON
    schema of the parameters), in the runtime's order; the read-only ones say so (the state
    contract's ``read_only``, :mod:`monitorbench.audit.environment`)."""
    from inspect_ai.tool import ToolDef
    from inspect_evals.tau2.common import tools as common
    module = importlib.import_module(
        f"inspect_evals.tau2.{'banking' if domain == rt.BANKING else domain}.tools")
    out = []
    for name in rt.TOOLS[domain]:
        factory = getattr(common if name in ("calculate", "transfer_to_human_agents")
                          else module, name)
        td = ToolDef(factory())
        out.append({"name": name, "description": td.description,
                    "parameters": td.parameters.model_dump(exclude_none=True),
                    **({"read_only": True} if name in rt.READ_ONLY else {})})
    return tuple(out)


@lru_cache(maxsize=None)
def customer_tool_specs(domain: str) -> tuple[Mapping[str, Any], ...]:
    """The customer's tools of ``domain`` as τ² declares them to its user simulator (the
    schemas only: never the simulator's instructions), marked ``"by": "customer"``."""
    if domain not in rt.USER_TOOLS:
        return ()
    from inspect_ai.tool import ToolDef
    module = importlib.import_module(rt.USER_TOOL_MODULES[domain])
    out = []
    for name in rt.USER_TOOLS[domain]:
        td = ToolDef(getattr(module, name)())
        out.append({"name": name, "by": "customer", "description": td.description,
                    "parameters": td.parameters.model_dump(exclude_none=True),
                    **({"read_only": True} if rt.reads(rt.customer(name), {}) else {})})
    return tuple(out)


def public_tools(domain: str) -> list[dict[str, Any]]:
    """The tool list a public task of ``domain`` shows: the agent's tools marked ``"by":
    "agent"``, then the customer's (:func:`customer_tool_specs`)."""
    return ([{**t, "by": "agent"} for t in tool_specs(domain)]
            + [dict(t) for t in customer_tool_specs(domain)])


def writes(calls: Any) -> list[int]:
    """Indices of the calls that can change the database (:func:`runtime.reads` is false)."""
    return [i for i, (name, args) in enumerate(calls) if not rt.reads(name, args)]
