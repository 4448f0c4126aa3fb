"""opencode (npm ``opencode-ai``): an ``@ai-sdk/openai-compatible`` provider (bundled in its
binary) in a config file named by ``OPENCODE_CONFIG``; ``opencode run --format json`` prints its
events as JSON lines, which are the native trajectory (kept in the captured output)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from monitorbench.generation.harnesses.install import Package
from monitorbench.generation.harnesses.sandbox import HOME
from monitorbench.generation.harnesses.spec import Event, Harness, HarnessRun, jsonl, write_json
from monitorbench.generation.traces import cap

PROVIDER = "monitorbench"
CONFIG = "opencode.json"


def command(run: HarnessRun) -> tuple[list[str], dict[str, str]]:
    window = run.scaffold.harness.context_window
    write_json(run.home / CONFIG, {
        "$schema": "https://opencode.ai/config.json",
        "provider": {PROVIDER: {
            "npm": "@ai-sdk/openai-compatible", "name": PROVIDER,
            "options": {"baseURL": run.base_url, "apiKey": "monitorbench"},
            "models": {run.model: {"name": run.model, "tool_call": run.scaffold.harness.tool_calls,
                                   "limit": {"context": window,
                                             "output": min(int(run.condition.max_tokens),
                                                           window // 2)}}}}},
        "model": f"{PROVIDER}/{run.model}",
        "permission": {"edit": "allow", "bash": "allow", "webfetch": "deny"},
        "autoupdate": False, "share": "disabled"})
    argv = [str(run.install_dir / "node_modules" / ".bin" / "opencode"), "run", "--format", "json",
            "--auto", "-m", f"{PROVIDER}/{run.model}", run.prompt]
    env = {"OPENCODE_CONFIG": f"{HOME}/{CONFIG}", "OPENCODE_DISABLE_MODELS_FETCH": "1",
           "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
           "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1",
           "OPENCODE_DISABLE_CLAUDE_CODE": "1", "OPENCODE_DISABLE_PROJECT_CONFIG": "1"}
    return argv, env


def native_events(home: Path, output_log: Path) -> Iterable[Event]:
    """JSON events -> trace events: tool uses (``tool``/``read``) and errors (``error``)."""
    if not output_log.is_file():
        return
    for ev in jsonl(output_log, output_log.parent):
        part = ev.get("part") if isinstance(ev.get("part"), dict) else {}
        if ev.get("type") == "tool_use":
            tool = str(part.get("tool"))
            state = part.get("state") if isinstance(part.get("state"), dict) else {}
            yield ("read" if tool == "read" else "tool",
                   {"harness_tool": tool, "args": cap(json.dumps(state.get("input")), 2000),
                    "output": cap(str(state.get("output", "")), 2000)})
        elif ev.get("type") == "error":
            yield "error", {"detail": f"opencode: {cap(json.dumps(ev.get('error')), 1000)}"}


OPENCODE = Harness(name="opencode", package=Package("npm", "opencode-ai", "1.18.33"),
                   reach="OpenAI chat completions (@ai-sdk/openai-compatible provider)",
                   command=command, native_events=native_events)
