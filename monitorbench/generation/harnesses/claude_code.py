"""Claude Code (npm ``@anthropic-ai/claude-code``): the Anthropic Messages API at
``ANTHROPIC_BASE_URL``. It runs with ``--permission-mode bypassPermissions``: monitorbench's
bubblewrap sandbox is the boundary, and in print mode any other mode denies its Bash tool, so it
could neither call ``run_public.py`` nor test its own verifier. The sandbox runs it as root,
where Claude Code refuses that mode unless told it is in a deliberate sandbox (``IS_SANDBOX=1``,
its own switch for this case); ``acceptEdits`` only allowed file writes. Its transcript under
``$CLAUDE_CONFIG_DIR/projects`` is the native trajectory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from monitorbench.generation.harnesses.install import Package
from monitorbench.generation.harnesses.safe_files import files_matching
from monitorbench.generation.harnesses.sandbox import HOME
from monitorbench.generation.harnesses.spec import Event, Harness, HarnessRun, jsonl
from monitorbench.generation.traces import cap

CONFIG_DIR = "claude"


def command(run: HarnessRun) -> tuple[list[str], dict[str, str]]:
    root = run.base_url[:-3] if run.base_url.endswith("/v1") else run.base_url
    argv = [str(run.install_dir / "node_modules" / ".bin" / "claude"), "-p", run.prompt,
            "--output-format", "stream-json", "--verbose",
            "--permission-mode", "bypassPermissions", "--model", run.model,
            "--max-turns", str(int(run.scaffold.max_steps))]
    env = {"IS_SANDBOX": "1", "ANTHROPIC_BASE_URL": root, "ANTHROPIC_API_KEY": "monitorbench",
           "ANTHROPIC_MODEL": run.model, "ANTHROPIC_SMALL_FAST_MODEL": run.model,
           "CLAUDE_CONFIG_DIR": f"{HOME}/{CONFIG_DIR}", "DISABLE_AUTOUPDATER": "1",
           "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           "CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(int(run.condition.max_tokens)),
           # its own request timeout must not cut a slow local model short of the wall clock
           "API_TIMEOUT_MS": str(int(run.condition.wall_seconds * 1000))}
    return argv, env


def native_events(home: Path, output_log: Path) -> Iterable[Event]:
    """Transcript entries -> trace events: tool uses (``tool``/``read``), results, API errors;
    then the run's own verdict from its ``stream-json`` result line when it gave up for a
    reason the transcript does not name (``error_max_turns``, ``error_during_execution``...;
    an API error ends as an ``is_error`` "success" already traced from the transcript)."""
    yield from _transcript_events(home)
    if output_log.is_file():
        for line in jsonl(output_log, output_log.parent):
            kind = line.get("subtype")
            if line.get("type") == "result" and line.get("is_error") and kind != "success":
                why = "; ".join(str(e) for e in line.get("errors") or []) \
                    or str(line.get("result"))
                yield "error", {"detail": f"claude code: {kind}: {cap(why, 1000)}"}


def _transcript_events(home: Path) -> Iterable[Event]:
    """Tool uses, tool results and API error messages of the session transcripts."""
    for transcript in files_matching(home / CONFIG_DIR / "projects", ".jsonl"):
        for entry in jsonl(transcript, home):
            msg = entry.get("message") if isinstance(entry.get("message"), dict) else {}
            for block in msg.get("content") or [] if isinstance(msg.get("content"), list) else []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use":
                    tool = str(block.get("name"))
                    yield ("read" if tool == "Read" else "tool",
                           {"harness_tool": tool, "args": cap(json.dumps(block.get("input")),
                                                              2000)})
                elif block.get("type") == "tool_result":
                    yield "tool_result", {"is_error": bool(block.get("is_error")),
                                          "output": cap(str(block.get("content")), 2000)}
            if entry.get("isApiErrorMessage"):
                text = "".join(b.get("text", "") for b in msg.get("content") or []
                               if isinstance(b, dict)) if isinstance(msg.get("content"), list) \
                    else ""
                yield "error", {"detail": f"claude code: {cap(text or json.dumps(msg), 1000)}"}


CLAUDE_CODE = Harness(name="claude_code",
                      package=Package("npm", "@anthropic-ai/claude-code", "2.1.332"),
                      reach="Anthropic Messages API (ANTHROPIC_BASE_URL)", command=command,
                      native_events=native_events)
