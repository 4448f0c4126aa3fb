"""The harness programs monitorbench can run, by the name ``scaffold.harness.name`` uses."""

from __future__ import annotations

from monitorbench.generation.harnesses.claude_code import CLAUDE_CODE
from monitorbench.generation.harnesses.codex import CODEX
from monitorbench.generation.harnesses.gemini_cli import GEMINI_CLI
from monitorbench.generation.harnesses.mini_swe import MINI_SWE
from monitorbench.generation.harnesses.openclaw import OPENCLAW
from monitorbench.generation.harnesses.opencode import OPENCODE
from monitorbench.generation.harnesses.pi import PI
from monitorbench.generation.harnesses.spec import Harness

HARNESSES: dict[str, Harness] = {h.name: h for h in (PI, MINI_SWE, OPENCODE, CODEX, CLAUDE_CODE,
                                                     GEMINI_CLI, OPENCLAW)}
