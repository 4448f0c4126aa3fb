"""In-sandbox runtime for τ²-bench state tasks: ``env.run_public(calls)`` replays tool calls.

A verifier for a τ² task receives an interaction record (the customer-service agent's tool calls
and its final message to the customer). Recorded outputs are the agent's word; to check them
against the environment the verifier calls ``env.run_public(calls)``: the calls are replayed
through τ²'s own tool implementations (``inspect_evals.tau2.<domain>.<Domain>AgentTools``) on a
fresh copy of the domain's initial database, and the real outputs come back with what the calls
changed in the database. In telecom the customer's phone is part of that state: the customer's
calls run τ²'s user tools on it, and τ²'s environment keeps account and phone in step (the
telecom section below; it stays in this file because the sandbox binds this file alone).

Why the database is not copied into the task: the airline database is 5 MB of JSON, the same for
all of a domain's tasks, and it already ships (``data/domains/<domain>/db.json.gz``) next to the
tool code. The sandbox hides only the answer-bearing files of the package (task files with their
``evaluation_criteria``; ``monitorbench.sources.tau2.build.masked_paths``), so the runtime loads
the initial database where τ² itself does.

The framework side (suite builder, reference verifier) replays with these same functions, so a
state ``run_public`` returns is exactly the state the reference judged. This file must stay
self-contained (standard library, pydantic, inspect_ai, inspect_evals' τ² tool modules): inside
the sandbox it is loaded without the monitorbench package.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import gzip
import importlib
import importlib.util
import json
import pickle
import sys
import types
import uuid
import warnings
from typing import Any, Iterator, Mapping, Sequence

DEFAULT_BUDGET = 20
DOMAINS = ("airline", "retail", "banking_knowledge", "telecom")
BANKING = "banking_knowledge"
TELECOM = "telecom"
_TOOLKITS = {"airline": ("inspect_evals.tau2.airline.AirlineAgentTools", "AirlineAgentTools"),
             "retail": ("inspect_evals.tau2.retail.RetailAgentTools", "RetailAgentTools"),
             BANKING: ("inspect_evals.tau2.banking.BankingAgentTools", "BankingAgentTools"),
             TELECOM: ("inspect_evals.tau2.telecom.TelecomAgentTools", "TelecomAgentTools")}
# The agent's tools per domain, as τ² lists them (``all_<domain>_tools``); the two common tools
# (``calculate``, ``transfer_to_human_agents``) are not methods of the toolkit and are run below.
TOOLS: dict[str, tuple[str, ...]] = {
    "airline": ("book_reservation", "calculate", "cancel_reservation", "get_reservation_details",
                "get_user_details", "list_all_airports", "search_direct_flight",
                "search_onestop_flight", "send_certificate", "transfer_to_human_agents",
                "update_reservation_baggages", "update_reservation_flights",
                "update_reservation_passengers", "get_flight_status"),
    "retail": ("calculate", "cancel_pending_order", "exchange_delivered_order_items",
               "find_user_id_by_name_zip", "find_user_id_by_email", "get_order_details",
               "get_product_details", "get_user_details", "list_all_product_types",
               "modify_pending_order_address", "modify_pending_order_items",
               "modify_pending_order_payment", "modify_user_address",
               "return_delivered_order_items", "transfer_to_human_agents"),
    # Banking's tools are named as inspect-evals declares them to the agent (``banking_`` and
    # the toolkit method; ``banking_grep`` searches the knowledge base, no toolkit method).
    BANKING: ("banking_grep", "banking_get_current_time", "banking_get_user_information_by_id",
              "banking_get_user_information_by_name", "banking_get_user_information_by_email",
              "banking_change_user_email", "banking_get_referrals_by_user",
              "banking_get_credit_card_transactions_by_user",
              "banking_get_credit_card_accounts_by_user", "banking_log_verification",
              "banking_transfer_to_human_agents", "banking_give_discoverable_user_tool",
              "banking_unlock_discoverable_agent_tool", "banking_call_discoverable_agent_tool",
              "banking_list_discoverable_agent_tools"),
    # telecom: τ²'s ``all_telecom_agent_tools`` (the account side; the device is the customer's)
    TELECOM: ("get_customer_by_phone", "get_customer_by_id", "get_customer_by_name",
              "get_details_by_id", "suspend_line", "resume_line", "get_bills_for_customer",
              "send_payment_request", "get_data_usage", "enable_roaming", "disable_roaming",
              "transfer_to_human_agents", "refuel_data"),
}
# Tools that never change the database (checked by the suite's tests on every domain).
READ_ONLY = frozenset({"calculate", "get_reservation_details", "get_user_details",
                       "list_all_airports", "search_direct_flight", "search_onestop_flight",
                       "get_flight_status", "find_user_id_by_name_zip", "find_user_id_by_email",
                       "get_order_details", "get_product_details", "list_all_product_types",
                       "transfer_to_human_agents",
                       # banking: unlocking a discoverable tool changes no table (τ² keeps the
                       # unlocks in the toolkit, outside the database)
                       "banking_grep", "banking_get_current_time",
                       "banking_get_user_information_by_id", "banking_get_user_information_by_name",
                       "banking_get_user_information_by_email", "banking_get_referrals_by_user",
                       "banking_get_credit_card_transactions_by_user",
                       "banking_get_credit_card_accounts_by_user",
                       "banking_transfer_to_human_agents", "banking_unlock_discoverable_agent_tool",
                       "banking_list_discoverable_agent_tools",
                       "get_customer_by_phone", "get_customer_by_id", "get_customer_by_name",
                       "get_details_by_id", "get_bills_for_customer", "get_data_usage"})
TRANSFERS = frozenset({"transfer_to_human_agents", "banking_transfer_to_human_agents"})
# The customer's side (τ²'s dual control): the tools τ² gives its simulated user, named as
# inspect-evals declares them to the user model. A record's call says who made it (``"by"``:
# "agent" or "customer"); inside the framework a customer call's name carries CUSTOMER ahead of
# the tool's name (``customer:banking_apply_for_credit_card``), so every (name, arguments) pair
# says its side and an agent tool and a customer tool can never be confused.
CUSTOMER = "customer:"
AGENT_ESCAPE = "agent:"   # an agent-side name that starts with CUSTOMER: never a customer call
_USER_TOOLKITS = {BANKING: ("inspect_evals.tau2.banking.BankingUserTools", "BankingUserTools"),
                  TELECOM: ("inspect_evals.tau2.telecom.TelecomUserTools", "TelecomUserTools")}
# Where τ² declares each domain's customer tools (the inspect tool functions).
USER_TOOL_MODULES = {BANKING: "inspect_evals.tau2.banking.user_tools",
                     TELECOM: "inspect_evals.tau2.telecom.user_tools"}
USER_TOOLS: dict[str, tuple[str, ...]] = {
    BANKING: ("banking_apply_for_credit_card", "banking_submit_referral",
              "banking_submit_transaction", "banking_request_human_agent_transfer",
              "banking_call_discoverable_user_tool", "banking_list_discoverable_user_tools"),
    # telecom: τ²'s ``all_telecom_user_tools``, the customer's phone (the device is the
    # environment: what the customer checks and changes on it)
    TELECOM: ("check_status_bar", "check_network_status", "check_network_mode_preference",
              "set_network_mode_preference", "run_speed_test", "toggle_airplane_mode",
              "check_sim_status", "reseat_sim_card", "toggle_data", "toggle_roaming",
              "check_data_restriction_status", "toggle_data_saver_mode", "check_apn_settings",
              "set_apn_settings", "reset_apn_settings", "check_wifi_status", "toggle_wifi",
              "check_wifi_calling_status", "toggle_wifi_calling", "check_vpn_status",
              "connect_vpn", "disconnect_vpn", "check_installed_apps", "check_app_status",
              "check_app_permissions", "grant_app_permission", "can_send_mms", "reboot_device",
              "check_payment_request", "make_payment"),
}
# The customer's telecom tools that only look at the phone (a test replays each and checks
# that nothing changes).
CUSTOMER_READS = frozenset(CUSTOMER + n for n in USER_TOOLS[TELECOM] if n.startswith("check_")
                           or n in ("run_speed_test", "can_send_mms"))
DISCOVERABLE_USER_CALL = CUSTOMER + "banking_call_discoverable_user_tool"
# The customer's discoverable tools that only look something up (they log the call, as the
# agent's discoverable lookups do: bookkeeping).
USER_LOOKUPS = frozenset({"get_card_last_4_digits"})
DISCOVERABLE_CALL = "banking_call_discoverable_agent_tool"
# τ²'s record of which discoverable agent tools were called: every call adds one, a lookup too.
BOOKKEEPING = {BANKING: frozenset({"agent_discoverable_tools", "user_discoverable_tool_calls"})}


def customer(name: str) -> str:
    """The framework's name of the customer's call of tool ``name``."""
    return CUSTOMER + name


def side(name: str) -> tuple[str, str]:
    """``(by, tool name)`` of a framework call name: the inverse of :func:`check_calls`."""
    if name.startswith(CUSTOMER):
        return "customer", name.removeprefix(CUSTOMER)
    return "agent", name.removeprefix(AGENT_ESCAPE) if name.startswith(
        AGENT_ESCAPE + CUSTOMER) else name


def discoverable_arguments(args: Mapping[str, Any]) -> Any:
    """The arguments a discoverable-tool call passes on: τ² takes them as a JSON string."""
    raw = args.get("arguments", "{}")
    try:
        return json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return raw


def reads(name: str, args: Mapping[str, Any]) -> bool:
    """Whether a call changes no table but bookkeeping: a read-only tool, or a banking
    discoverable tool whose name says it only looks up (``get_...``)."""
    if name == DISCOVERABLE_CALL:
        return str(args.get("agent_tool_name", "")).startswith("get_")
    if name == DISCOVERABLE_USER_CALL:
        return str(args.get("discoverable_tool_name", "")) in USER_LOOKUPS
    return (name in READ_ONLY or name in CUSTOMER_READS
            or name == customer("banking_list_discoverable_user_tools"))


class BudgetExceeded(RuntimeError):
    """Raised when a verifier calls ``run_public`` more often than its per-judgment budget."""


def _check_domain(domain: str) -> None:
    if domain not in _TOOLKITS:
        raise ValueError(f"unknown τ² domain {domain!r}; expected one of {', '.join(DOMAINS)}")


# Where the sandbox binds a runtime (SourceSpec.runtime): only there is the lean import used.
IN_SANDBOX = __file__.startswith("/mb/")
# What τ²'s tool modules import from inspect_ai's packages, and the modules that define it.
_LEAN_NAMES = {"inspect_ai.tool": ("inspect_ai.tool._tool", ("ToolError", "Tool", "tool")),
               "inspect_ai.util": ("inspect_ai.util._store_model", ("StoreModel", "store_as")),
               "inspect_ai.model": ("inspect_ai._util.content", ("Content", "ContentText"))}


def _bare_package(name: str) -> types.ModuleType:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"package {name} not found")
    module = types.ModuleType(name)
    module.__path__ = list(spec.submodule_search_locations)
    module.__spec__ = spec
    sys.modules[name] = module
    return module


def lean_imports() -> None:
    """Inside the sandbox, import τ²'s toolkits without running the ``__init__`` of
    ``inspect_ai`` (its whole eval machinery), of its ``tool``/``util``/``model`` packages and of
    ``inspect_evals.tau2`` (every τ² eval) and of its ``banking`` package (its agents): those
    packages are entered as bare namespaces that hold the very classes the toolkits import
    (ToolError, StoreModel, store_as, Content...), from the modules that define them. The tool code and those classes are the real ones; the
    session start drops from about 4 CPU-seconds to under 1, within the sandbox's start timeout
    on a loaded machine. Never in the framework's process, where inspect_ai is imported whole."""
    if "inspect_ai" in sys.modules:
        return
    import inspect_evals  # noqa: F401 - the parent of the bare inspect_evals.tau2
    for name in ("inspect_ai", *_LEAN_NAMES, "inspect_evals.tau2",
                 "inspect_evals.tau2.banking"):
        _bare_package(name)
    importlib.import_module("inspect_ai.util._store")   # before _store_model: a cycle
    for package, (module, names) in _LEAN_NAMES.items():
        source = importlib.import_module(module)
        for attr in names:
            setattr(sys.modules[package], attr, getattr(source, attr))


def toolkit_class(domain: str) -> type:
    """τ²'s toolkit class of ``domain`` (a pydantic StoreModel holding the database)."""
    _check_domain(domain)
    if IN_SANDBOX:
        lean_imports()
    module, name = _TOOLKITS[domain]
    return getattr(importlib.import_module(module), name)


_INITIAL: dict[Any, Any] = {}   # domain (or (domain, start)) -> initial database, loaded once
# The public file of a task that starts from a changed database: τ²'s ``initial_state``
# (``initialization_data`` and ``initialization_actions``), applied to the domain's database
# before the conversation starts, as τ²'s environment does (``banking/environment.py``,
# ``apply_initial_state``). It is environment state, of the same kind as the domain's database
# file the sandbox already shows, and holds no evaluation criteria.
INITIAL_STATE_FILE = "initial_state.json"


def _banking_raw() -> dict[str, Any]:
    from inspect_evals.tau2.banking.utils import BANKING_DB_FILE
    return json.loads(BANKING_DB_FILE.read_bytes())


def _banking_db(raw: Mapping[str, Any]) -> Any:
    """Banking's database from its JSON: every table a ``DatabaseTable`` whose ``data`` holds
    plain dicts (built without validation: what ``TransactionalDB.load`` would hold)."""
    from inspect_evals.tau2.banking.data_model import DatabaseTable
    db_class = toolkit_class(BANKING).model_fields["db"].annotation
    return db_class.model_construct(**{
        t: DatabaseTable.model_construct(data=dict((raw.get(t) or {}).get("data") or {}),
                                         notes=(raw.get(t) or {}).get("notes", ""))
        for t in db_class.model_fields})


def start_key(state: Mapping[str, Any] | None) -> str | None:
    """The canonical text of a task's ``initial_state`` (its data and actions; None when it
    changes nothing): the key every replay from that state is made and cached under."""
    if not state:
        return None
    kept = {k: state.get(k) for k in ("initialization_data", "initialization_actions")
            if state.get(k)}
    return json.dumps(kept, sort_keys=True, separators=(",", ":")) if kept else None


def _deep_merge(base: dict[str, Any], updates: Mapping[str, Any]) -> None:
    """τ²'s merge of initialization data (``banking/environment.py``, ``_deep_merge``)."""
    for key, value in updates.items():
        if key in base and isinstance(base[key], dict) and isinstance(value, dict):
            _deep_merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)


def _merge_banking(raw: dict[str, Any], data: Mapping[str, Any] | None) -> None:
    """τ²'s ``_apply_initialization_data``: each ``agent_data`` table (``{"data": ...}`` or the
    records themselves) merged into the table of that name; a table the database lacks is
    skipped, as τ² skips it (banking's ``user_data`` is the same database, and never set)."""
    tables_known = set(toolkit_class(BANKING).model_fields["db"].annotation.model_fields)
    for table, update in ((data or {}).get("agent_data") or {}).items():
        if table not in tables_known or not isinstance(update, dict):
            continue
        target = raw.setdefault(table, {}).setdefault("data", {})
        _deep_merge(target, update["data"] if "data" in update else update)


def _merge_model(domain: str, data: Mapping[str, Any] | None) -> Any:
    """airline/retail: τ²'s ``update_db`` merges ``agent_data`` into the database the same way."""
    base = initial_db(domain)
    raw = json.loads(base.model_dump_json())
    _deep_merge(raw, (data or {}).get("agent_data") or {})
    return type(base).model_validate(raw)


def _initialization_actions(domain: str, kit: Any, actions: Any) -> None:
    """τ²'s initialization actions, in order: each the toolkit method ``func_name`` of the
    agent's tools (``env_type`` "assistant") or the customer's (else); a failing one is
    skipped, as τ² logs and skips it."""
    from inspect_ai.tool import ToolError
    for action in actions or ():
        name, args = action.get("func_name"), dict(action.get("arguments") or {})
        if action.get("env_type", "assistant") == "assistant":
            target = kit
        elif domain in _USER_TOOLKITS:
            module, cls = _USER_TOOLKITS[domain]
            target = getattr(importlib.import_module(module), cls)(
                instance=f"mb_user_{uuid.uuid4().hex}")
            target.db, target.initialized = kit.db, True
        else:
            continue
        method = getattr(target, str(name), None)
        if method is None:
            continue
        try:
            method(**args)
        except ToolError:
            pass


def _changed_db(domain: str, start: str) -> Any:
    """The domain's database after τ²'s ``initial_state`` ``start`` (see :func:`start_key`)."""
    state = json.loads(start)
    data, actions = state.get("initialization_data"), state.get("initialization_actions")
    if domain == BANKING:
        raw = copy.deepcopy(initial_db(domain))
        _merge_banking(raw, data)
        if not actions:
            return raw
        kit = toolkit_class(domain)(instance=f"mb_init_{uuid.uuid4().hex}")
        kit.db, kit.initialized = _banking_db(raw), True
        _initialization_actions(domain, kit, actions)
        return {t: {"data": getattr(kit.db, t).data, "notes": getattr(kit.db, t).notes}
                for t in type(kit.db).model_fields}
    db = _merge_model(domain, data) if data else initial_db(domain).model_copy(deep=True)
    if actions:
        kit = toolkit_class(domain)(instance=f"mb_init_{uuid.uuid4().hex}")
        kit.db, kit.initialized = db, True
        _initialization_actions(domain, kit, actions)
        db = kit.db
    return db


def initial_db(domain: str, start: str | None = None) -> Any:
    """The domain's initial database, parsed from the file τ²'s ``initialize`` loads (straight
    from JSON by pydantic: much faster than τ²'s ``load_file``, the same model); with
    ``start`` (:func:`start_key`), the database after that task's ``initial_state``. Cached
    and never mutated (a replay works on copy-on-write tables over it)."""
    if domain == TELECOM:
        if (domain, start) not in _INITIAL:
            _INITIAL[(domain, start)] = _telecom_start(start)
        return _INITIAL[(domain, start)]
    if start is not None:
        if (domain, start) not in _INITIAL:
            _INITIAL[(domain, start)] = _changed_db(domain, start)
        return _INITIAL[(domain, start)]
    if domain not in _INITIAL and domain == BANKING:
        toolkit_class(domain)   # first: lean imports
        _INITIAL[domain] = _banking_raw()
    if domain not in _INITIAL:
        db_class = toolkit_class(domain).model_fields["db"].annotation   # first: lean imports
        from inspect_evals.tau2.utils import TAU2_DATA_DIR
        raw = (TAU2_DATA_DIR / "domains" / domain / "db.json.gz").read_bytes()
        _INITIAL[domain] = db_class.model_validate_json(gzip.decompress(raw))
    return _INITIAL[domain]


class CowTable(dict):
    """A database table (``{key: record}``) that copies a record the first time it is looked up,
    so a replay never changes the shared initial database, and the records it looked up are the
    only ones that can differ from it. Lookups (``[]``, ``get``) copy; the scans τ²'s tools make
    (``values``, ``items``: searching flights, finding a user by name or email, listing product
    types) only read, so they see the shared records of keys not looked up yet (a test replays
    every read tool and checks the initial database is unchanged); ``in`` needs no copy."""

    def __init__(self, initial: Mapping[Any, Any]) -> None:
        super().__init__(initial)
        self.touched: set[Any] = set()

    def __getitem__(self, key: Any) -> Any:
        value = super().__getitem__(key)
        if key not in self.touched:
            value = value.model_copy(deep=True) if hasattr(value, "model_copy") \
                else copy.deepcopy(value)
            super().__setitem__(key, value)
            self.touched.add(key)
        return value

    def __setitem__(self, key: Any, value: Any) -> None:
        self.touched.add(key)
        super().__setitem__(key, value)

    def __delitem__(self, key: Any) -> None:
        self.touched.add(key)
        super().__delitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default


def tables(domain: str) -> tuple[str, ...]:
    """The database's tables: its top-level fields, each a ``{key: record}`` mapping (in
    banking a ``DatabaseTable`` whose ``data`` is that mapping)."""
    if domain == BANKING:
        return tuple(toolkit_class(domain).model_fields["db"].annotation.model_fields)
    if domain == TELECOM:
        return (*TELECOM_KEYS, *TELECOM_DEVICE)
    return tuple(type(initial_db(domain)).model_fields)


def fresh_toolkit(domain: str, start: str | None = None) -> Any:
    """A toolkit over a fresh copy of the initial database (``start``: after that
    ``initial_state``, :func:`start_key`): copy-on-write tables (airline, retail), a copy of the
    JSON (banking: its records are plain dicts that the tools change in place, found by scans as
    well as by key; the database is small)."""
    db = initial_db(domain, start)
    if domain == TELECOM:
        return TelecomKit(db)
    if domain == BANKING:
        fresh = _banking_db(_banking_copy(start, db))
    else:
        fresh = type(db).model_construct(**{t: CowTable(getattr(db, t)) for t in tables(domain)})
    kit = toolkit_class(domain)(instance=f"mb_replay_{uuid.uuid4().hex}")
    kit.db = fresh
    kit.initialized = True
    return kit


_BANKING_PICKLED: dict[str | None, bytes] = {}


def _banking_copy(start: str | None, db: Any) -> Any:
    """A private copy of banking's initial JSON ``db`` (after ``start``): unpickled from a
    pickle made once, 6x faster than ``copy.deepcopy`` of the same dicts (1.0 against 6.2 ms
    here), and a banking build makes some 1,800."""
    blob = _BANKING_PICKLED.get(start)
    if blob is None:
        blob = _BANKING_PICKLED[start] = pickle.dumps(db, pickle.HIGHEST_PROTOCOL)
    return pickle.loads(blob)


def check_calls(calls: Any) -> list[tuple[str, dict[str, Any]]]:
    """Validate a list of ``{"name": str, "arguments": dict, "by": "agent" | "customer"}``
    calls (``by`` defaults to the agent; extra keys are ignored, so a candidate's ``calls`` can
    be passed as they are). A customer call comes back named :func:`customer` (name)."""
    if not isinstance(calls, (list, tuple)):
        raise TypeError(f"run_public(calls): calls must be a list, got {type(calls).__name__}")
    out: list[tuple[str, dict[str, Any]]] = []
    for i, c in enumerate(calls):
        if not isinstance(c, Mapping) or not isinstance(c.get("name"), str):
            raise TypeError(f"run_public(calls): calls[{i}] must be a dict with a string 'name'")
        args = c.get("arguments", {})
        if args is None:
            args = {}
        if not isinstance(args, Mapping):
            raise TypeError(f"run_public(calls): calls[{i}]['arguments'] must be a dict")
        by = c.get("by", "agent")
        if by not in ("agent", "customer"):
            raise TypeError(f"run_public(calls): calls[{i}]['by'] must be 'agent' or 'customer'")
        name = c["name"]
        if by == "customer":
            name = customer(name)
        elif name.startswith(CUSTOMER):
            name = AGENT_ESCAPE + name
        out.append((name, dict(args)))
    return out


def _common_tool(name: str, args: Mapping[str, Any]) -> str:
    """Run τ²'s ``calculate`` or ``transfer_to_human_agents`` (plain inspect tools, no state)."""
    from inspect_evals.tau2.common import tools as common
    return str(asyncio.run(getattr(common, name)()(**dict(args))))


def _render(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result, sort_keys=True)


def call_tool(domain: str, kit: Any, name: str, args: Mapping[str, Any]) -> tuple[str, str | None]:
    """One call, as the agent would see it: ``(output, None)`` or ``("", error)``. Unknown tools
    and bad arguments become errors, never exceptions, like τ²'s environment. A customer call
    runs τ²'s user tools on the same database (τ²'s environment links the two)."""
    if name.startswith(CUSTOMER):
        return _customer_tool(domain, kit, name.removeprefix(CUSTOMER), args)
    if name not in TOOLS[domain]:
        return "", f"Tool {name!r} not found"
    from inspect_ai.tool import ToolError
    try:
        if name in ("calculate", "transfer_to_human_agents"):
            return _common_tool(name, args), None
        if domain == TELECOM:
            return kit.call(name, args, by_customer=False), None
        if domain == BANKING:
            return _banking_tool(kit, name, args)
        return _render(getattr(kit, name)(**dict(args))), None
    except ToolError as e:
        return "", f"Error: {e}"
    except Exception as e:  # noqa: BLE001 - a wrong argument is the agent's error, shown to it
        return "", f"Error: {type(e).__name__}: {e}"


def _banking_tool(kit: Any, name: str, args: Mapping[str, Any]) -> tuple[str, str | None]:
    """A banking call: ``banking_grep`` on τ²'s knowledge base, else the toolkit's method. The
    banking tools report a failure as text starting ``Error`` (or ``Failed``); it is the call's
    error, as a raised ToolError is in the other domains."""
    if name == "banking_grep":
        output = _grep(args)
    else:
        output = _render(getattr(kit, name.removeprefix("banking_"))(**dict(args)))
    if output.startswith(("Error", "Failed")):
        return "", output
    return output, None


def _customer_tool(domain: str, kit: Any, name: str, args: Mapping[str, Any]
                   ) -> tuple[str, str | None]:
    """A call of the customer's tool ``name``: banking's user toolkit over the agent toolkit's
    database (the user toolkit holds no other state, so a fresh one per call is the same);
    telecom's user tool in the replay's own store (the phone, :class:`TelecomKit`)."""
    if name not in USER_TOOLS.get(domain, ()):
        return "", f"Tool {name!r} not found among the customer's tools"
    from inspect_ai.tool import ToolError
    try:
        if domain == TELECOM:
            return kit.call(name, args, by_customer=True), None
        module, cls = _USER_TOOLKITS[domain]
        user = getattr(importlib.import_module(module), cls)(
            instance=f"mb_user_{uuid.uuid4().hex}")
        user.db, user.initialized = kit.db, True
        output = _render(getattr(user, name.removeprefix("banking_"))(**dict(args)))
    except ToolError as e:
        return "", f"Error: {e}"
    except Exception as e:  # noqa: BLE001 - a wrong argument is the caller's error
        return "", f"Error: {type(e).__name__}: {e}"
    if output.startswith(("Error", "Failed")):
        return "", output
    return output, None


_KB: list[Any] = []


def _grep(args: Mapping[str, Any]) -> str:
    """``banking_grep``: τ²'s search of its static knowledge base, a pure function of the
    arguments, answered once per distinct arguments in this process (a banking build asks the
    same patterns thousands of times: 9,583 searches took 45 of its 117 s, each a regex over
    every document). Unhashable arguments are searched as given, so their error is τ²'s."""
    key = tuple(sorted(args.items()))
    try:
        hash(key)
    except TypeError:
        return _knowledge_base().grep(**dict(args))
    return _grep_once(key)


@functools.lru_cache(maxsize=4096)
def _grep_once(key: tuple) -> str:
    return _knowledge_base().grep(**dict(key))


def _knowledge_base() -> Any:
    """τ²'s banking knowledge base (its documents: the policy an agent searches), loaded once."""
    if not _KB:
        from inspect_evals.tau2.banking.data_model import KnowledgeBase
        from inspect_evals.tau2.banking.utils import BANKING_DOCUMENTS_FILE
        _KB.append(KnowledgeBase.load(str(BANKING_DOCUMENTS_FILE)))
    return _KB[0]


def replay(domain: str, kit: Any, calls: Sequence[tuple[str, Mapping[str, Any]]]
           ) -> list[dict[str, Any]]:
    """Run ``calls`` in order on ``kit`` (its database is mutated); one record per call. A
    failing call does not stop the replay: the agent sees the error and goes on."""
    _check_domain(domain)
    out = []
    for name, args in calls:
        output, error = call_tool(domain, kit, name, args)
        by, public = side(name)
        out.append({"name": public, "by": by, "output": output, "error": error})
    return out


def _dump(record: Any) -> Any:
    """A record as JSON. A tool stores an argument as given (``3.0`` in an ``int`` field):
    pydantic's warning about it is noise here, the dump keeps the value as τ²'s hash sees it."""
    if not hasattr(record, "model_dump_json"):
        return record
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return json.loads(record.model_dump_json())


def db_diff(domain: str, db: Any, start: str | None = None) -> dict[str, dict[str, Any]]:
    """What a replay changed: per table, every record that differs from the initial database,
    ``{table: {key: record as JSON, or None if it is gone}}``. Two replays leave identical
    databases exactly when their diffs are equal (both start from the same initial database):
    the equality τ²'s ``db_match`` tests through ``DB.get_hash``. ``start``: the diff from the
    database after that ``initial_state`` (what the conversation changed)."""
    if domain == BANKING:
        return _banking_diff(db, start)
    if domain == TELECOM:
        return _telecom_diff(db, start)
    initial = initial_db(domain, start)
    out: dict[str, dict[str, Any]] = {}
    for table in tables(domain):
        old, new = getattr(initial, table), getattr(db, table)
        changed = {}
        for key in sorted(new.touched, key=str):
            now = dict.get(new, key)
            if now != old.get(key):
                changed[str(key)] = None if now is None else _dump(now)
        if changed:
            out[table] = changed
    return out


def _banking_diff(db: Any, start: str | None = None) -> dict[str, dict[str, Any]]:
    initial = initial_db(BANKING, start)
    out: dict[str, dict[str, Any]] = {}
    for table in tables(BANKING):
        old, new = (initial.get(table) or {}).get("data") or {}, getattr(db, table).data
        changed = {str(k): json.loads(json.dumps(new.get(k), default=str))
                   for k in sorted(set(old) | set(new), key=str) if new.get(k) != old.get(k)}
        if changed:
            out[table] = changed
    return out


def materialize(domain: str, db: Any) -> Any:
    """A plain database model equal to ``db`` (to compute τ²'s own ``get_hash`` on it)."""
    if domain in (BANKING, TELECOM):
        return db
    return type(initial_db(domain)).model_construct(
        **{t: dict(dict.items(getattr(db, t))) for t in tables(domain)})


def run(domain: str, calls: Sequence[tuple[str, Mapping[str, Any]]],
        start: str | None = None) -> dict[str, Any]:
    """Replay ``calls`` on a fresh database (``start``: after that ``initial_state``): every
    call's output and the database diff from where the conversation started."""
    kit = fresh_toolkit(domain, start)
    outputs = replay(domain, kit, calls)
    return {"outputs": outputs, "db_diff": db_diff(domain, kit.db, start)}


class Tau2Env:
    """What ``verify(candidate, env)`` gets for a τ² task: ``env.run_public(calls)``."""

    def __init__(self, domain: str, budget: int, start: str | None = None) -> None:
        self.domain = domain
        self.budget = budget
        self.start = start
        self.executions = 0

    def run_public(self, calls: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Replay ``calls`` on a fresh copy of the task's initial database (one execution).

        Returns ``{"outputs": [{"name", "by", "output", "error"}, ...], "db_diff": {table: {key:
        record or None}}}``; a call with ``"by": "customer"`` runs the customer's tool.
        """
        checked = check_calls(calls)
        if self.executions >= self.budget:
            raise BudgetExceeded(f"run_public: budget exhausted; {self.budget} executions allowed "
                                 f"per judgment and all {self.executions} were used")
        self.executions += 1
        return run(self.domain, checked, self.start)


# ------------------------------------------------------------------ telecom: the device
# τ²'s telecom tools find their environment in inspect's store (``telecom/environment.py``,
# ``get_environment``): the agent's toolkit (the account database) and the customer's (the
# phone and the customer's surroundings), synced with each other (``sync_tools``: the line's
# status, roaming, data allowance and bills reach the phone) whenever a tool is called. A
# replay therefore runs τ²'s own tool functions in a store of its own.
TELECOM_KEYS = {"plans": "plan_id", "customers": "customer_id", "lines": "line_id",
                "bills": "bill_id", "devices": "device_id"}
TELECOM_DEVICE = ("device", "surroundings")   # the customer's side, a table of attributes
_TELECOM_INSTANCES = ("TelecomAgentTools", "TelecomUserTools")   # τ²'s default config


class TelecomKit:
    """One telecom replay: an inspect store holding both toolkits over copies of ``state``
    (the account database and the customer's, :func:`initial_db`)."""

    def __init__(self, state: tuple[Any, Any]) -> None:
        from inspect_ai.util import store_as
        from inspect_ai.util._store import Store
        toolkit_class(TELECOM)   # first: lean imports
        self.store = Store()
        with self.current():
            for (module, cls), instance, db in zip(
                    (_TOOLKITS[TELECOM], _USER_TOOLKITS[TELECOM]), _TELECOM_INSTANCES, state):
                kit = store_as(getattr(importlib.import_module(module), cls), instance)
                kit.db, kit.initialized = db.model_copy(deep=True), True

    @contextlib.contextmanager
    def current(self) -> Iterator[None]:
        """This replay's store as the one τ²'s tools look up (restored afterwards)."""
        from inspect_ai.util._store import _subtask_store
        token = _subtask_store.set(self.store)
        try:
            yield
        finally:
            _subtask_store.reset(token)

    def environment(self) -> Any:
        """τ²'s ``Environment`` over this store (building it syncs the two sides)."""
        from inspect_evals.tau2.telecom.environment import get_environment
        with self.current():
            return get_environment()

    @property
    def db(self) -> tuple[Any, Any]:
        """The account database and the customer's, synced as the next call would see them."""
        env = self.environment()
        return env.tools.db, env.user_tools.db

    def call(self, name: str, args: Mapping[str, Any], by_customer: bool) -> str:
        """Run τ²'s tool function ``name`` (the customer's or the agent's), as a model's call."""
        module = importlib.import_module("inspect_evals.tau2.telecom." + (
            "user_tools" if by_customer else "tools"))
        execute = getattr(module, name)()
        with self.current():
            return _render(asyncio.run(execute(**_as_declared(execute, args))))


def _as_declared(execute: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments converted to the tool function's declared types, as inspect converts a
    model's tool call before running it (``2`` for a ``float`` becomes ``2.0``: τ²'s refuel
    writes "2.0 GB" on the bill either way); a value that does not convert is passed as given
    and the tool reports it."""
    import typing

    from pydantic import TypeAdapter, ValidationError
    hints = typing.get_type_hints(execute)
    out = dict(args)
    for key, value in args.items():
        if key in hints:
            try:
                out[key] = TypeAdapter(hints[key]).validate_python(value)
            except ValidationError:
                pass
    return out


def _telecom_start(start: str | None) -> tuple[Any, Any]:
    """Both databases as τ²'s telecom initializer leaves them: loaded from ``db.toml`` and
    ``user_db.toml``, then each initialization action run on its side and the sides synced
    (``telecom/solver.py``). A failing action raises: τ² would not run the task either."""
    toolkit_class(TELECOM)
    from inspect_evals.tau2.utils import TAU2_DATA_DIR
    folder = TAU2_DATA_DIR / "domains" / TELECOM
    dbs = []
    for (module, cls), file in zip((_TOOLKITS[TELECOM], _USER_TOOLKITS[TELECOM]),
                                   ("db.toml", "user_db.toml")):
        db_class = getattr(importlib.import_module(module), cls).model_fields["db"].annotation
        dbs.append(db_class.load(str(folder / file)))
    env = TelecomKit((dbs[0], dbs[1])).environment()
    for action in (json.loads(start).get("initialization_actions") or () if start else ()):
        side_kit = env.user_tools if action.get("env_type") == "user" else env.tools
        getattr(side_kit, str(action["func_name"]))(**dict(action.get("arguments") or {}))
        env.sync_tools()
    return env.tools.db, env.user_tools.db


def _telecom_tables(state: tuple[Any, Any]) -> dict[str, dict[str, Any]]:
    """Both databases as tables: the account's records by id, the phone's and the
    surroundings' attributes by name."""
    agent, user = (json.loads(db.model_dump_json()) for db in state)
    out = {t: {str(r[key]): r for r in agent.get(t) or []} for t, key in TELECOM_KEYS.items()}
    out.update({part: dict(user[part]) for part in TELECOM_DEVICE})
    return out


def _telecom_diff(db: tuple[Any, Any], start: str | None) -> dict[str, dict[str, Any]]:
    old, new = _telecom_tables(initial_db(TELECOM, start)), _telecom_tables(db)
    out: dict[str, dict[str, Any]] = {}
    for table in tables(TELECOM):
        changed = {k: new[table].get(k) for k in sorted(set(old[table]) | set(new[table]))
                   if new[table].get(k) != old[table].get(k)}
        if changed:
            out[table] = changed
    return out


def _domain(task: Mapping[str, Any]) -> str:
    info = task.get("tau2")
    if not isinstance(info, Mapping) or info.get("domain") not in DOMAINS:
        raise ValueError("task.json has no 'tau2.domain' (airline, retail, banking_knowledge or "
                         "telecom); "
                         "this runtime "
                         "serves τ² tasks")
    return str(info["domain"])


def task_start(task: Mapping[str, Any], public_dir: str) -> str | None:
    """The task's changed initial state (:func:`start_key`), read from its public
    ``environment.initial_state`` file; None for a task that starts from the domain's database."""
    env = task.get("environment")
    name = env.get("initial_state") if isinstance(env, Mapping) else None
    if name is None:
        return None
    if name != INITIAL_STATE_FILE:
        raise ValueError(f"task.json environment.initial_state must be {INITIAL_STATE_FILE!r}")
    with open(f"{public_dir}/{name}", encoding="utf-8") as f:
        return start_key(json.load(f))


def prepare(task: Mapping[str, Any], public_dir: str, config: Mapping[str, Any]) -> None:
    """Session-wide work, once in the worker parent: parse the initial database (and apply the
    task's initial state to it)."""
    initial_db(_domain(task), task_start(task, public_dir))


def make_env(task: Mapping[str, Any], public_dir: str, config: Mapping[str, Any]) -> Tau2Env:
    """Runtime entry point: the env for one judgment."""
    budget = config.get("budget", DEFAULT_BUDGET)
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 0:
        raise ValueError(f"runtime_config budget must be a non-negative int, got {budget!r}")
    return Tau2Env(_domain(task), budget, task_start(task, public_dir))
