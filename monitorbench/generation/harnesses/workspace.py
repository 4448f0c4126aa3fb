"""The harness's workspace: what goes in (task copy, contract, prompt, run_public) and what
comes out (``main.py`` and the helper files the harness wrote beside it)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from monitorbench.generation.harnesses import safe_files
from monitorbench.generation.harnesses.bridge import RUN_PUBLIC_SCRIPT
from monitorbench.generation.harnesses.sandbox import WORKSPACE
from monitorbench.generation.prompts import oneshot_messages, templates

TASK_DIR = "task"
CONTRACT_FILE = "CONTRACT.md"
RUN_PUBLIC_FILE = "run_public.py"
PROVIDED = (TASK_DIR, CONTRACT_FILE, RUN_PUBLIC_FILE)
HELPER_SUFFIXES = (".py", ".json", ".txt")
HELPER_MAX_BYTES = 1_000_000

WORKSPACE_NOTE = """\
You work in the directory {workspace}. The public task files are under {task_dir}/ (the same
files the verifier can read under /task when it runs); {contract} repeats the verifier contract.
Write the verifier as the file main.py in {workspace} (helper modules you write beside it are
delivered with it). `python3 {run_public} '<JSON keyword arguments>'` runs env.run_public in the
task environment ({budget} executions in total). Finish once main.py is complete."""


def harness_prompt(version: str, task_id: str, task_type: str, public_dir: Path,
                   run_public_budget: int) -> str:
    """The paper's task prompt (contract, instruction, environment: the oneshot user message)
    plus where things are in the workspace. Part of the generator identity via prompt hashes."""
    t = templates(version)
    task_message = oneshot_messages(version, task_id, task_type, public_dir)[1]["content"]
    note = WORKSPACE_NOTE.format(workspace=WORKSPACE, task_dir=TASK_DIR, contract=CONTRACT_FILE,
                                 run_public=RUN_PUBLIC_FILE, budget=run_public_budget)
    return f"{t['contract']}\n\n{task_message}\n\n{note}"


def prepare_workspace(workspace: Path, public_dir: Path, version: str) -> None:
    """Copy the public directory and write the contract and the run_public command."""
    workspace.mkdir(parents=True, exist_ok=True)
    shutil.copytree(public_dir, workspace / TASK_DIR)
    (workspace / CONTRACT_FILE).write_text(templates(version)["contract"] + "\n")
    (workspace / RUN_PUBLIC_FILE).write_text(RUN_PUBLIC_SCRIPT)


def collect_verifier(workspace: Path, verifier_dir: Path) -> str:
    """Copy ``main.py`` and the helper files the harness wrote into ``verifier_dir``; '' when
    delivered, else why nothing is (no ``main.py``, or one that is a link, not a regular file, or
    over :data:`HELPER_MAX_BYTES`). Read as hostile (``safe_files``): links are never followed,
    only regular files are opened, the walk is bounded in depth and entries."""
    if not os.path.lexists(workspace / "main.py"):
        return "no main.py in the workspace"
    try:
        main = safe_files.read_bytes(workspace / "main.py", workspace, HELPER_MAX_BYTES)
    except safe_files.Refused as e:
        return f"main.py refused: {e}"
    verifier_dir.mkdir(parents=True, exist_ok=True)
    (verifier_dir / "main.py").write_bytes(main)
    for e in safe_files.walk(workspace, max_depth=16):
        parts = e.rel.parts
        if parts == ("main.py",) or parts[0] in PROVIDED or e.path.suffix not in HELPER_SUFFIXES \
                or any(p.startswith(".") or p == "__pycache__" for p in parts) \
                or not stat.S_ISREG(e.mode) or e.size > HELPER_MAX_BYTES:
            continue
        try:
            data = safe_files.read_bytes(e.path, workspace, HELPER_MAX_BYTES)
        except safe_files.Refused:
            continue
        (verifier_dir / e.rel).parent.mkdir(parents=True, exist_ok=True)
        (verifier_dir / e.rel).write_bytes(data)
    return ""
