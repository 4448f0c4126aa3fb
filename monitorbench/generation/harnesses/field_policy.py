"""Which request fields and tools the proxy forwards, per wire format (issue 44).

A harness's request is written by the harness and, through its tools, steered by an untrusted
model. Fields that make the *vendor* act are outside every budget the proxy keeps and give the
generator a door the sandbox closed: server-side tools (``web_search``, ``web_fetch``,
``code_interpreter``, ``code_execution``, MCP tools with a ``server_url``), ``mcp_servers``,
``background`` and stored responses (``store``, ``previous_response_id``), priority
``service_tier`` and thinking budgets. Codex puts a ``web_search`` tool in every request, so
refusing would end every Codex run; they are stripped instead, each stripped name recorded in
the ``model`` event's ``capped`` field (``stripped``).

Each API has an allowlist of top-level fields (its own reply-cap field included, a foreign one
not: Responses has no ``max_tokens``); anything else is stripped. Tools are kept only when the
harness runs them itself (``function`` and ``custom``; Codex's ``local_shell`` and
``namespace`` groups; Anthropic's typeless, ``custom``, ``bash_*`` and ``text_editor_*``).
``store`` is sent as ``false`` where the API defines it (Responses stores by default). A
``thinking`` or ``reasoning`` object keeps its mode and effort, never a token budget.

``allowed`` names fields or tool types (``web_search`` covers ``web_search_20250305``) that pass
unchanged: the scaffold's choice, never the harness's.
"""

from __future__ import annotations

from typing import Any, Iterable

CHAT, RESPONSES, MESSAGES = "chat", "responses", "messages"
_COMMON = {"model", "stream", "temperature", "top_p", "tools", "tool_choice", "metadata"}
FIELDS: dict[str, frozenset[str]] = {
    CHAT: frozenset(_COMMON | {
        "messages", "stream_options", "parallel_tool_calls", "stop", "seed", "max_tokens",
        "max_completion_tokens", "n", "presence_penalty", "frequency_penalty", "logit_bias",
        "logprobs", "top_logprobs", "response_format", "user", "reasoning_effort", "reasoning",
        "verbosity", "prompt_cache_key", "safety_identifier",
        # llama.cpp / vLLM / SGLang sampling and templating
        "grammar", "n_predict", "top_k", "min_p", "repeat_penalty", "repetition_penalty",
        "typical_p", "cache_prompt", "chat_template_kwargs"}),
    RESPONSES: frozenset(_COMMON | {
        "input", "instructions", "parallel_tool_calls", "max_output_tokens", "reasoning",
        "text", "include", "prompt_cache_key", "client_metadata", "truncation", "user",
        "safety_identifier", "store", "top_logprobs"}),
    MESSAGES: frozenset(_COMMON | {
        "messages", "system", "max_tokens", "stop_sequences", "top_k", "thinking",
        "context_management", "output_config"}),
}
# The reply-cap field each API defines, and the one the proxy adds when the harness sends none.
CAP_FIELDS: dict[str, tuple[str, ...]] = {CHAT: ("max_tokens", "max_completion_tokens"),
                                          RESPONSES: ("max_output_tokens",),
                                          MESSAGES: ("max_tokens",)}
OWN_CAP = {kind: fields[0] for kind, fields in CAP_FIELDS.items()}
_CLIENT_TOOLS = {CHAT: ({None, "function", "custom"}, ()),
                 RESPONSES: ({None, "function", "custom", "local_shell", "namespace"}, ()),
                 MESSAGES: ({None, "custom"}, ("bash_", "text_editor_"))}
_BUDGET_KEYS = ("budget_tokens", "max_tokens", "budget")


def _named(name: str | None, allowed: Iterable[str]) -> bool:
    """Whether ``allowed`` names ``name`` exactly or as its versioned base (``web_search``
    names ``web_search_20250305`` and ``web_search_preview``)."""
    return name is not None and any(name == a or name.startswith(a + "_") for a in allowed)


def _client_tool(tool: Any, kind: str, allowed: frozenset[str]) -> bool:
    if not isinstance(tool, dict):
        return False
    t = tool.get("type")
    if _named(t, allowed):
        return True
    if "server_url" in tool or "mcp_servers" in tool:
        return False
    types, prefixes = _CLIENT_TOOLS[kind]
    return t in types or (isinstance(t, str) and t.startswith(prefixes))


def _tools(tools: list[Any], kind: str, allowed: frozenset[str], stripped: list[str]
           ) -> list[Any]:
    """The client-side tools of ``tools`` (a ``namespace`` group filtered inside)."""
    kept = []
    for tool in tools:
        if not _client_tool(tool, kind, allowed):
            stripped.append(f"tools:{_tool_label(tool)}")
            continue
        if isinstance(tool.get("tools"), list):
            tool = {**tool, "tools": _tools(tool["tools"], kind, allowed, stripped)}
        kept.append(tool)
    return kept


def _tool_label(tool: Any) -> str:
    if not isinstance(tool, dict):
        return type(tool).__name__
    return str(tool.get("type") or tool.get("name") or "?")[:60]


def _no_budget(value: Any, field: str, stripped: list[str]) -> Any:
    """A ``thinking``/``reasoning`` object without its token budget; ``None`` (strip the field)
    when only a budget made it mean anything (Anthropic's ``enabled`` needs one)."""
    if not isinstance(value, dict):
        return value
    kept = {k: v for k, v in value.items() if k not in _BUDGET_KEYS}
    if len(kept) == len(value):
        return value
    stripped.append(f"{field}.budget")
    if field == "thinking" and kept.get("type") == "enabled":
        return None
    return kept


def apply(req: dict[str, Any], kind: str, allowed: frozenset[str]
          ) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The request with only ``kind``'s allowed fields and client-side tools, and what changed
    (``stripped``: the names removed; ``store``: forced to false)."""
    out: dict[str, Any] = {}
    stripped: list[str] = []
    for k, v in req.items():
        if k in allowed:
            out[k] = v
        elif k not in FIELDS[kind]:
            stripped.append(k)
        elif k in ("thinking", "reasoning"):
            v = _no_budget(v, k, stripped)
            if v is not None:
                out[k] = v
        elif k == "tools" and isinstance(v, list):
            out[k] = _tools(v, kind, allowed, stripped)
        else:
            out[k] = v
    changed: dict[str, list[Any]] = {}
    if "store" in FIELDS[kind] and "store" not in allowed and out.get("store") is not False:
        changed["store"] = [out.get("store"), False]
        out["store"] = False
    _drop_dangling_choice(out, stripped)
    if stripped:
        changed["stripped"] = [sorted(set(stripped)), None]
    return out, changed


def _drop_dangling_choice(out: dict[str, Any], stripped: list[str]) -> None:
    """A ``tool_choice`` that forces a stripped tool (or any tool, when none is left) would be
    an error at the endpoint: it goes too."""
    choice = out.get("tool_choice")
    gone = {s.split(":", 1)[1] for s in stripped if s.startswith("tools:")}
    if "tools" in out and not out["tools"] and gone:
        del out["tools"]
        if choice is not None:
            del out["tool_choice"]
            stripped.append("tool_choice")
    elif isinstance(choice, dict) and (choice.get("type") in gone or choice.get("name") in gone):
        del out["tool_choice"]
        stripped.append("tool_choice")
