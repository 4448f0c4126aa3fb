"""Pi (``@mariozechner/pi-coding-agent``): an OpenAI-completions provider in ``models.json``.

Pi exits 0 even when the model stream broke, so the outcome is read from its session file
(assistant ``stopReason``/``errorMessage``), which is also the native trajectory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from monitorbench.generation.harnesses.install import Package
from monitorbench.generation.harnesses.safe_files import files_matching
from monitorbench.generation.harnesses.sandbox import HOME
from monitorbench.generation.harnesses.spec import Event, Harness, HarnessRun, jsonl, write_json
from monitorbench.generation.traces import cap

PROVIDER = "monitorbench"
AGENT_DIR = "pi-agent"
SESSIONS = "sessions"


def command(run: HarnessRun) -> tuple[list[str], dict[str, str]]:
    window = run.scaffold.harness.context_window
    reply = min(int(run.condition.max_tokens), window // 2)
    agent = run.home / AGENT_DIR
    write_json(agent / "models.json", {"providers": {PROVIDER: {
        "baseUrl": run.base_url, "api": "openai-completions", "apiKey": "monitorbench",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [{"id": run.model, "reasoning": False, "input": ["text"],
                    "contextWindow": window, "maxTokens": reply}]}}})
    # compaction must leave room below the window, or Pi asks for more than the model holds
    write_json(agent / "settings.json", {"compaction": {
        "enabled": True, "reserveTokens": reply, "keepRecentTokens": window // 4}})
    argv = [str(run.install_dir / "node_modules" / ".bin" / "pi"), "--provider", PROVIDER,
            "--model", run.model, "--print", "--offline", "--no-extensions", "--no-skills",
            "--no-prompt-templates", "--no-themes", "--no-context-files",
            "--session-dir", f"{HOME}/{SESSIONS}", run.prompt]
    return argv, {"PI_CODING_AGENT_DIR": f"{HOME}/{AGENT_DIR}", "PI_OFFLINE": "1"}


def native_events(home: Path, output_log: Path) -> Iterable[Event]:
    """Session entries -> trace events: tool calls (``read``/``tool``), tool results, and
    assistant errors (a broken stream Pi itself reports only here)."""
    for session in files_matching(home / SESSIONS, ".jsonl"):
        for entry in jsonl(session, home):
            msg = entry.get("message") if entry.get("type") == "message" else None
            if not isinstance(msg, dict):
                continue
            yield from message_events(msg, "pi")


def message_events(msg: dict, harness: str) -> Iterable[Event]:
    """Trace events of one transcript message in Pi's agent format (assistant tool calls,
    tool results, an error or aborted stop), which OpenClaw's transcripts share."""
    role = msg.get("role")
    if role == "assistant":
        for block in msg.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                name = str(block.get("name"))
                yield ("read" if name == "read" else "tool",
                       {"harness_tool": name, "args": cap(json.dumps(block.get("arguments")),
                                                          2000)})
        if msg.get("stopReason") in ("error", "aborted"):
            yield "error", {"detail": f"{harness}: {msg.get('stopReason')}: "
                                      f"{cap(str(msg.get('errorMessage')), 1000)}"}
    elif role == "toolResult":
        text = "".join(b.get("text", "") for b in msg.get("content") or []
                       if isinstance(b, dict))
        yield "tool_result", {"harness_tool": msg.get("toolName"),
                              "is_error": bool(msg.get("isError")), "output": cap(text, 2000)}


PI = Harness(name="pi", package=Package("npm", "@mariozechner/pi-coding-agent", "0.73.1"),
             reach="OpenAI chat completions (models.json provider)", command=command,
             native_events=native_events)
