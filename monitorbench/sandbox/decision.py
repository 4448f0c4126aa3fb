"""Turn what a verifier returned into a :class:`Verdict`, on the framework side.

The worker passes ``verify``'s return value through untouched; the rules for what counts as a
decision live here, in one place, so every backend scores the same value the same way. The
confidence is kept for calibration analyses but never changes the label.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from monitorbench.sandbox.base import MALFORMED, SANDBOX_ERROR, U_REASONS, Verdict

DECISIONS = ("PASS", "FAIL")
EXPECTED = "expected 'PASS', 'FAIL' or {'decision': 'PASS'|'FAIL', 'confidence': <number>}"
DETAIL_CAP = 500
STDOUT_CAP = 2000  # characters of printed output kept in Verdict.stdout


def cap(text: str, n: int = DETAIL_CAP) -> str:
    """Details end up in judgment files and tables: keep them short."""
    return text if len(text) <= n else text[: n - 3] + "..."


def _confidence(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def parse_decision(value: Any, *, seconds: float = 0.0, executions: int = 0,
                   stdout: str = "") -> Verdict:
    """Exactly "PASS"/"FAIL", or a dict whose ``decision`` is one of them; anything else is U
    with reason ``malformed`` and a detail saying what came back and what was expected."""
    if isinstance(value, str) and value in DECISIONS:
        return Verdict(decision=value, seconds=seconds, executions=executions, stdout=stdout)
    if isinstance(value, Mapping) and value.get("decision") in DECISIONS:
        return Verdict(decision=value["decision"], confidence=_confidence(value.get("confidence")),
                       seconds=seconds, executions=executions, stdout=stdout)
    return malformed(cap(repr(value), 200), seconds=seconds, executions=executions, stdout=stdout)


def malformed(returned: str, *, seconds: float = 0.0, executions: int = 0,
              stdout: str = "") -> Verdict:
    """U verdict for a return value that is not a decision; ``returned`` is its (capped) repr."""
    return Verdict(decision=None, reason=MALFORMED,
                   detail=cap(f"returned {returned}; {EXPECTED}"),
                   seconds=seconds, executions=executions, stdout=stdout)


def verdict_from_answer(answer: Any) -> Verdict:
    """Map one worker answer line (already JSON-decoded) to a Verdict.

    A worker answer that does not follow the protocol is the sandbox's fault, not the verifier's,
    so it becomes ``sandbox_error``.
    """
    if not isinstance(answer, dict):
        return Verdict(decision=None, reason=SANDBOX_ERROR,
                       detail=cap(f"worker answered {answer!r}"))
    seconds = answer.get("seconds", 0.0)
    seconds = float(seconds) if isinstance(seconds, (int, float)) else 0.0
    executions = answer.get("executions", 0)
    executions = executions if isinstance(executions, int) and executions >= 0 else 0
    stdout = answer.get("stdout", "")
    stdout = stdout[-STDOUT_CAP:] if isinstance(stdout, str) else ""
    status = answer.get("status")
    if status == "returned":
        return parse_decision(answer.get("value"), seconds=seconds, executions=executions,
                              stdout=stdout)
    if status == "unserializable":
        return malformed(cap(str(answer.get("repr", "?")), 200) + " (not JSON-serializable)",
                         seconds=seconds, executions=executions, stdout=stdout)
    if status == "u" and answer.get("reason") in U_REASONS:
        return Verdict(decision=None, reason=answer["reason"],
                       detail=cap(str(answer.get("detail", ""))),
                       seconds=seconds, executions=executions, stdout=stdout)
    return Verdict(decision=None, reason=SANDBOX_ERROR, detail=cap(f"worker answered {answer!r}"))
