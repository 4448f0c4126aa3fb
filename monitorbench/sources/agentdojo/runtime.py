"""In-sandbox runtime for AgentDojo state tasks: ``env.run_public(calls)`` replays tool calls.

A verifier for an AgentDojo task receives an interaction record (tool calls and a final message).
To check it against the environment rather than trust the recorded outputs, it may call
``env.run_public(calls)``: the calls are replayed through the real AgentDojo tools on a fresh copy
of the task's initial environment (``environment.json`` in the task's public directory), and the
outputs plus the resulting environment state come back.

Why this module imports only ``agentdojo.functions_runtime`` and ``agentdojo.default_suites.v1.tools``:
the suite packages (``default_suites/v1/<suite>/`` and every ``default_suites/v1_*``) hold the user
and injection tasks, whose ground truths and utility checks are the reference solutions. The
sandbox hides them (``monitorbench.sources.agentdojo.build.masked_paths``), so the four environment
classes and tool lists are restated here; a test keeps them identical to the package's.

The framework side (suite builder, reference verifier) uses the same replay code, so a state
returned by ``run_public`` is exactly the state the reference verifier judged. This file must stay
self-contained (standard library, pydantic, PyYAML, agentdojo tools): inside the sandbox it is
loaded from ``/mb/runtime`` without the monitorbench package.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import json
import os
import types
from typing import Any, Iterator, Mapping, Sequence

import yaml
from pydantic import BaseModel

from agentdojo.functions_runtime import FunctionsRuntime, TaskEnvironment, make_function

DEFAULT_BUDGET = 20
ENVIRONMENT_FILE = "environment.json"
# Tools stamp datetime.now() into files and e-mails. Replays must be repeatable (same calls, same
# state), so the tool clock is frozen at the environments' own "current day".
FROZEN_NOW = _dt.datetime(2024, 5, 15, 10, 0, 0)

_TOOLS_PKG = "agentdojo.default_suites.v1.tools"


class BudgetExceeded(RuntimeError):
    """Raised when a verifier calls ``run_public`` more often than its per-judgment budget."""


def _tools_module(name: str) -> types.ModuleType:
    return importlib.import_module(f"{_TOOLS_PKG}.{name}")


def _cls(module: str, name: str) -> type:
    return getattr(_tools_module(module), name)


# Environment fields per suite, in the package's order: (field, tools module, class).
_ENV_FIELDS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "workspace": (("inbox", "email_client", "Inbox"), ("calendar", "calendar_client", "Calendar"),
                  ("cloud_drive", "cloud_drive_client", "CloudDrive")),
    "travel": (("hotels", "travel_booking_client", "Hotels"),
               ("restaurants", "travel_booking_client", "Restaurants"),
               ("car_rental", "travel_booking_client", "CarRental"),
               ("flights", "travel_booking_client", "Flights"),
               ("user", "travel_booking_client", "User"),
               ("calendar", "calendar_client", "Calendar"),
               ("reservation", "travel_booking_client", "Reservation"),
               ("inbox", "email_client", "Inbox")),
    "banking": (("bank_account", "banking_client", "BankAccount"),
                ("filesystem", "file_reader", "Filesystem"),
                ("user_account", "user_account", "UserAccount")),
    "slack": (("slack", "slack", "Slack"), ("web", "web", "Web")),
}

# Tool lists per suite, in the package's order: (tools module, function name).
_EMAIL = ("send_email", "delete_email", "get_unread_emails", "get_sent_emails",
          "get_received_emails", "get_draft_emails", "search_emails", "search_contacts_by_name",
          "search_contacts_by_email")
_CAL = ("get_current_day", "search_calendar_events", "get_day_calendar_events",
        "create_calendar_event", "cancel_calendar_event", "reschedule_calendar_event",
        "add_calendar_event_participants")
_DRIVE = ("append_to_file", "search_files_by_filename", "create_file", "delete_file",
          "get_file_by_id", "list_files", "share_file", "search_files")
_TRAVEL = ("get_user_information", "get_all_hotels_in_city", "get_hotels_prices",
           "get_rating_reviews_for_hotels", "get_hotels_address", "get_all_restaurants_in_city",
           "get_cuisine_type_for_restaurants", "get_restaurants_address",
           "get_rating_reviews_for_restaurants", "get_dietary_restrictions_for_all_restaurants",
           "get_contact_information_for_restaurants", "get_price_for_restaurants",
           "check_restaurant_opening_hours", "get_all_car_rental_companies_in_city",
           "get_car_types_available", "get_rating_reviews_for_car_rental", "get_car_fuel_options",
           "get_car_rental_address", "get_car_price_per_day")
_TOOLS: dict[str, tuple[tuple[str, str], ...]] = {
    "workspace": (*(("email_client", n) for n in _EMAIL), *(("calendar_client", n) for n in _CAL),
                  *(("cloud_drive_client", n) for n in _DRIVE)),
    "travel": (*(("travel_booking_client", n) for n in _TRAVEL),
               ("calendar_client", "create_calendar_event"),
               ("calendar_client", "search_calendar_events"),
               ("calendar_client", "get_day_calendar_events"),
               ("calendar_client", "cancel_calendar_event"),
               ("travel_booking_client", "reserve_hotel"),
               ("travel_booking_client", "reserve_car_rental"),
               ("travel_booking_client", "reserve_restaurant"),
               ("travel_booking_client", "get_flight_information"),
               ("email_client", "send_email")),
    "banking": (("banking_client", "get_iban"), ("banking_client", "send_money"),
                ("banking_client", "schedule_transaction"),
                ("banking_client", "update_scheduled_transaction"),
                ("banking_client", "get_balance"), ("banking_client", "get_most_recent_transactions"),
                ("banking_client", "get_scheduled_transactions"), ("file_reader", "read_file"),
                ("user_account", "get_user_info"), ("user_account", "update_password"),
                ("user_account", "update_user_info")),
    "slack": (*(("slack", n) for n in ("get_channels", "add_user_to_channel",
                                       "read_channel_messages", "read_inbox",
                                       "send_direct_message", "send_channel_message",
                                       "get_users_in_channel", "invite_user_to_slack",
                                       "remove_user_from_slack")),
              ("web", "get_webpage"), ("web", "post_webpage")),
}
SUITES = tuple(_TOOLS)

_ENV_CLASSES: dict[str, type[TaskEnvironment]] = {}
_RUNTIMES: dict[str, FunctionsRuntime] = {}


def make_tools_deterministic() -> None:
    """Remove the two sources of run-to-run variation in the agentdojo tools (idempotent).

    1. ``datetime.datetime.now()`` stamps: the tool modules do ``import datetime``; replacing their
       module-level ``datetime`` name with a proxy whose ``now()`` returns FROZEN_NOW leaves the real
       ``datetime`` module untouched.
    2. ``Calendar.create_event`` stores ``list(set(participants))``, whose order follows the
       per-process string hash seed; participants are put back in first-mention order (the same
       set, so every check the source makes on it is unaffected).
    """
    _freeze_clock()
    _stable_participants()


def _stable_participants() -> None:
    calendar = _tools_module("calendar_client").Calendar
    original = calendar.create_event
    if getattr(original, "_mb_stable", False):
        return

    def create_event(self: Any, title: str, description: str, start_time: Any, end_time: Any,
                     location: str | None, participants: list[str]) -> Any:
        order = list(dict.fromkeys([*participants, self.account_email]))
        event = original(self, title, description, start_time, end_time, location, participants)
        event.participants = [p for p in order if p in set(event.participants)]
        return event

    create_event._mb_stable = True  # type: ignore[attr-defined]
    calendar.create_event = create_event


def _freeze_clock() -> None:

    class _FrozenDatetime(_dt.datetime):
        @classmethod
        def now(cls, tz: _dt.tzinfo | None = None) -> _dt.datetime:  # type: ignore[override]
            return FROZEN_NOW if tz is None else FROZEN_NOW.replace(tzinfo=tz)

    proxy = types.ModuleType("datetime")
    proxy.__dict__.update({k: v for k, v in vars(_dt).items() if not k.startswith("__")})
    proxy.datetime = _FrozenDatetime  # type: ignore[attr-defined]
    for name in ("email_client", "cloud_drive_client"):  # the only tools that read the clock
        mod = _tools_module(name)
        if getattr(mod, "datetime", None) is _dt:
            mod.datetime = proxy  # type: ignore[attr-defined]


def environment_class(suite: str) -> type[TaskEnvironment]:
    """The pydantic environment model of ``suite`` (same fields as the package's)."""
    if suite not in _ENV_FIELDS:
        raise ValueError(f"unknown AgentDojo suite {suite!r}; expected one of {', '.join(SUITES)}")
    if suite not in _ENV_CLASSES:
        fields = {f: (_cls(m, c), ...) for f, m, c in _ENV_FIELDS[suite]}
        from pydantic import create_model
        _ENV_CLASSES[suite] = create_model(f"{suite.capitalize()}Environment",
                                           __base__=TaskEnvironment, **fields)  # type: ignore
    return _ENV_CLASSES[suite]


def functions_runtime(suite: str) -> FunctionsRuntime:
    """A FunctionsRuntime with the suite's tools, in the package's order."""
    if suite not in _TOOLS:
        raise ValueError(f"unknown AgentDojo suite {suite!r}; expected one of {', '.join(SUITES)}")
    if suite not in _RUNTIMES:
        _RUNTIMES[suite] = FunctionsRuntime(
            [make_function(getattr(_tools_module(m), n)) for m, n in _TOOLS[suite]])
    return _RUNTIMES[suite]


def tool_result_to_str(result: Any) -> str:
    """Render a tool result the way AgentDojo shows it to an agent (YAML for models/lists).

    A copy of ``agentdojo.agent_pipeline.tool_execution.tool_result_to_str``; that module pulls in
    every LLM client library, which is slow to import and not needed to replay tools.
    """
    if isinstance(result, BaseModel):
        return yaml.safe_dump(result.model_dump()).strip()
    if isinstance(result, list):
        items: list[Any] = []
        for item in result:
            if type(item) in (str, int):
                items.append(str(item))
            elif isinstance(item, BaseModel):
                items.append(item.model_dump())
            else:
                raise TypeError(f"not a valid type for a tool result item: {type(item)}")
        return yaml.safe_dump(items).strip()
    return str(result)


def load_environment(suite: str, data: Mapping[str, Any]) -> TaskEnvironment:
    """Build an environment from its JSON dump (``environment.json``)."""
    return environment_class(suite).model_validate(dict(data))


def dump_environment(env: TaskEnvironment) -> dict[str, Any]:
    """The JSON-able state of an environment; identical for identical states."""
    return json.loads(env.model_dump_json())


def check_calls(calls: Any) -> list[tuple[str, dict[str, Any]]]:
    """Validate a list of ``{"name": str, "arguments": dict}`` calls (extra keys are ignored, so
    a candidate's ``calls`` can be passed as they are)."""
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
        out.append((c["name"], dict(args)))
    return out


def replay(suite: str, env: TaskEnvironment, calls: Sequence[tuple[str, Mapping[str, Any]]]
           ) -> list[dict[str, Any]]:
    """Run ``calls`` in order on ``env`` (mutated in place); one output record per call.

    A failing call does not stop the replay: like an agent, the candidate sees the error string
    and goes on. Unknown tools and invalid arguments become errors, never exceptions.
    """
    return [{"name": name, "output": tool_result_to_str(result) if error is None else "",
             "error": error} for name, result, error in _run_calls(suite, env, calls)]


def apply_calls(suite: str, env: TaskEnvironment, calls: Sequence[tuple[str, Mapping[str, Any]]]
                ) -> None:
    """:func:`replay` for the state it leaves alone: the outputs are not rendered (rendering each
    result as YAML took 42 of a whole build's 242 s, mostly for checks that read only state)."""
    for _ in _run_calls(suite, env, calls):
        pass


def _run_calls(suite: str, env: TaskEnvironment, calls: Sequence[tuple[str, Mapping[str, Any]]]
               ) -> Iterator[tuple[str, Any, str | None]]:
    make_tools_deterministic()
    rt = functions_runtime(suite)
    for name, args in calls:
        result, error = rt.run_function(env, name, dict(args))
        yield name, result, error


class AgentDojoEnv:
    """What ``verify(candidate, env)`` gets for an AgentDojo task: ``env.run_public(calls)``."""

    def __init__(self, suite: str, initial: TaskEnvironment, budget: int) -> None:
        self.suite = suite
        self._initial = initial  # never mutated: every run_public replays on a deep copy
        self.budget = budget
        self.executions = 0

    def run_public(self, calls: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Replay ``calls`` on a fresh copy of the initial environment (one execution).

        Returns ``{"outputs": [{"name", "output", "error"}, ...], "state": <environment dump>}``.
        """
        checked = check_calls(calls)
        if self.executions >= self.budget:
            raise BudgetExceeded(f"run_public: budget exhausted; {self.budget} executions allowed "
                                 f"per judgment and all {self.executions} were used")
        self.executions += 1
        env = self._initial.model_copy(deep=True)
        outputs = replay(self.suite, env, checked)
        return {"outputs": outputs, "state": dump_environment(env)}


# Initial environments by environment.json path, validated once per session by ``prepare`` in the
# worker parent: validating a suite's environment costs ~50 ms, which every case used to repeat.
_INITIAL: dict[str, TaskEnvironment] = {}


def _task_info(task: Mapping[str, Any], public_dir: str) -> tuple[str, str]:
    """The task's AgentDojo suite and the path of its initial environment."""
    info = task.get("agentdojo")
    if not isinstance(info, Mapping) or not isinstance(info.get("suite"), str):
        raise ValueError("task.json has no 'agentdojo.suite'; this runtime serves AgentDojo tasks")
    return info["suite"], os.path.join(public_dir, info.get("environment_file", ENVIRONMENT_FILE))


def _initial_environment(suite: str, path: str) -> TaskEnvironment:
    if path not in _INITIAL:
        with open(path, encoding="utf-8") as f:
            _INITIAL[path] = load_environment(suite, json.load(f))
    return _INITIAL[path]


def prepare(task: Mapping[str, Any], public_dir: str, config: Mapping[str, Any]) -> None:
    """Session-wide work, once in the worker parent: the frozen tool clock, the suite's tool
    runtime and the validated initial environment, which every case then inherits."""
    suite, path = _task_info(task, public_dir)
    make_tools_deterministic()
    functions_runtime(suite)
    _initial_environment(suite, path)


def make_env(task: Mapping[str, Any], public_dir: str, config: Mapping[str, Any]) -> AgentDojoEnv:
    """Runtime entry point: the env for one judgment, over the task's initial environment."""
    suite, path = _task_info(task, public_dir)
    budget = config.get("budget", DEFAULT_BUDGET)
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 0:
        raise ValueError(f"runtime_config budget must be a non-negative int, got {budget!r}")
    make_tools_deterministic()
    return AgentDojoEnv(suite, _initial_environment(suite, path), budget)
