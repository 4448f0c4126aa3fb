"""mini-swe-agent (PyPI ``mini-swe-agent``), LiteLLM against the endpoint as ``openai/<model>``.

A model without native tool calls (``scaffold.harness.tool_calls=false``, e.g. SmolLM2 on
llama.cpp) runs the text-based model class with the text-based config: one
```` ```mswea_bash_command ```` block per reply. A model too small to keep that format
(SmolLM2-135M) gets it enforced by the endpoint with ``scaffold.harness.grammar=mini_swe_text``
(llama.cpp only; ``grammars/mini_swe_text.gbnf``). The trajectory JSON (``-o``) is the native
artifact."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Iterable

from monitorbench.generation.harnesses import safe_files
from monitorbench.generation.harnesses.install import Package
from monitorbench.generation.harnesses.sandbox import HOME
from monitorbench.generation.harnesses.spec import Event, Harness, HarnessRun
from monitorbench.generation.traces import cap

TRAJECTORY = "trajectory.json"
_ACTION = re.compile(r"```mswea_bash_command\s*\n(.*?)```", re.S)
# Its exit statuses for stopping at its own limits (agent.step_limit = scaffold.max_steps; a
# wall-time limit when configured) -> the trace's limit names (as the agent scaffold's).
_LIMITS = {"LimitsExceeded": "step_limit", "TimeExceeded": "wall_limit"}


def command(run: HarnessRun) -> tuple[list[str], dict[str, str]]:
    text_based = not run.scaffold.harness.tool_calls
    config = "mini_textbased.yaml" if text_based else "mini.yaml"
    argv = [str(run.install_dir / "bin" / "mini"), "-m", f"openai/{run.model}",
            "--model-class", "litellm_textbased" if text_based else "litellm",
            "-c", config,
            "-c", f"model.model_kwargs.api_base={run.base_url}",
            "-c", f"model.model_kwargs.max_tokens={int(run.condition.max_tokens)}",
            "-c", f"model.model_kwargs.temperature={run.condition.temperature}",
            "-c", f"agent.step_limit={int(run.scaffold.max_steps)}",
            "--yolo", "--exit-immediately", "--cost-limit", "0",
            "-o", f"{HOME}/{TRAJECTORY}", "-t", run.prompt]
    return argv, {"OPENAI_API_KEY": "monitorbench", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                  "MSWEA_COST_TRACKING": "ignore_errors", "MSWEA_CONFIGURED": "true"}


def native_events(home: Path, output_log: Path) -> Iterable[Event]:
    """Trajectory messages -> trace events: each bash action (``tool``), each observation
    (``tool_result``), each reply it rejected (``format_error``), the exit status it
    recorded (``native_exit``) and, when that is one of its own limits, a ``limit``."""
    path = home / TRAJECTORY
    if not os.path.lexists(path):
        return
    try:
        traj = json.loads(safe_files.read_text(path, home))
    except json.JSONDecodeError as e:
        yield "error", {"detail": f"mini-swe-agent trajectory unreadable: {e}"}
        return
    for msg in traj.get("messages") or []:
        content = msg.get("content")
        text = content if isinstance(content, str) else json.dumps(content, default=str)
        if msg.get("role") == "assistant":
            for action in _ACTION.findall(text):
                yield "tool", {"harness_tool": "bash", "args": cap(action, 2000)}
        elif msg.get("role") in ("user", "tool") and "<returncode>" in text:
            yield "tool_result", {"harness_tool": "bash", "output": cap(text, 2000)}
        elif msg.get("role") == "user" and ("Format error" in text
                                           or "output token limit" in text):
            yield "format_error", {"detail": cap(text, 500)}
    info = traj.get("info") or {}
    status = info.get("exit_status")
    yield "native_exit", {"exit_status": status,
                           "submission": cap(str(info.get("submission", "")), 1000)}
    if status in _LIMITS:
        yield "limit", {"limit": _LIMITS[status],
                        "detail": f"mini-swe-agent stopped itself: {status}"}


MINI_SWE = Harness(name="mini_swe", package=Package("pip", "mini-swe-agent", "2.4.6"),
                   reach="OpenAI chat completions through LiteLLM (api_base)", command=command,
                   native_events=native_events)
