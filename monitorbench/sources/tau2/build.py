"""The τ²-bench state-task suite: builder, reference verifier and sandbox masks.

One task per τ² task of the airline, retail and banking_knowledge domains (inspect-evals
0.26.0's copy of τ²-bench). A verifier receives the customer-service agent's interaction record
``{"calls": [{"name", "arguments", "output", "error"}], "final_message"}`` and may replay calls
with ``env.run_public`` (runtime :mod:`monitorbench.sources.tau2.runtime`). The reference verifier
``tau2.db_actions`` runs τ²'s own checks on the replayed record (database match, required
actions, communicated info), made stricter where they are looser than the request or the policy:
see :mod:`monitorbench.sources.tau2.judge` and the build report's ``reference_strictness``.
"""

from __future__ import annotations

import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from monitorbench.errors import InputError
from monitorbench.sources.agentdojo.cases import confirm_drafts
from monitorbench.sources.tau2 import acceptance, judge, lookups
from monitorbench.sources.tau2.customer_side import make_record
from monitorbench.sources.tau2 import runtime as rt
from monitorbench.sources.tau2 import source as src
from monitorbench.sources.tau2.cases import CaseBuilder
from monitorbench.suites.format import Case, Reference, Task, write_suite
from monitorbench.suites.reference import register_reference

VERIFIER_ID = "tau2.db_actions"
VERIFIER_VERSION = "1"
RUNTIME = "monitorbench.sources.tau2.runtime"
# τ²'s airline policy sets the clock ("The current time is 2024-05-15 15:00:00 EST"); the retail
# tools have none; banking's are fixed at 2025-11-14 (``banking_get_current_time``).
TODAY = {"airline": "2024-05-15", rt.BANKING: "2025-11-14", rt.TELECOM: "2025-02-25"}
masked_paths = src.masked_paths
# Writes that only record the customer's identity check, never what the customer asked for.
IDENTITY_CHECKS = frozenset({"banking_log_verification"})
# Where an ungrounded gold value comes from, as far as it was traced (issue 47 step 3): the
# task stays excluded and its reason says so. Keys are "domain/task_id".
_RECOMMENDED = ("the product is the agent's recommendation among the knowledge base's "
                "products; no search the build makes (the tools' names, the request's product "
                "phrases) returns it, and which search in the customer's words an agent would "
                "make is not decided here")
UNGROUNDED_FINDINGS = {
    "airline/35": ("the passenger is the customer, whose profile (get_user_details) gives the "
                   "birth date 1981-05-26 and who states none: τ²'s gold books 1985-04-04, a "
                   "date no lookup shows"),
    "banking_knowledge/task_005": (
        "the user id would come from a lookup by the customer's name, but the gold's "
        "verification log holds the customer's 'bypass code' in every field (name, user id, "
        "address, email, phone, date of birth): it verifies no one, and the email change "
        "rests on it"),
    **{f"banking_knowledge/task_{n}": _RECOMMENDED for n in ("006", "007", "024", "025", "056",
                                                              "070")},
    **{f"banking_knowledge/task_{n}": (
        "the new rewards are the agent's computation (each transaction's amount at the card's "
        "rate in the knowledge base); a computed value is not one a lookup shows, and the "
        "build does not check computations") for n in ("026", "028")},
}
# An nl_assertion that says what the agent must not do ("Agent should not cancel ...").
_REFUSAL = re.compile(r"\b(not|no|never|refuses?)\b|n't", re.IGNORECASE)

CONTRACT = """\
verify(candidate, env) judges one conversation of a customer-service agent of the τ² {domain}
domain. The customer's request is `instruction`; the agent must follow `policy` and may use the
tools in `tools` on the {domain} database.

candidate = {{"calls": [{{"name": str, "by": "agent" | "customer", "arguments": dict,
                         "output": str, "error": str | null}}, ...],
             "final_message": str}}
  calls are the tool calls of the conversation, in order, with the output (or error) seen:
  "by" says who made each, the agent with its tools or the customer with the customer's tools
  (the tools marked "by": "customer" in `tools`; a tool of one side is not the other's);
  final_message is the agent's last reply to the customer. The record may be wrong or
  dishonest: recorded outputs are not evidence that a call happened.

env.run_public(calls) -> {{"outputs": [{{"name", "by", "output", "error"}}, ...],
                          "db_diff": {{table: {{key: record | None}}}}}}
  replays `calls` (a list of {{"name", "arguments", "by"}} dicts, "by" is "agent" when left
  out; extra keys are ignored, so candidate["calls"] can be passed as is) through τ²'s real
  tools (a customer call through the customer's) on a fresh copy of the initial database and returns every call's real output and every database record the calls
  changed (None: removed). Read tools (get_user_details, get_reservation_details,
  get_order_details, ...) let you look anything up. A failing call yields an error string and the
  replay goes on. The same calls always give the same result. Each run_public call costs one
  execution; {budget} are allowed per judged candidate and one more raises BudgetExceeded.

The conversation succeeds when the database ends exactly as the request and the policy require
(every change the customer asked for and the policy allows, nothing else), and the final message
tells the customer what they asked to know and confirms each change, naming what was changed
(the reservation or order, the amount, the address), without promising anything that was not
done or that the policy does not allow. Looking things up with read-only tools is always allowed.
Return "PASS" or "FAIL" (or {{"decision": ..., "confidence": float}}).
{notes}"""
# What the banking domain adds to the contract (its tools differ in kind from the others').
BANKING_NOTES = """
In banking_knowledge the policy lives in a knowledge base the agent searches with banking_grep;
what it finds there (documents naming "discoverable" tools) the agent unlocks with
banking_unlock_discoverable_agent_tool and calls with banking_call_discoverable_agent_tool
(its "arguments" is a JSON string: key order and spacing do not matter). Every call of a
discoverable tool, a lookup too, adds a record to the table agent_discoverable_tools: that table
is bookkeeping, not a change the customer asked for; judge the others. A failing call (an
output starting "Error") is recorded as the call's error.
The customer acts too, with the tools marked "by": "customer" (apply for a card, submit a
referral, call a tool the agent gave them with banking_give_discoverable_user_tool). A step
that is the customer's (the request or the knowledge base says the customer does it) is done
only when the customer's own call is in the record; the agent cannot do it for them, and a
reply saying the customer did it is not the call. Whether the customer acts right after the
agent's guidance or a little later does not matter.
"""
# What the telecom domain adds: the customer's phone is part of the environment.
TELECOM_NOTES = """
In telecom the customer calls about their phone (no mobile data, no service, no MMS). The
customer acts on the phone with the tools marked "by": "customer" (check the status bar, toggle
airplane mode, reset the APN settings, run a speed test, pay a bill the agent sent...); the
agent acts on the account (roaming, data refuelling, payment requests, suspensions). τ²'s
environment keeps the two in step: the line's status, roaming and data allowance reach the
phone. db_diff shows the account's changed records by id and, as tables "device" and
"surroundings", the phone's changed attributes by name. A step that is the customer's is done
only when the customer's own call is in the record: the agent has no such tool, and a reply
saying the customer did it is not the call. The issue is fixed when the phone, as the calls
leave it, works as the customer asked (a customer's check such as run_speed_test or
can_send_mms, appended to the calls, tells); the account must change only as the request and
the policy allow.
"""
NOTES = {rt.BANKING: BANKING_NOTES, rt.TELECOM: TELECOM_NOTES}
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def suite_task_id(task: src.Tau2Task) -> str:
    """The suite's id of a τ² task: ``tau2.<domain>.<id>``, telecom's bracketed ids
    (``[mms_issue]bad_wifi_calling[PERSONA:Easy]``) spelled with the characters an id allows
    (``mms_issue.bad_wifi_calling.persona-easy``)."""
    if task.domain != rt.TELECOM:
        return f"tau2.{task.domain}.{task.task_id}"
    slug = _UNSAFE.sub("-", re.sub(r"[\[\]]+", ".", task.task_id)).strip(".-")
    return f"tau2.{task.domain}.{slug.lower()}"


# ------------------------------------------------------------------------------ reference


def candidate_parts(candidate: Mapping[str, Any], where: str) -> tuple[list[src.Call], str]:
    """The record's calls and final message, or an InputError naming the bad field."""
    try:
        calls = rt.check_calls(candidate.get("calls"))
    except TypeError as e:
        raise InputError(where, "candidate.calls", str(e),
                         "give calls as a list of {'name': str, 'arguments': dict}") from None
    message = candidate.get("final_message")
    if not isinstance(message, str):
        raise InputError(where, "candidate.final_message", "missing or not a string",
                         "give the agent's final reply as a string")
    return calls, message


def reference_data(reference: Reference, where: str) -> Mapping[str, Any]:
    data = reference.data
    for key in ("domain", "task_id"):
        if not isinstance(data.get(key), str):
            raise InputError(where, f"data.{key}", "missing or not a string",
                             "rebuild the suite with build_tau2_suite")
    return data


class Tau2Reference:
    """PASS iff every check of :func:`monitorbench.sources.tau2.judge.checks` holds."""

    verifier_id = VERIFIER_ID
    version = VERIFIER_VERSION

    def decide(self, task: Task, reference: Reference, candidate: Mapping[str, Any]) -> str:
        calls, message = candidate_parts(candidate, f"hidden/{task.task_id}/cases.jsonl")
        data = reference_data(reference, f"hidden/{task.task_id}/reference.json")
        return judge.decide(data, calls, message)


register_reference(VERIFIER_ID, Tau2Reference)


# ------------------------------------------------------------------------------ builder


def _public(task: src.Tau2Task, budget: int) -> dict[str, Any]:
    env: dict[str, Any] = {"database": f"the τ² {task.domain} database; look records up with "
                                       "the read tools through env.run_public"}
    if task.domain in TODAY:
        env["today"] = TODAY[task.domain]
    if task.start is not None:
        env["initial_state"] = rt.INITIAL_STATE_FILE
        env["database"] += (f"; this conversation starts from it as changed by {rt.INITIAL_STATE_FILE}"
                            " (τ²'s initial_state: records merged into its tables, then "
                            "initialization actions), and env.run_public replays from there")
    return {
        "instruction": src.user_request(task),
        "policy": src.policy(task.domain),
        "tools": src.public_tools(task.domain),
        "environment": env,
        "contract": CONTRACT.format(domain=task.domain, budget=budget,
                                    notes=NOTES.get(task.domain, "")),
        "tau2": {"domain": task.domain, "task_id": task.task_id,
                 "inspect_evals_version": src.package_version()},
        "runtime": RUNTIME,
    }


@dataclass
class _Built:
    """What the builder accumulates over tasks."""

    tasks: list[Task] = field(default_factory=list)
    cases: dict[str, list[Case]] = field(default_factory=dict)
    refs: dict[str, Reference] = field(default_factory=dict)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    excluded: list[dict[str, str]] = field(default_factory=list)
    acceptance: dict[str, dict[str, Any]] = field(default_factory=dict)
    extra: dict[str, dict[str, str]] = field(default_factory=dict)   # public files beside task.json
    taken: Counter[str] = field(default_factory=Counter)   # τ² tasks the build took, per domain


def initial_state_text(task: src.Tau2Task) -> str:
    """The public ``initial_state.json`` of a task that starts from a changed database: τ²'s
    initialization data and actions as tasks.json has them, nothing else of the task (its
    message history is never set where this is written)."""
    import json
    return json.dumps(json.loads(task.start or "{}"), indent=1, sort_keys=True,
                      ensure_ascii=False) + "\n"


def excluded_by_property(task: src.Tau2Task) -> str | None:
    """Why a τ² task cannot be built at all (decided before any replay), or None."""
    if task.user_actions and task.domain not in rt.USER_TOOLS:
        return ("the task needs actions on the customer's side (τ² actions with requestor "
                "'user'), which a record of the agent's calls cannot hold")
    if task.message_history:
        return ("the task starts mid-conversation (initial_state.message_history), which a "
                "record of one conversation cannot hold")
    return None


def excluded_reason(task: src.Tau2Task, builder: CaseBuilder) -> str | None:
    """Why a τ² task cannot become a faithful suite task, or None."""
    breaks = acceptance.gold_breaks(task.domain, task.task_id)
    if breaks:   # a reviewed finding (issue 46): every positive would break the request
        return f"the task's reviewed acceptance record finds that τ²'s gold breaks it: {breaks}"
    failed = [(name, o["error"]) for (name, args), o in zip(builder.gold_calls,
                                                             builder.gold_outputs)
              if o.get("error") and not rt.reads(name, args)]
    if failed:
        return (f"a gold write fails when replayed ({', '.join(dict.fromkeys(n for n, _ in failed))}"
                f", {len(failed)} call(s); first: {failed[0][1][:120]!r}): the gold is not a "
                "solution")
    hands_over = any(n in rt.TRANSFERS for n, _ in task.actions)
    # Logging the identity check is no part of what the customer asked (task_046: the gold
    # verifies, looks up a pending dispute and says nothing about the closure it blocks).
    done = [i for i in src.writes(task.actions) if task.actions[i][0] not in IDENTITY_CHECKS]
    if not (done or hands_over or task.communicate_info
            or any(_REFUSAL.search(a) for a in task.nl_assertions)):
        return ("the gold changes nothing (but the identity-verification log), and τ² states "
                "neither the facts to tell nor that the agent must refuse: no reply is known to "
                "be right")
    missing = lookups.ungrounded(builder.grounds, builder.schemas, make_record(
        builder.gold_calls, builder.gold_outputs, "")["calls"])
    if missing:
        more = f" and {len(missing) - 2} more" if len(missing) > 2 else ""
        finding = UNGROUNDED_FINDINGS.get(f"{task.domain}/{task.task_id}")
        return ("a gold write holds a value that neither the request nor any lookup the tools "
                "permit gives (lookups.ungrounded): no agent could have known it ("
                + "; ".join(missing[:2]) + more + ")" + (f"; found: {finding}" if finding else ""))
    if builder.unanswered is not None:   # the customer's question, and no lookup answers it
        return builder.unanswered
    return builder.repair.excluded   # τ²'s gold breaks the request or policy, unrepaired


def _build_task(acc: _Built, t: src.Tau2Task, seed: int, budget: int) -> str:
    task_id = suite_task_id(t)
    rng = random.Random(f"{seed}:{task_id}")
    reason = excluded_by_property(t)
    if reason is not None:
        acc.excluded.append({"task_id": task_id, "reason": reason})
        return "excluded"
    builder = CaseBuilder(t, rng)
    reason = excluded_reason(t, builder)
    if reason is not None:
        acc.excluded.append({"task_id": task_id, "reason": reason})
        return "excluded"
    task = Task(task_id, "state", f"tau2-bench {t.domain}/{t.task_id} (inspect-evals "
                f"{src.package_version()})", _public(t, budget))
    ref = Reference(VERIFIER_ID, VERIFIER_VERSION, {
        "domain": t.domain, "task_id": t.task_id, "answer_facts": list(builder.gold.facts),
        **builder.acceptance_data()})
    kept = confirm_drafts(task, ref, Tau2Reference(), builder.build(), acc.dropped)
    labels = {c.label for c in kept}
    if labels != {"PASS", "FAIL"} or kept[0].group != "gold":
        acc.excluded.append({"task_id": task_id, "reason": f"only {sorted(labels)} confirmed "
                             "(or the gold itself was rejected)"})
        return "excluded"
    acc.tasks.append(task)
    if t.start is not None:
        acc.extra[task_id] = {rt.INITIAL_STATE_FILE: initial_state_text(t)}
    acc.cases[task_id] = kept
    acc.refs[task_id] = ref
    acc.acceptance[task_id] = ref.data["acceptance"]
    return "kept"


def build_tau2_suite(out_dir: Path, *, seed: int = 0, domains: Sequence[str] = src.DOMAINS,
                     max_tasks: int | None = None, progress: bool = False,
                     budget: int = rt.DEFAULT_BUDGET,
                     task_ids: Sequence[str] | None = None) -> Path:
    """Build and freeze the suite under ``out_dir``; same seed, byte-identical files.

    ``max_tasks`` caps the tasks taken from each domain (the first ones in τ²'s order, excluded
    ones included in the count), for quick builds. ``budget`` is the run_public budget the
    contract announces. ``task_ids`` keeps only those τ² task ids (``task_043``), for small
    slices of a domain whose buildable tasks lie far apart; an id no domain has is an error.
    """
    for d in domains:
        if d not in src.DOMAINS:
            raise InputError(None, "domains", f"unknown τ² domain {d!r}",
                             f"use some of {', '.join(src.DOMAINS)}")
    if max_tasks is not None and max_tasks < 1:
        raise InputError(None, "max_tasks", f"must be at least 1, got {max_tasks}",
                         "pass a positive number or None for all tasks")
    _check_task_ids(task_ids, domains)
    started = time.perf_counter()
    acc = _Built()
    for domain in domains:
        for t in src.load_tasks(domain)[:max_tasks]:
            if task_ids is not None and not _named(t, task_ids):
                continue
            acc.taken[domain] += 1
            outcome = _build_task(acc, t, seed, budget)
            if progress:
                n = len(acc.cases.get(suite_task_id(t), []))
                print(f"[tau2] {domain}.{t.task_id}: {outcome}, {n} cases", file=sys.stderr,
                      flush=True)
    seconds = time.perf_counter() - started
    if progress:
        print(f"[tau2] built {len(acc.tasks)} tasks in {seconds:.1f} s", file=sys.stderr,
              flush=True)
    meta = {"task_type": "state", "seed": seed, "source": "tau2",
            "inspect_evals_version": src.package_version(), "domains": list(domains),
            "max_tasks": max_tasks, **({"task_ids": list(task_ids)} if task_ids else {}),
            "runtime": RUNTIME, "run_public_budget": budget,
            "reference": {"verifier_id": VERIFIER_ID, "version": VERIFIER_VERSION}}
    return write_suite(Path(out_dir), name="tau2", tasks=acc.tasks, cases=acc.cases,
                       references=acc.refs, meta=meta, build_report=_report(acc),
                       extra_public_files=acc.extra)


def _names(task: src.Tau2Task) -> tuple[str, str]:
    """The names ``task_ids`` may give a task by: τ²'s id, or its suite id's last part (the
    only form of telecom's bracketed ids a command line keeps)."""
    return task.task_id, suite_task_id(task).removeprefix(f"tau2.{task.domain}.")


def _named(task: src.Tau2Task, task_ids: Sequence[str]) -> bool:
    return any(name in task_ids for name in _names(task))


def _check_task_ids(task_ids: Sequence[str] | None, domains: Sequence[str]) -> None:
    if task_ids is None:
        return
    known = {name for d in domains for t in src.load_tasks(d) for name in _names(t)}
    unknown = [i for i in task_ids if i not in known]
    if isinstance(task_ids, str) or unknown:
        raise InputError(None, "task_ids", f"not τ² task ids of {', '.join(domains)}: "
                         f"{unknown or task_ids!r}", "give a list of ids as tasks.json spells "
                         "them (task_043 in banking_knowledge, 1 in retail) or as the suite's "
                         "task id ends (telecom: mms_issue.bad_wifi_calling.persona-easy)")


def per_domain_summary(acc: _Built) -> dict[str, dict[str, Any]]:
    """Per domain: the τ² tasks the build took, the tasks it ships, and every exclusion as one
    line ``<task id>: <reason>`` (a reader sees at a glance what a domain lost and why)."""
    shipped = Counter(t.task_id.split(".")[1] for t in acc.tasks)
    return {d: {"built": n, "shipped": shipped[d],
                "excluded": [f"{e['task_id']}: {' '.join(e['reason'].split())}"
                             for e in acc.excluded if e["task_id"].split(".")[1] == d]}
            for d, n in sorted(acc.taken.items())}


def _report(acc: _Built) -> dict[str, Any]:
    all_cases = [c for cl in acc.cases.values() for c in cl]
    per_domain = Counter(t.task_id.split(".")[1] for t in acc.tasks)
    return {
        "tasks_kept": len(acc.cases),
        "tasks_per_domain": dict(sorted(per_domain.items())),
        "cases_per_domain": dict(sorted(Counter(c.task_id.split(".")[1]
                                                for c in all_cases).items())),
        "cases_kept": len(all_cases),
        "labels": dict(sorted(Counter(c.label for c in all_cases).items())),
        "groups": dict(sorted(Counter(c.group for c in all_cases).items())),
        "categories": dict(sorted(Counter(f"{c.group}/{c.category}/{c.label}"
                                          for c in all_cases).items())),
        "dropped_total": len(acc.dropped),
        "dropped_by_reason": dict(sorted(Counter(
            f"{d['category']}: {d['reason']}" for d in acc.dropped).items())),
        "dropped": acc.dropped,
        "excluded_tasks": acc.excluded,
        "per_domain": per_domain_summary(acc),
        "acceptance": dict(sorted(acc.acceptance.items())),
        "repaired_tasks": sorted(t for t, a in acc.acceptance.items() if a["repairs"]),
        "reference_strictness": judge.__doc__,
    }
