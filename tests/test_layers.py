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

import pytest

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


@pytest.mark.parametrize("module,target", [
    ("errors", "launch.run"),                      # the bottom layer imports the top stage
    ("audit.defects", "sources.agentdojo.source"),  # the audit imports a source plugin
    ("sources.bfcl.mutants", "attack.search"),      # a source imports the attacker above it
    ("suites.source_registry", "sources.bfcl"),     # the registry names a source statically
])
def test_an_upward_import_breaks_the_contract(tmp_path: Path, module: str, target: str) -> None:
    """The contract is live: a copy of the package in which ``module`` imports ``target`` from
    a layer above it fails, and the report names that import."""
    shutil.copytree(ROOT / "monitorbench", tmp_path / "monitorbench",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    path = tmp_path / "monitorbench" / f"{module.replace('.', '/')}.py"
    path.write_text(path.read_text() + f"\nimport monitorbench.{target}  # upward\n")
    status, report = _lint(tmp_path, tmp_path)
    assert status == 1, report
    layer, above = module.split(".")[0], target.split(".")[0]
    assert f"monitorbench.{layer} is not allowed to import monitorbench.{above}" in report
    assert f"monitorbench.{module} -> monitorbench.{target}" in report
