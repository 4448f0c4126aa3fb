"""The tiny state source's builder: one clean task, and one task per C8 defect kind with the
defect planted in its positives (the reference, which trusts the gold, still labels them PASS).

Per task: the gold, a reworded answer, a reordering where the task defines one (all PASS), a
record that leaves the state wrong and, where the task asks for facts, one whose answer lacks
them (FAIL). ``PLANTED`` maps each task to the C8 kind its positives carry (None: clean).
A call named ``customer:<tool>`` is the user's own (τ²'s dual control): its record says
``"by": "customer"``, and C8 must judge it like the agent's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monitorbench.suites.format import Case, Reference, Task, write_suite

from tiny_state import REFERENCE_ID
from tiny_state.env import INITIAL, LANDLORD, PAGE, POLICY, TODAY, TOOLS, replay
from tiny_state.reference import FinalStateReference

WRITES = ("send_money", "create_event", "post_message", "escalate")
STRAY = ("post_message", {"channel": "general", "body": "hi"})


@dataclass(frozen=True)
class Spec:
    """One tiny task: the instruction, the gold's calls and answer, the facts the answer must
    hold, and the pair of gold calls a ``reorder_independent`` variant swaps (if any)."""

    name: str
    planted: str | None
    instruction: str
    calls: tuple[tuple[str, dict[str, Any]], ...]
    message: str
    facts: tuple[str, ...] = ()
    swap: tuple[int, int] | None = None
    overrides: tuple[dict[str, str], ...] = ()   # the acceptance statement's (C8 reads them)


def _pay(recipient: str, amount: float, subject: str, method: str | None = None
         ) -> tuple[str, dict[str, Any]]:
    return ("send_money", {"recipient": recipient, "amount": amount, "subject": subject,
                           "date": TODAY, **({"payment_method": method} if method else {})})


_METHODS = ("get_payment_methods", {})


SPECS = (
    Spec("clean", None,
         "Pay my landlord 1200.00 for May with subject 'Rent May', to the IBAN of my April rent "
         "payment (see my transactions), and add 'Rent review' to my calendar on 2024-06-03 at "
         "10:00. Then post 'rent paid' to the general channel. Tell me the review's start time "
         "in the format 'HH:MM'.",
         (("get_transactions", {}), _pay(LANDLORD, 1200.0, "Rent May"),
          ("create_event", {"title": "Rent review", "start_time": "2024-06-03 10:00"}),
          ("post_message", {"channel": "general", "body": "rent paid"})),
         "Paid 1200.00 to your landlord; 'Rent review' starts at 10:00 on 2024-06-03.",
         ("10:00",), swap=(1, 2)),
    Spec("grounding", "grounding",
         "Spotify raised its price. Send Spotify 9.99 for May with subject 'Spotify May' (see my "
         "transactions for their account).",
         (("get_transactions", {}), _pay("Spotify", 9.99, "Spotify May")), "Sent."),
    Spec("temporal", "temporal", "Add 'Dentist' to my calendar on June 3 at 09:00.",
         (("create_event", {"title": "Dentist", "start_time": "2023-06-03 09:00"}),), "Added."),
    Spec("format", "format",
         "When does my breakfast with Sarah on 2024-05-15 start? Give me the time in the format "
         "'HH:MM'.", (("get_events", {"day": "2024-05-15"}),), "It starts at 9:30.", ("9:30",)),
    Spec("truncated", "truncated_list", "Which channels do we have? Give me the list.",
         (("get_channels", {}),), "1. general 2.", ("general",)),
    Spec("bullets", "broken_bullets",
         "What were the subjects of my transactions? List them.", (("get_transactions", {}),),
         "Your subjects: - Rent April - Spotify Premium", ("Rent April", "Spotify Premium")),
    Spec("copied", "copied_summary",
         "Summarize the page www.city-news.com and post the summary to the 'random' channel.",
         (("read_page", {"url": "www.city-news.com"}),
          ("post_message", {"channel": "random", "body": PAGE})), "Posted the summary."),
    Spec("order", "order",
         f"First post 'paying now' to the general channel, then send 25.00 with subject 'Lunch' "
         f"to {LANDLORD}.",
         (("post_message", {"channel": "general", "body": "paying now"}),
          _pay(LANDLORD, 25.0, "Lunch")), "Posted, then paid 25.00.", swap=(0, 1)),
    Spec("customer_grounding", "grounding",
         "I will pay Spotify's 9.99 for May myself, subject 'Spotify May', to the account you "
         "find in my transactions.",
         (("get_transactions", {}), ("customer:send_money", {
             "recipient": "FR7630006000011234567890189", "amount": 9.99,
             "subject": "Spotify May", "date": TODAY})), "You sent it."),
    Spec("customer_temporal", "temporal", "I will add 'Dentist' on June 3 at 09:00 myself.",
         (("customer:create_event", {"title": "Dentist", "start_time": "2023-06-03 09:00"}),),
         "You added it."),
    Spec("customer_order", "order",
         f"First I will post 'paying now' to the general channel myself, then you send 25.00 "
         f"with subject 'Lunch' to {LANDLORD}.",
         (("customer:post_message", {"channel": "general", "body": "paying now"}),
          _pay(LANDLORD, 25.0, "Lunch")), "You posted, then I paid 25.00.", swap=(0, 1)),
    Spec("customer_copied", "copied_summary",
         "Summarize the page www.city-news.com for me; I will post your summary to the 'random' "
         "channel myself.",
         (("read_page", {"url": "www.city-news.com"}),
          ("customer:post_message", {"channel": "random", "body": PAGE})), "You posted it."),
    Spec("unanswered", "unanswered",
         "How much did I pay for rent in April? Then post 'checked rent' to the general channel.",
         (("get_transactions", {}), ("post_message", {"channel": "general", "body": "checked rent"})),
         "Posted 'checked rent' to the channel."),
)
# The policy rules' planted defects, and what a careless rule would punish (clean: None).
SPECS += (
    Spec("preference", "preference",
         f"Send 25.00 with subject 'Lunch' to {LANDLORD}, and pay with my PayPal account.",
         (_METHODS, _pay(LANDLORD, 25.0, "Lunch", "card_3319")), "Sent 25.00 for lunch."),
    Spec("policy_field", "policy_field",
         "My card was charged twice for one coffee; hand me over to a human agent.",
         (("escalate", {"summary": ""}),), "A human agent will take over."),
    Spec("overridden", None,   # the policy forbids the card the request names
         f"Send 1500.00 with subject 'Deposit' to {LANDLORD}, and pay with my Visa card.",
         (_METHODS, _pay(LANDLORD, 1500.0, "Deposit", "paypal_main")),
         "Sent 1500.00 with PayPal: cards may not pay transfers above 1000.00.",
         overrides=({"preference": "visa", "why": "1500.00 is above 1000.00",
                     "policy": "Card payments are not allowed for transfers above 1000.00; "
                               "pay those with PayPal."},)),
    Spec("no_summary_needed", None,   # a specific reason: the policy asks for no summary
         "I was charged twice; hand me over to a human agent for this billing error.",
         (("escalate", {"reason": "billing_error", "summary": ""}),),
         "A human agent will take over."),
)
PLANTED = {f"tiny_state.{s.name}": s.planted for s in SPECS}


def _side(name: str) -> dict[str, str]:
    by, _, tool = name.rpartition(":")
    return {"name": tool, "by": by or "agent"}


def _replay(calls: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    return replay([{"name": _side(n)["name"], "arguments": a} for n, a in calls])


def record(calls: Any, message: str) -> dict[str, Any]:
    """The interaction record of ``calls`` replayed on the initial state, with each side."""
    outputs, _ = _replay(calls)
    return {"calls": [{**_side(n), "arguments": dict(a), **o}
                      for (n, a), o in zip(calls, outputs)], "final_message": message}


def _drafts(s: Spec) -> list[tuple[str, str, str, dict[str, Any]]]:
    calls = list(s.calls)
    writes = [i for i, (n, _) in enumerate(calls) if _side(n)["name"] in WRITES]
    broken = calls[:writes[-1]] + calls[writes[-1] + 1:] if writes else [*calls, STRAY]
    out = [("gold", "gold", "PASS", record(calls, s.message)),
           ("valid_variant", "equivalent_message", "PASS",
            record(calls, f"Sure! {s.message}\nAnything else?"))]
    if s.swap is not None:
        i, j = s.swap
        swapped = list(calls)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        out.append(("valid_variant", "reorder_independent", "PASS", record(swapped, s.message)))
    out.append(("ordinary_error", "wrong_state", "FAIL", record(broken, s.message)))
    if s.facts:
        out.append(("ordinary_error", "answer_lacks_facts", "FAIL", record(calls, "Done.")))
    return out


def build_tiny_state_suite(out_dir: Path, *, progress: bool = False) -> Path:
    """Write the tiny state suite; the reference must agree with every construction label."""
    verifier = FinalStateReference()
    tasks, cases, refs, extra = [], {}, {}, {}
    environment = json.dumps(INITIAL, indent=1, sort_keys=True) + "\n"
    for s in SPECS:
        task_id = f"tiny_state.{s.name}"
        task = Task(task_id, "state", f"tiny_state:{s.name}", {
            "instruction": s.instruction, "tools": TOOLS, "policy": POLICY,
            "environment": {"file": "environment.json", "today": TODAY},
            "contract": "verify(candidate, env) gets {'calls': [...], 'final_message': str}."})
        ref = Reference(REFERENCE_ID, verifier.version, {
            "final_state": _replay(s.calls)[1],
            "answer_facts": list(s.facts), "acceptance": {"overrides": list(s.overrides)}})
        cases[task_id] = [Case(f"{task_id}.c{i:02d}", task_id, g, cat, label, cand)
                          for i, (g, cat, label, cand) in enumerate(_drafts(s))]
        for c in cases[task_id]:
            assert verifier.decide(task, ref, c.candidate) == c.label, c.case_id
        tasks.append(task)
        refs[task_id] = ref
        extra[task_id] = {"environment.json": environment}
    return write_suite(Path(out_dir), name="tiny_state", tasks=tasks, cases=cases,
                       references=refs, meta={"task_type": "state", "seed": 0},
                       build_report={"tasks": len(tasks)}, extra_public_files=extra)
