"""Which requests the endpoint proxy lets through, and the caps it writes into them.

A harness needs one call from the endpoint: a model completion in the wire format it speaks --
chat completions (Pi, OpenCode, OpenClaw, mini-swe-agent), Responses (Codex) or Anthropic
Messages (Claude Code) -- always a ``POST`` under the configured base path. Nothing else is
forwarded: every other method or path (server-internal routes such as ``/props``, ``/slots``,
file or batch APIs) is refused, so the key the proxy adds never travels with it. A ``GET`` of
the model list is answered by the proxy itself from the configured model name (some OpenAI
clients probe it), without contacting the endpoint.

The body the proxy forwards is its own re-serialisation of a strictly parsed JSON object, with
only the fields and client-side tools its API allows (``field_policy``: vendor-side tools, MCP
servers, background and stored responses, service tiers and thinking budgets are stripped), the
configured model named, the reply cap set (every length field the API defines, llama.cpp's
``n_predict`` included, clamped to ``condition.max_tokens``; when none is given, the API's own
field is added: ``max_output_tokens`` for Responses, ``max_tokens`` for chat and Messages) and
every multiple-completion field forced to 1. Streaming is allowed: it changes the reply's framing,
not its length.
"""

from __future__ import annotations

import json
from typing import Any

from monitorbench.generation.harnesses import field_policy
from monitorbench.generation.harnesses.http_gate import Refused

CHAT, RESPONSES, MESSAGES = field_policy.CHAT, field_policy.RESPONSES, field_policy.MESSAGES
MODELS = "models"
CHAT_COMPLETIONS = "/chat/completions"
# Every field a server may read as the reply's length (llama.cpp prefers n_predict over
# max_tokens, so capping max_tokens alone is no cap).
STANDARD_CAP_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens")
REPLY_CAP_KEYS = (*STANDARD_CAP_KEYS, "n_predict")
# Fields that ask for several completions in one call (OpenAI n / best_of, llama.cpp n_cmpl).
MULTIPLE_KEYS = ("n", "best_of", "n_cmpl")


def api_routes(base_path: str) -> dict[tuple[str, str], str]:
    """(method, path) -> kind, for the endpoint whose base URL has path ``base_path``
    (e.g. ``/v1``). Claude Code is given the root without ``/v1`` (``claude_code.py``) and
    appends ``/v1/messages`` itself."""
    base = base_path.rstrip("/")
    root = base[:-3] if base.endswith("/v1") else base
    return {("POST", base + CHAT_COMPLETIONS): CHAT, ("POST", base + "/responses"): RESPONSES,
            ("POST", base + "/messages"): MESSAGES, ("POST", root + "/v1/messages"): MESSAGES,
            ("GET", base + "/models"): MODELS}


def route(routes: dict[tuple[str, str], str], method: str, path: str) -> str:
    """The kind of an allowed request; :class:`Refused` for anything else."""
    kind = routes.get((method, path))
    if kind is not None:
        return kind
    if any(p == path for _, p in routes):
        raise Refused(405, f"{method} {path} is not allowed (only the model API call)")
    raise Refused(404, f"{method} {path} is not the model API: only "
                       f"{', '.join(sorted({f'{m} {p}' for m, p in routes}))} are answered")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_object(body: bytes) -> dict[str, Any]:
    """The body as one JSON object; anything else (trailing bytes, NaN, another type, invalid
    UTF-8, nesting too deep to parse) is refused."""
    try:
        obj = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise Refused(400, f"body is not one JSON object: {type(e).__name__}: {str(e)[:200]}")
    if not isinstance(obj, dict):
        raise Refused(400, f"body is JSON {type(obj).__name__}, not an object")
    return obj


def capped(req: dict[str, Any], kind: str, limit: int, grammar: str | None, model: str,
           allowed: frozenset[str] = frozenset()) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The request to forward and what was changed (field -> [asked, sent]): only the fields
    and tools ``kind`` allows (``field_policy``, ``allowed`` naming the scaffold's
    exceptions), the configured model (every harness is told it; another name could pick a
    costlier model behind the same key), reply-length fields clamped to ``limit`` (the API's
    own field set when absent), multiple-completion fields set to 1, and for chat completions
    the configured GBNF grammar (replacing the harness's own: the run's configuration decides
    the reply's format)."""
    out, changed = field_policy.apply(req, kind, allowed)
    if out.get("model") != model:
        changed["model"] = [out.get("model"), model]
        out["model"] = model
    _cap_reply(out, kind, limit, changed)
    for k in MULTIPLE_KEYS:
        if k in out and out[k] is not None and not (type(out[k]) is int and out[k] == 1):
            changed[k] = [out[k], 1]
            out[k] = 1
    if grammar is not None and kind == CHAT:
        out["grammar"] = grammar
    return out, changed


def _cap_reply(out: dict[str, Any], kind: str, limit: int, changed: dict[str, list[Any]]
               ) -> None:
    """Every reply-length field present clamped to ``limit``; the API's own field added when
    it sets none (``n_predict`` alone binds llama.cpp only)."""
    present = [k for k in REPLY_CAP_KEYS if k in out]
    if not any(k in out for k in field_policy.CAP_FIELDS[kind]):
        present.append(field_policy.OWN_CAP[kind])
    for k in present:
        asked = out.get(k)
        if asked is not None and (isinstance(asked, bool) or not isinstance(asked, int)):
            raise Refused(400, f"{k} must be an integer, got {json.dumps(asked)[:40]}")
        sent = asked if asked is not None and 1 <= asked <= limit else limit
        if sent != asked:
            out[k] = sent
            changed[k] = [asked, sent]


def model_list(model: str) -> bytes:
    """The ``GET /models`` reply the proxy gives itself: the one configured model."""
    return json.dumps({"object": "list", "data": [
        {"id": model, "object": "model", "created": 0, "owned_by": "monitorbench"}]}).encode()
