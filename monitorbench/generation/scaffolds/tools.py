"""The agent's tools: read a public file, run_public through a probe, self-test the draft.

Both executions happen inside the sandbox (never in this process): ``run_public`` writes a tiny
probe verifier whose ``verify`` calls ``env.run_public`` with the model's arguments and prints
the JSON result, which comes back in :attr:`Verdict.stdout`; ``self_test`` opens a session on the
current draft and judges the model's candidate.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from pathlib import Path
from typing import Any, Mapping

from monitorbench.generation.scaffolds.context import RunContext
from monitorbench.generation.traces import cap
from monitorbench.hashing import canonical_json, sha256_text
from monitorbench.sandbox.base import Verdict

READ_CAP = 12000

PROBE_MAIN = '''\
"""run_public probe written by the generation scaffold: runs one request, prints the result."""
import json


def verify(candidate, env):
    args = candidate.get("args")
    if isinstance(args, dict):
        result = env.run_public(**args)
    elif isinstance(args, list):
        result = env.run_public(*args)
    else:
        result = env.run_public(args)
    print(json.dumps(result, default=str, ensure_ascii=False))
    return "PASS"
'''


def read_public(ctx: RunContext, rel: str) -> str:
    """Contents of a file under the public dir; paths that leave it are refused."""
    root = ctx.public_dir.resolve()
    target = (root / rel.strip()).resolve()
    if not target.is_relative_to(root):
        return f"Error: {rel!r} is outside the public task directory"
    if target.is_dir():
        return "\n".join(sorted(str(p.relative_to(root)) for p in target.rglob("*") if p.is_file()))
    if not target.is_file():
        return f"Error: no public file {rel!r}"
    return cap(target.read_text(encoding="utf-8", errors="replace"), READ_CAP)


def _judge(ctx: RunContext, verifier_dir: Path, candidate: Mapping[str, Any],
           executions_allowed: int) -> Verdict:
    """Judge in the sandbox. The in-sandbox runtime's per-judgment ``budget`` is set to what
    the generation budget has left, so a self-test cannot overdraw the shared budget."""
    if ctx.sandbox is None or ctx.spec_for is None:
        return Verdict(None, reason="sandbox_error", detail="no sandbox configured")
    spec = ctx.spec_for(ctx.task)
    if spec.runtime != "none":
        spec = dataclasses.replace(spec, runtime_config={**dict(spec.runtime_config),
                                                         "budget": max(0, executions_allowed)})
    try:
        with ctx.sandbox.session(verifier_dir, ctx.public_dir, spec) as s:
            return s.judge(candidate)
    except Exception as e:  # a failing sandbox is reported to the model and the trace, not fatal
        return Verdict(None, reason="sandbox_error", detail=f"{type(e).__name__}: {e}"[:500])


def describe(v: Verdict) -> str:
    """A verdict as the model sees it."""
    head = f"decision {v.decision}" if v.decision else f"no decision ({v.reason})"
    parts = [head]
    if v.detail:
        parts.append(f"detail: {v.detail}")
    if v.stdout:
        parts.append(f"stdout:\n{cap(v.stdout)}")
    return "\n".join(parts)


def run_public(ctx: RunContext, body: str) -> str:
    """Budgeted run_public. Over budget: blocked, counted, answered with BudgetExceeded."""
    budget = ctx.scaffold.run_public_budget
    if ctx.counters["executions_used"] >= budget:
        ctx.counters["executions_blocked"] += 1
        ctx.log("run_public", status="blocked", args=cap(body, 1000))
        return f"BudgetExceeded: run_public (budget {budget} executions, all used)"
    try:
        args = json.loads(body) if body.strip() else {}
    except json.JSONDecodeError as e:
        ctx.log("run_public", status="invalid", args=cap(body, 1000))
        return f"Error: run_public arguments are not JSON ({e.msg}); nothing was executed"
    ctx.counters["executions_used"] += 1
    with tempfile.TemporaryDirectory(dir=ctx.out_dir, prefix=".probe.") as probe:
        (Path(probe) / "main.py").write_text(PROBE_MAIN, encoding="utf-8")
        verdict = _judge(ctx, Path(probe), {"args": args}, 1)
    if verdict.decision == "PASS":
        out = cap(verdict.stdout.strip())
    else:
        out = f"run_public failed: {describe(verdict)}"
    ctx.log("run_public", status="ok" if verdict.decision == "PASS" else verdict.reason,
            args=args, output=out, seconds=round(verdict.seconds, 4))
    return out


def self_test(ctx: RunContext, expected: str, body: str) -> tuple[str, Verdict | None]:
    """Run the current draft on the model's candidate; returns (observation, verdict)."""
    expected = expected.strip().upper()
    if expected not in ("PASS", "FAIL"):
        return "Error: write the expected decision after self_test: ```self_test PASS", None
    if ctx.draft is None:
        return "Error: no verifier yet; use write_verifier first", None
    if ctx.counters["self_tests"] >= ctx.scaffold.self_test_limit:
        ctx.counters["self_tests_blocked"] += 1
        ctx.log("self_test", status="blocked", expected=expected)
        return f"BudgetExceeded: self_test (limit {ctx.scaffold.self_test_limit})", None
    try:
        candidate = json.loads(body)
    except json.JSONDecodeError as e:
        return f"Error: the candidate is not JSON ({e.msg})", None
    if not isinstance(candidate, dict):
        return "Error: the candidate must be a JSON object", None
    ctx.counters["self_tests"] += 1
    remaining = ctx.scaffold.run_public_budget - int(ctx.counters["executions_used"])
    verdict = _judge(ctx, ctx.verifier_dir, candidate, remaining)
    ctx.counters["executions_used"] += verdict.executions
    ctx.log("self_test", status="ran", expected=expected, candidate=candidate,
            candidate_hash=sha256_text(canonical_json(candidate))[:16],
            decision=verdict.decision, reason=verdict.reason, detail=verdict.detail,
            stdout=cap(verdict.stdout), matched=verdict.decision == expected,
            executions=verdict.executions, seconds=round(verdict.seconds, 4))
    verdict_text = describe(verdict)
    return f"self_test: expected {expected}, got {verdict_text}", verdict
