"""Codex CLI (npm ``@openai/codex``): a ``[model_providers]`` entry in ``$CODEX_HOME/config.toml``
with ``wire_api = "responses"`` (it refuses the chat wire API). ``codex exec`` runs without a
terminal; its own sandbox is bypassed because monitorbench's bubblewrap sandbox holds it. Its
rollout files under ``$CODEX_HOME/sessions`` are the native trajectory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from monitorbench.generation.harnesses.install import Package
from monitorbench.generation.harnesses.safe_files import files_matching
from monitorbench.generation.harnesses.sandbox import HOME, WORKSPACE
from monitorbench.generation.harnesses.spec import Event, Harness, HarnessRun, jsonl
from monitorbench.generation.traces import cap

PROVIDER = "monitorbench"
CODEX_DIR = "codex"


def command(run: HarnessRun) -> tuple[list[str], dict[str, str]]:
    window = run.scaffold.harness.context_window
    home = run.home / CODEX_DIR
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f"model = {json.dumps(run.model)}\nmodel_provider = \"{PROVIDER}\"\n"
        f"model_context_window = {window}\n"  # reply length: capped at the proxy
        f"check_for_update_on_startup = false\n\n[model_providers.{PROVIDER}]\n"
        f"name = \"{PROVIDER}\"\nbase_url = {json.dumps(run.base_url)}\n"
        f"wire_api = \"responses\"\nenv_key = \"MONITORBENCH_KEY\"\n")
    argv = [str(run.install_dir / "node_modules" / ".bin" / "codex"), "exec", "--json",
            "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
            "-C", WORKSPACE, run.prompt]
    return argv, {"CODEX_HOME": f"{HOME}/{CODEX_DIR}", "MONITORBENCH_KEY": "monitorbench"}


def native_events(home: Path, output_log: Path) -> Iterable[Event]:
    """Rollout items -> trace events: function/tool calls (``tool``), their outputs, and a
    turn that ended in an error (``error``: the endpoint refused a request, e.g. monitorbench's
    budget, or the stream broke), after which codex exits 1 whatever it had written."""
    for rollout in files_matching(home / CODEX_DIR / "sessions", ".jsonl"):
        for item in jsonl(rollout, home):
            payload = item.get("payload") if isinstance(item.get("payload"), dict) else {}
            kind = payload.get("type")
            if kind in ("function_call", "custom_tool_call", "local_shell_call"):
                yield "tool", {"harness_tool": str(payload.get("name", kind)),
                               "args": cap(str(payload.get("arguments")
                                               or payload.get("input")
                                               or payload.get("action")), 2000)}
            elif kind in ("function_call_output", "custom_tool_call_output"):
                yield "tool_result", {"output": cap(str(payload.get("output")), 2000)}
            elif kind == "task_complete" and isinstance(payload.get("error"), dict):
                yield "error", {"detail": "codex: turn failed: "
                                          f"{cap(str(payload['error'].get('message')), 1000)}"}


CODEX = Harness(name="codex", package=Package("npm", "@openai/codex", "0.171.0"),
                reach="OpenAI Responses API (model_providers entry, wire_api=responses)",
                command=command, native_events=native_events)
