"""The read-only lookups a real agent makes before it writes a value it could only have looked up.

τ²'s gold actions often write values straight from the database (a passenger's birth date, a
saved payment id, an item id of an order, a flight number) without the read that would have told
an agent that value: τ² replays actions, it does not ask where their arguments came from. A
record built from such actions is no conversation an agent could have had, and C8 rightly rejects
it (a birth date that appears from nowhere). So the gold record is *grounded by construction*:
before each write, every value it writes that neither the customer's request nor an earlier
output of the record holds is looked up with the domain's read tools, and the lookups go into the
record right before the write. Every positive derived from the gold inherits them.

What counts as a value: every string in a write's arguments, nested ones included, except the
agent's own words (``summary``), empty strings, and the tool's literals (a value the tool's schema
itself spells out, such as a cabin class or a cancellation reason). A value is grounded when it
occurs as a whole word in the request or in an earlier call's output; an ISO or US date also
when the request mentions its month and day ("May 20", "November 12th"): the agent writes the
customer's date in the tool's form; a US date (banking's ``11/14/2026``) also when an earlier output shows a date of its
month and day (the agent counts a year from today's date, which ``banking_get_current_time``
gives). A string argument that holds a JSON object (banking's discoverable-tool calls pass
their arguments so) counts by its values.

Banking: the name of a discoverable tool an agent unlocks, calls or hands the customer is a value
too, grounded only by a knowledge-base search (``banking_grep``) whose output names it; the
search pattern is the agent's own words (the tool's name without its verb and number, as a
regex: ``user.dispute.history``; :func:`search_patterns`), or a phrase of the request that
ends like a product name the gold writes ("checking account" for the "Purple Account"), so it
needs no grounding. Unlocking changes no table but
writes a name, so it is grounded like a write.

Which lookups: the domain's read tools (not ``calculate`` or ``transfer_to_human_agents``), with
arguments taken from values the record already holds under the parameter's name (in the gold's
arguments, in earlier outputs, or in the request: a name, a zip, an email), each argument itself
grounded. Greedily, the lookup that grounds the most missing values goes first; when none grounds
any, one that makes a new lookup possible (a user's order list before an order's items).
"""

from __future__ import annotations

import itertools
import json
import re
import string
from typing import Any, Iterator, Mapping, Sequence

from monitorbench.audit.temporal import mentioned_days
from monitorbench.sources.tau2 import runtime as rt

Call = tuple[str, dict[str, Any]]
FREE_TEXT = frozenset({"summary"})        # the agent's own words, nothing to look up
SEARCH_WORDS = frozenset({"pattern"})     # a search's words are the agent's own too
GROUNDED_READS = frozenset({"banking_unlock_discoverable_agent_tool"})
TOOL_NAME_KEYS = ("agent_tool_name", "discoverable_tool_name")
NOT_LOOKUPS = frozenset({"calculate", "transfer_to_human_agents",
                         "banking_transfer_to_human_agents",
                         "banking_unlock_discoverable_agent_tool",
                         "banking_list_discoverable_agent_tools"})
# Banking's discoverable lookups the knowledge base names, by the one argument each takes: an
# account id is only told by the accounts lookup, a debit card's or a transaction's by the
# account's (the agent searches, unlocks and calls them: runtime.reads, no table changes but
# the bookkeeping one).
DISCOVERABLE_LOOKUPS = {"get_all_user_accounts_by_user_id_3847": "user_id",
                        "get_debit_cards_by_account_id_7823": "account_id",
                        "get_bank_account_transactions_9173": "account_id"}
UNLOCK = "banking_unlock_discoverable_agent_tool"
# The customer's lookups an agent hands over (banking_give_discoverable_user_tool), by their
# argument: the customer reads their card's last 4 digits and tells them (task_053's brief:
# "If the agent provides you with the get_card_last_4_digits tool, use it").
CUSTOMER_LOOKUPS = {"get_card_last_4_digits": "credit_card_account_id"}
GIVE = "banking_give_discoverable_user_tool"
MAX_PROBES = 400                          # argument combinations tried per read tool
MAX_STEPS = 12                            # lookups inserted before one write
_ISO_DAY = re.compile(r"^\d{4}-(\d{2})-(\d{2})$")
_US_DAY = re.compile(r"^(\d{2})/(\d{2})/\d{4}$")
# A clock reading ("2025-11-14 03:40:00 EST"): never a literal of a tool, though banking's
# verification log spells one as its example. Banking's policy: "If you need the current time,
# always use the get_current_time() tool. Do not make up or assume the current time."
_CLOCK = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?\b")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_NAME = re.compile(r"(?:You(?: are|.re)|Your? name is) ([A-Z][a-z]+) ([A-Z][a-z]+)")
# Banking's brief introduces the customer ("**Your character:** Kenji Tanaka, ...", "named
# Bob Nakamoto"): the name the agent looks the customer up by (hyphenated names too).
_CUSTOMER_NAME = re.compile(r"(?:\bnamed|\*\*Your character:\*\*(?: You are)?|Your full name:)"
                            r" ([A-Z][\w'-]+(?: [A-Z][\w'-]+)+)")
_ZIP = re.compile(r"\b(\d{5})\b")
_ID_LINE = re.compile(r"^\s*(\w*_id): (\w+)$", re.MULTILINE)   # banking's "account_id: chk_..."
_TOKEN = re.compile(r"#?\w+")


def written_values(args: Any, key: str = "") -> Iterator[str]:
    """Every non-empty string in a write's arguments (nested too), except free text."""
    if isinstance(args, Mapping):
        for k, v in args.items():
            if str(k) not in FREE_TEXT:
                yield from written_values(v, str(k))
    elif isinstance(args, list):
        for v in args:
            yield from written_values(v, key)
    elif isinstance(args, str) and args.strip():
        inner = _json_object(args)
        if inner is not None:
            yield from written_values(inner, key)
        else:
            yield args


def _json_object(text: str) -> Mapping[str, Any] | None:
    if not text.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, Mapping) else None


def grounded(name: str, args: Mapping[str, Any]) -> bool:
    """Whether what a call writes must be grounded: every write, an unlock, and every call of
    the customer's (a card id the customer passes is one the agent must first have looked up
    and told them: the customer's brief names the card, never its id)."""
    return not rt.reads(name, args) or name in GROUNDED_READS or name.startswith(rt.CUSTOMER)


def search_patterns(tool_name: str) -> list[str]:
    """The knowledge-base searches an agent makes for a discoverable tool: its name's words
    without the trailing number, as a regex, first without the leading verb
    (``user.dispute.history``), then with it (``close.bank.account``: a general subject
    needs the verb to find the document that names the tool)."""
    words = tool_name.split("_")
    if len(words) > 1 and words[-1].isdigit():
        words = words[:-1]   # the tool's number, not its subject ("last_4_digits" keeps its 4)
    return list(dict.fromkeys([".".join(words[1:] or words), ".".join(words)]))


def _word(value: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w@.#])" + re.escape(value.strip()) + r"(?![\w@])", re.IGNORECASE)


def _found(value: str, text: str, rx: re.Pattern[str] | None = None) -> bool:
    """``value`` occurs in ``text`` as a whole word; a US date (``11/14/2026``) also when
    ``text`` shows a date of the same month and day: a date the agent counts from one it was
    told (a fee waived for a year from today's)."""
    if (rx or _word(value)).search(text):
        return True
    m = _US_DAY.match(value.strip())
    return m is not None and any((int(a), int(b)) == (int(m.group(1)), int(m.group(2)))
                                 for a, b in _shown_days(text))


def _shown_days(text: str) -> Iterator[tuple[str, str]]:
    yield from ((mo, d) for _, mo, d in re.findall(r"\b(\d{4})-(\d{2})-(\d{2})\b", text))
    yield from ((mo, d) for mo, d, _ in re.findall(r"\b(\d{2})/(\d{2})/(\d{4})\b", text))


def _initials(text: str) -> set[str]:
    """The initials of every run of two or more capitalised words (``NY`` for "New York"): the
    short form of a place the customer names."""
    out = set()
    for run in re.findall(r"(?:\b[A-Z][a-z]+(?:\s+|\b)){2,}", text):
        words = run.split()
        out |= {"".join(w[0] for w in words[i:j]) for i in range(len(words))
                for j in range(i + 2, len(words) + 1)}
    return out


class Grounds:
    """What a record has told the agent so far: the request and the outputs it saw."""

    def __init__(self, instruction: str, schemas: Mapping[str, Any]) -> None:
        self.texts = [instruction]
        self.days = mentioned_days(instruction)
        self.initials = _initials(instruction)
        self.schemas = {name: json.dumps(s) for name, s in schemas.items()}
        self._seen: dict[str, int] = {}   # value -> how many texts were searched without it

    def holds(self, value: str, tool: str | None = None) -> bool:
        rx = _word(value)
        if tool is not None and rx.search(self.schemas.get(tool, "")) \
                and not _CLOCK.match(value.strip()):
            return True   # a literal of the tool (an enum value, a choice its description lists)
        m = _ISO_DAY.match(value.strip()) or _US_DAY.match(value.strip())
        if m and (int(m.group(1)), int(m.group(2))) in self.days:
            return True   # the customer's "November 12th" in the tool's form
        if value.strip() in self.initials:
            return True
        start = self._seen.get(value, 0)
        if start < 0:
            return True
        if any(_found(value, t, rx) for t in self.texts[start:]):
            self._seen[value] = -1
            return True
        self._seen[value] = len(self.texts)
        return False

    def missing(self, name: str, args: Mapping[str, Any]) -> list[str]:
        return list(dict.fromkeys(v for v in written_values(args) if not self.holds(v, name)))


def ungrounded(instruction: str, schemas: Mapping[str, Any],
               calls: Sequence[Mapping[str, Any]]) -> list[str]:
    """``"calls[i] name: value"`` for every value a write of an interaction record writes that
    neither the request nor an earlier output holds (module rules); empty when grounded."""
    grounds = Grounds(instruction, schemas)
    out = []
    for i, call in enumerate(calls):
        name, args = str(call.get("name")), call.get("arguments") or {}
        if call.get("by") == "customer":
            name = rt.customer(name)
        if grounded(name, args):
            out += [f"calls[{i}] {name}: {v!r}" for v in grounds.missing(name, args)]
        grounds.texts.append(str(call.get("output") or ""))
    return out


def _request_phrases(instruction: str, calls: Sequence[Call]) -> list[str]:
    """Searches in the customer's words for a product a write names: each phrase of the
    request that ends in the product name's last word ("checking account" for the "Purple
    Account" the agent then finds in the knowledge base)."""
    out: list[str] = []
    for name, args in calls:
        for value in written_values(args) if not rt.reads(name, args) else ():
            words = value.split()
            if len(words) < 2 or not words[-1].isalpha():
                continue
            rx = re.compile(rf"\b([a-z]+) {re.escape(words[-1])}\b", re.IGNORECASE)
            out += [f"{m.group(1)} {words[-1]}".lower() for m in rx.finditer(instruction)]
    return list(dict.fromkeys(out))


class _Pool:
    """Candidate argument values per parameter name, in the order they were met."""

    def __init__(self, instruction: str, calls: Sequence[Call],
                 seeds: Mapping[str, str] | None = None) -> None:
        self.values: dict[str, dict[str, None]] = {}
        self.add_json(dict(seeds or {}))
        for name, args in calls:
            self.add_json(args)
            for key in TOOL_NAME_KEYS:
                if isinstance(args.get(key), str):
                    self._add("pattern", search_patterns(args[key]))
        self._add("email", _EMAIL.findall(instruction))
        if m := _NAME.search(instruction):
            self._add("first_name", [m.group(1)])
            self._add("last_name", [m.group(2)])
        self._add("zip", _ZIP.findall(instruction))
        self._add("customer_name", _CUSTOMER_NAME.findall(instruction))
        self._add("pattern", _request_phrases(instruction, calls))
        self.stated = list(dict.fromkeys(_TOKEN.findall(instruction)))

    def _add(self, key: str, values: Sequence[str]) -> None:
        bucket = self.values.setdefault(key, {})
        for v in values:
            bucket.setdefault(v, None)

    def add_json(self, value: Any, key: str = "") -> None:
        """Every string under its key; a plural key's strings also under ``<singular>_id``
        (a user's ``orders`` and ``reservations`` are lists of ids)."""
        if isinstance(value, Mapping):
            for k, v in value.items():
                self.add_json(v, str(k))
        elif isinstance(value, list):
            for v in value:
                self.add_json(v, key)
            if key.endswith("s") and all(isinstance(v, str) for v in value):
                self._add(key[:-1] + "_id", value)
        elif isinstance(value, str) and key:
            inner = _json_object(value)
            if inner is not None:
                self.add_json(inner)
            else:
                self._add(key, [value])

    def add_output(self, output: str) -> None:
        try:
            self.add_json(json.loads(output))
        except ValueError:   # a bare id (airline, retail) or banking's "user_id: ..." lines
            if re.fullmatch(r"\w+", output.strip()):
                self._add("user_id", [output.strip()])
            for key, value in _ID_LINE.findall(output):
                self._add(key, [value])

    def get(self, key: str) -> list[str]:
        """The values met under ``key``, then the request's words of the same shape as one of
        them (a reservation number or an airport code the customer states)."""
        met = list(self.values.get(key, {}))
        shapes = {_shape(v) for v in met}
        return list(dict.fromkeys([*met, *(w for w in self.stated if _shape(w) in shapes)]))


def _shape(value: str) -> str:
    """``JFK`` -> ``AAA``, ``#W3947049`` -> ``#A9999999``, ``omar_rossi_1241`` ->
    ``aaaa_aaaaa_9999``: values of one kind share a shape."""
    return value.translate(_SHAPES)


# _shape's table (a translation, 2.7 million calls in a banking build: three regex
# substitutions each cost 10 of its 43 s)
_SHAPES = str.maketrans({**dict.fromkeys(string.ascii_uppercase, "A"),
                         **dict.fromkeys(string.ascii_lowercase, "a"),
                         **dict.fromkeys(string.digits, "9")})


def _probes(domain: str, schemas: Mapping[str, Any], pool: _Pool, grounds: Grounds,
            made: set[str]) -> list[Call]:
    """Every lookup the record could make now: a read tool with each required argument a
    grounded value met under that name."""
    out: list[Call] = []
    for tool in rt.TOOLS[domain]:
        if tool not in rt.READ_ONLY or tool in NOT_LOOKUPS:
            continue
        params = list(schemas[tool].get("required") or [])
        options = [[v for v in pool.get(p) if p in SEARCH_WORDS or grounds.holds(v)]
                   for p in params]
        for combo in itertools.islice(itertools.product(*options), MAX_PROBES):
            call = (tool, dict(zip(params, combo)))
            if _key(call) not in made:
                out.append(call)
    return out


def _key(call: Call) -> str:
    return json.dumps(call, sort_keys=True)


class _Record:
    """The grounded record being written: its calls, a toolkit in the state they left, and what
    the agent has seen."""

    def __init__(self, domain: str, instruction: str, schemas: Mapping[str, Any],
                 gold: Sequence[Call], seeds: Mapping[str, str], start: str | None = None
                 ) -> None:
        self.domain, self.schemas, self.start = domain, schemas, start
        self.kit = rt.fresh_toolkit(domain, start)
        self.calls: list[Call] = []
        self.grounds = Grounds(instruction, schemas)
        self.pool = _Pool(instruction, gold, seeds)
        self.made: set[str] = set()

    def call(self, name: str, args: Mapping[str, Any]) -> str:
        output, _ = rt.call_tool(self.domain, self.kit, name, args)
        self.calls.append((name, dict(args)))
        self.grounds.texts.append(output)
        self.pool.add_output(output)
        self.made.add(_key((name, dict(args))))
        return output

    def look_up(self, missing: list[str]) -> None:
        """Insert lookups until ``missing`` is grounded or no lookup helps."""
        for _ in range(MAX_STEPS):
            if not missing:
                return
            best = self._best(missing)
            steps = [best] if best is not None else self._best_discoverable(missing)
            if not steps:
                return
            for step in steps:
                self.call(*step)
            missing = [v for v in missing if not self.grounds.holds(v)]

    def _best(self, missing: list[str]) -> Call | None:
        """The lookup grounding most of ``missing`` (reads change nothing, so each is tried on
        the current state); else the one that makes possible the lookup grounding most."""
        probes = _probes(self.domain, self.schemas, self.pool, self.grounds, self.made)
        tried = [(p, *self._try(p, missing)) for p in probes]
        best = max(tried, key=lambda t: t[2], default=None)
        if best is not None and best[2] > 0:
            return best[0]
        now = {_key(p) for p in probes}
        scored = [(self._enabled_gain(out, now, missing), i, p)
                  for i, (p, out, _) in enumerate(tried) if out is not None]
        top = max(scored, key=lambda t: (t[0], -t[1]), default=None)
        return top[2] if top is not None and top[0] > 0 else None

    def _discoverable(self, pool: "_Pool", grounds: Grounds, made: set[str]
                      ) -> list[list[Call]]:
        """Every discoverable lookup the record could make now (:data:`DISCOVERABLE_LOOKUPS`,
        banking only), each with the search that names the tool and its unlock where the
        record has not made them yet."""
        out = []
        for tool, param in DISCOVERABLE_LOOKUPS.items() if self.domain == rt.BANKING else ():
            unlock = (UNLOCK, {"agent_tool_name": tool})
            before = ([] if grounds.holds(tool) else
                      [("banking_grep", {"pattern": search_patterns(tool)[0]})])
            before += [] if _key(unlock) in made else [unlock]
            for value in (v for v in pool.get(param) if grounds.holds(v)):
                call = (rt.DISCOVERABLE_CALL, {"agent_tool_name": tool,
                                               "arguments": json.dumps({param: value})})
                if _key(call) not in made:
                    out.append([*before, call])
        return out + self._customer_lookups(pool, grounds, made)

    def _customer_lookups(self, pool: "_Pool", grounds: Grounds, made: set[str]
                          ) -> list[list[Call]]:
        """The customer's calls of a lookup the agent has handed them (:data:`CUSTOMER_LOOKUPS`),
        with a value the agent has told them."""
        given = {str(a.get("discoverable_tool_name")) for n, a in self.calls if n == GIVE}
        out = []
        for tool, param in CUSTOMER_LOOKUPS.items() if self.domain == rt.BANKING else ():
            ids = dict.fromkeys([*pool.get(param), *pool.get("account_id")])  # a card's id
            for value in (v for v in ids if tool in given and grounds.holds(v)):
                call = (rt.DISCOVERABLE_USER_CALL, {"discoverable_tool_name": tool,
                                                    "arguments": json.dumps({param: value})})
                if _key(call) not in made:
                    out.append([call])
        return out

    def _replay(self, steps: list[Call]) -> list[str] | None:
        """The outputs of ``steps`` after the record (a fresh replay: an unlock would change
        the record's toolkit); None when one fails or the search does not name the tool."""
        kit = rt.fresh_toolkit(self.domain, self.start)
        outputs = rt.replay(self.domain, kit, [*self.calls, *steps])[len(self.calls):]
        if any(o.get("error") for o in outputs):
            return None
        for (name, _), (_, args), out in zip(steps, steps[1:], outputs):
            if name == "banking_grep" and not _found(str(args["agent_tool_name"]),
                                                     str(out["output"])):
                return None
        return [str(o["output"]) for o in outputs]

    def _best_discoverable(self, missing: list[str]) -> list[Call]:
        """The discoverable lookup grounding most of ``missing``; else the one whose output
        makes possible the discoverable lookup grounding most (an account's debit cards)."""
        scored = []
        for steps in self._discoverable(self.pool, self.grounds, self.made):
            outputs = self._replay(steps)
            if outputs is not None:
                scored.append((sum(1 for v in missing if _found(v, outputs[-1])), steps,
                               outputs))
        best = max(scored, key=lambda t: t[0], default=None)
        if best is not None and best[0] > 0:
            return best[1]
        for _, steps, outputs in scored:
            pool = _Pool("", [])
            pool.values = {k: dict(v) for k, v in self.pool.values.items()}
            pool.add_output(outputs[-1])
            grounds = Grounds("", {})
            grounds.texts, grounds.days = [*self.grounds.texts, *outputs], self.grounds.days
            later = self._discoverable(pool, grounds, self.made | {_key(c) for c in steps})
            if any((o := self._replay([*steps, *more])) is not None
                   and any(_found(v, o[-1]) for v in missing) for more in later):
                return steps
        return []

    def _try(self, probe: Call, missing: list[str]) -> tuple[str | None, int]:
        output, error = rt.call_tool(self.domain, self.kit, *probe)
        if error:
            return None, 0
        return output, sum(1 for v in missing if _found(v, output))

    def _enabled_gain(self, output: str, now: set[str], missing: list[str]) -> int:
        """The most of ``missing`` one lookup grounds that ``output`` makes possible."""
        pool = _Pool("", [])
        pool.values = {k: dict(v) for k, v in self.pool.values.items()}
        pool.stated = self.pool.stated
        pool.add_output(output)
        grounds = Grounds("", {})
        grounds.texts, grounds.days = [*self.grounds.texts, output], self.grounds.days
        new = [p for p in _probes(self.domain, self.schemas, pool, grounds, self.made)
               if _key(p) not in now]
        return max((self._try(p, missing)[1] for p in new), default=0)


def grounded_calls(domain: str, instruction: str, schemas: Mapping[str, Any],
                   calls: Sequence[Call], seeds: Mapping[str, str] | None = None,
                   start: str | None = None) -> list[Call]:
    """``calls`` with, before each write, the lookups that ground what it writes (module
    rules). The calls themselves keep their order and arguments. ``seeds``: lookup arguments
    known besides the gold's (the customer's user id), used only where grounded. ``start``: the
    task's changed initial database (:func:`runtime.start_key`), None for the domain's."""
    record = _Record(domain, instruction, schemas, calls, seeds or {}, start)
    for name, args in calls:
        if grounded(name, args):
            record.look_up(record.grounds.missing(name, args))
        record.call(name, args)
    return record.calls
