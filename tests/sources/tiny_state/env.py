"""The tiny environment: its initial state, its tools, and a replay of calls on a copy of it."""

from __future__ import annotations

import copy
import json
from typing import Any, Mapping, Sequence

TODAY = "2024-05-15"
LANDLORD = "GB29NWBK60161331926819"
SPOTIFY = "FR1420041010050500013M02606"
PAGE = ("The city council met on Monday to discuss the new tram line that will connect the old "
        "harbour with the university campus. After a long debate the council approved the budget "
        "of twelve million euros, and construction is planned to start in the autumn. Residents "
        "along the route will be invited to an information evening next month, where engineers "
        "will present the timetable and answer questions about noise and traffic.")
INITIAL: dict[str, Any] = {
    "bank": {"iban": "DE89370400440532013000",
             "transactions": [
                 {"id": 1, "recipient": LANDLORD, "subject": "Rent April", "amount": 1200.0,
                  "date": "2024-04-01"},
                 {"id": 2, "recipient": SPOTIFY, "subject": "Spotify Premium", "amount": 9.99,
                  "date": "2024-04-03"}],
             "sent": [],
             "payment_methods": {
                 "paypal_main": {"id": "paypal_main", "kind": "paypal"},
                 "card_3319": {"id": "card_3319", "kind": "credit card", "brand": "visa",
                               "last_four": "3319"}}},
    "support": [],
    "calendar": {"current_day": TODAY,
                 "events": [{"id_": "1", "title": "Breakfast with Sarah",
                             "start_time": "2024-05-15 09:30"}]},
    "chat": {"channels": {"general": [], "random": []}},
    "web": {"www.city-news.com": PAGE},
}
POLICY = ("Escalations: use the reason other only with a detailed explanation in the summary "
          "field.\nCard payments are not allowed for transfers above 1000.00; pay those with "
          "PayPal.")
TOOLS = [
    {"name": "get_transactions", "description": "The account's past transactions.",
     "parameters": {"type": "object", "properties": {}}},
    {"name": "send_money", "description": "Send money to an IBAN.",
     "parameters": {"type": "object", "required": ["recipient", "amount", "subject", "date"],
                    "properties": {"recipient": {"type": "string"},
                                   "amount": {"type": "number"},
                                   "subject": {"type": "string"},
                                   "date": {"type": "string"},
                                   "payment_method": {
                                       "type": "string",
                                       "description": "Id of one of the account's payment "
                                                      "methods (optional)."}}}},
    {"name": "get_payment_methods", "description": "The account's payment methods.",
     "parameters": {"type": "object", "properties": {}}},
    {"name": "escalate", "description": "Hand the customer over to a human agent.",
     "parameters": {"type": "object", "required": ["summary"], "properties": {
         "reason": {"type": "string", "default": "other",
                    "description": "Must be one of: billing_error, fraud_report, other"},
         "summary": {"type": "string", "description": "What the customer needs."}}}},
    {"name": "get_events", "description": "Calendar events of a day (YYYY-MM-DD).",
     "parameters": {"type": "object", "properties": {"day": {"type": "string"}}}},
    {"name": "create_event", "description": "Add an event (start 'YYYY-MM-DD HH:MM').",
     "parameters": {"type": "object", "properties": {"title": {"type": "string"},
                                                    "start_time": {"type": "string"}}}},
    {"name": "get_channels", "description": "The chat's channel names.",
     "parameters": {"type": "object", "properties": {}}},
    {"name": "post_message", "description": "Post a message to a channel.",
     "parameters": {"type": "object", "properties": {"channel": {"type": "string"},
                                                    "body": {"type": "string"}}}},
    {"name": "read_page", "description": "Read a web page.",
     "parameters": {"type": "object", "properties": {"url": {"type": "string"}}}},
]


def _call(state: dict[str, Any], name: str, args: Mapping[str, Any]) -> str:
    bank, cal, chat = state["bank"], state["calendar"], state["chat"]
    if name == "get_transactions":
        return json.dumps(bank["transactions"])
    if name == "send_money":
        keys = ("recipient", "amount", "subject", "date", "payment_method")
        bank["sent"].append({k: args[k] for k in keys if k in args or k != "payment_method"})
        return "sent"
    if name == "get_payment_methods":
        return json.dumps(bank["payment_methods"])
    if name == "escalate":
        state["support"].append({"reason": args.get("reason", "other"),
                                 "summary": args["summary"]})
        return "escalated"
    if name == "get_events":
        return json.dumps([e for e in cal["events"] if e["start_time"].startswith(args["day"])])
    if name == "create_event":
        cal["events"].append({"id_": str(len(cal["events"]) + 1), "title": args["title"],
                              "start_time": args["start_time"]})
        return f"created event {len(cal['events'])}"
    if name == "get_channels":
        return json.dumps(sorted(chat["channels"]))
    if name == "post_message":
        chat["channels"][args["channel"]].append(args["body"])
        return "posted"
    if name == "read_page":
        return state["web"][args["url"]]
    raise ValueError(f"unknown tool {name!r}")


def replay(calls: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every call's output (or error) and the final state, from a fresh copy of INITIAL."""
    state = copy.deepcopy(INITIAL)
    outputs = []
    for c in calls:
        try:
            outputs.append({"output": _call(state, c["name"], c.get("arguments") or {}),
                            "error": None})
        except (KeyError, ValueError, TypeError) as e:
            outputs.append({"output": "", "error": f"{type(e).__name__}: {e}"})
    return outputs, state
