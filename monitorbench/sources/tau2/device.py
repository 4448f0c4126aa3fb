"""τ²'s telecom environment assertions, checked on a replayed record (framework side only).

In telecom the customer's phone is the environment: τ² scores a conversation by asserting the
end state of the phone and of the account (``telecom/scorer.py``, ``env_assertions``: mobile
data works at excellent speed, the phone can send MMS, the line has service, the overdue bill
is paid, 2 GB were refuelled). The reference runs the same assertion methods on the state the
candidate's calls leave, so the device is judged, not the agent's account of it. The task's
assertions are evaluation criteria: they live in the hidden reference, never in the public task.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Mapping, Sequence

from monitorbench.sources.tau2 import runtime as rt

Call = tuple[str, dict[str, Any]]


def failed_assertions(assertions: Sequence[Mapping[str, Any]], calls: Sequence[Call],
                      start: str | None) -> list[str]:
    """The assertions the state after ``calls`` (replayed from ``start``) breaks, each named
    by its method and arguments; empty when all hold. τ²'s scorer builds its environment
    (which syncs the phone with the account) and asks each assertion of its side."""
    kit = rt.fresh_toolkit(rt.TELECOM, start)
    rt.replay(rt.TELECOM, kit, calls)
    env = kit.environment()
    failed = []
    for a in assertions:
        side = env.tools if a.get("env_type") == "assistant" else env.user_tools
        value = getattr(side, str(a["func_name"]))(**dict(a.get("arguments") or {}))
        if value != a.get("assert_value", True):
            failed.append(f"{a['func_name']}({dict(a.get('arguments') or {})})")
    return failed


_PHONE = re.compile(r"phone number (\d{3}-\d{3}-\d{4})")


def phone_number(instruction: str) -> str | None:
    """The phone number the customer gives (τ²'s known_info: "You are John Smith with phone
    number 555-123-2002")."""
    m = _PHONE.search(instruction)
    return m.group(1) if m else None


def identified_first(instruction: str, actions: Sequence[Call]) -> list[Call]:
    """The gold actions after the customer's identification: the telecom policy's technical
    support starts "You must first identify the customer", which τ²'s gold (the fix alone)
    leaves out, and the account's ids an agent writes come from that lookup."""
    lookup = ("get_customer_by_phone", {"phone_number": phone_number(instruction)})
    return [lookup, *(c for c in actions if c != lookup)]


def customer_line(instruction: str, run: Callable[[Sequence[Call]], list[dict[str, Any]]]
                  ) -> dict[str, str] | None:
    """``{"customer_id", "line_id"}`` of the customer's phone number: the customer found by
    it, and among their lines the one with that number (found with the agent's lookups)."""
    phone = phone_number(instruction)
    if phone is None:
        return None
    found = run([("get_customer_by_phone", {"phone_number": phone})])[0]
    if found.get("error"):
        return None
    customer = json.loads(found["output"])
    lines = customer.get("line_ids") or []
    details = run([("get_details_by_id", {"id": line}) for line in lines])
    for line, out in zip(lines, details):
        if not out.get("error") and json.loads(out["output"]).get("phone_number") == phone:
            return {"customer_id": str(customer["customer_id"]), "line_id": str(line)}
    return None


# The customer's check that shows what a fix on the phone changes (the agent asks for it
# before it asks for the fix: the tech-support manual's diagnosis steps).
DIAGNOSIS = {"toggle_roaming": ("check_network_status", ()),
             "toggle_data": ("check_network_status", ()),
             "toggle_airplane_mode": ("check_network_status", ()),
             "toggle_data_saver_mode": ("check_data_restriction_status", ()),
             "set_network_mode_preference": ("check_network_mode_preference", ()),
             "disconnect_vpn": ("check_vpn_status", ()),
             "reseat_sim_card": ("check_sim_status", ()),
             "reset_apn_settings": ("check_apn_settings", ()),
             "toggle_wifi_calling": ("check_wifi_calling_status", ()),
             "grant_app_permission": ("check_app_permissions", ("app_name",)),
             "make_payment": ("check_payment_request", ())}


def diagnosed(calls: Sequence[Call]) -> list[Call]:
    """``calls`` with the customer's matching check (:data:`DIAGNOSIS`) before each customer
    fix, once per check: τ²'s gold holds the fix alone, which no agent could ask for
    without first learning what is wrong."""
    out: list[Call] = []
    for name, args in calls:
        by, tool = rt.side(name)
        if by == "customer" and tool in DIAGNOSIS:
            check, keys = DIAGNOSIS[tool]
            call = (rt.customer(check), {k: args[k] for k in keys if k in args})
            if call not in out:
                out.append(call)
        out.append((name, args))
    return out


def policy_checked(calls: Sequence[Call], line: Mapping[str, str]) -> list[Call]:
    """``calls`` with the lookups the telecom policy asks for around account changes and
    hand-overs, which τ²'s gold leaves out: the line before enabling roaming ("you should check
    if the line is roaming enabled"), the data usage before a refuel (the limit is exceeded),
    the bill before a payment request ("Check the bill status to make sure it is overdue")
    and again after the customer pays ("Always check that the bill status is updated to
    PAID"), before the line is resumed; before a hand-over, the customer's SIM check and the
    line (a SIM locked by PIN/PUK, a suspension past the contract's end: what no agent can fix,
    "Make sure you try all the possible ways to resolve the user's issue before
    transferring"). ``line``: the customer's ``customer_id`` and ``line_id``."""
    out: list[Call] = []
    bill: str | None = None
    for name, args in calls:
        if name == "transfer_to_human_agents":
            out += [(rt.customer("check_sim_status"), {}),
                    ("get_details_by_id", {"id": line["line_id"]})]
        elif name == "enable_roaming":
            out.append(("get_details_by_id", {"id": args.get("line_id")}))
        elif name == "refuel_data":
            out.append(("get_data_usage", {"customer_id": args.get("customer_id"),
                                           "line_id": args.get("line_id")}))
        elif name == "send_payment_request":
            bill = args.get("bill_id")
            out.append(("get_details_by_id", {"id": bill}))
        out.append((name, args))
        if name == rt.customer("make_payment") and bill is not None:
            out.append(("get_details_by_id", {"id": bill}))
    return out
