"""The package's layers (``.importlinter``) hold: no module imports from a layer above its own.

``lint-imports`` (import-linter, pinned in the ``test`` extra) reads the contract and the real
import graph; running it here puts the contract in every ``.ci/run``, and a failure prints its
report, which names each upward import with its file and line.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
        "sys.exit(lint_imports_command())", "--no-cache"]


def _lint(cwd: Path, pythonpath: Path) -> tuple[int, str]:
    """(exit status, report) of ``lint-imports`` on the package found first on ``pythonpath``,
    with ``cwd``'s contract; the report without its colour codes."""
    env = {**os.environ, "PYTHONPATH": str(pythonpath), "NO_COLOR": "1", "TERM": "dumb"}
    done = subprocess.run(LINT, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    return done.returncode, re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    status, report = _lint(ROOT, ROOT)
    assert status == 0, report
    assert "1 kept, 0 broken" in report, report


def test_an_upward_import_breaks_the_contract(tmp_path: Path) -> None:
    """The contract is live: a copy of the package whose bottom layer (errors) imports the top
    stage (launch) fails, and the report names that import."""
    shutil.copytree(ROOT / "monitorbench", tmp_path / "monitorbench",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    errors = tmp_path / "monitorbench" / "errors.py"
    errors.write_text(errors.read_text() + "\nimport monitorbench.launch.run  # upward\n")
    status, report = _lint(tmp_path, tmp_path)
    assert status == 1, report
    assert "monitorbench.errors is not allowed to import monitorbench.launch" in report
    assert "monitorbench.errors -> monitorbench.launch.run" in report
