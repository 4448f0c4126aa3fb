"""Small truths with one definition (issue 21 item 5): each used to be written out two or three
times in different layers, free to drift apart. Each test fails where a copy comes back."""

from __future__ import annotations

import json

from monitorbench.metrics.headline import HEADLINE


def test_every_view_leads_with_the_one_headline() -> None:
    """The report's tables, the sweep's leaderboard and the order MLflow lists a run's metrics
    in lead with the same four metrics, so a change is one edit."""
    from monitorbench.report import tables
    from monitorbench.tracking import mlflow_logger, sweep_report

    assert tables.HEADLINE is HEADLINE and sweep_report.HEADLINE is HEADLINE
    order = mlflow_logger.READING_ORDER
    # each headline metric, then its interval's bounds (ba_norm, ba_norm_ci_low, _ci_high, tpr...)
    assert order[:3 * len(HEADLINE)] == tuple(k + s for k in HEADLINE
                                              for s in ("", "_ci_low", "_ci_high"))
    logged = sorted(["n_tasks", "tpr", "attack/fpr_h_static", "fpr_h", "ba_norm", "tnr"],
                    key=mlflow_logger.reading_order)
    assert tuple(logged[:4]) == HEADLINE


def test_the_sandbox_limits_are_the_config_limits() -> None:
    """A field added to the config's per-case limits reaches the sandbox and is decided once in
    ``IDENTITY`` (the sandbox had its own copy of the seven fields)."""
    from monitorbench.compose import compose_config
    from monitorbench.config import LimitsConfig
    from monitorbench.pipeline.prepare import limits_for, typed_config
    from monitorbench.sandbox.base import Limits, SandboxSpec

    assert Limits is LimitsConfig
    sandbox = typed_config(compose_config(["sandbox.limits.memory_mb=2048"])).sandbox
    assert limits_for(sandbox, "tool_call") == Limits(memory_mb=2048)
    assert SandboxSpec().limits == Limits()


def test_a_generation_status_is_one_enum_from_generator_to_judgment(tmp_path) -> None:
    """The generators' status and the judging layer's were a string and an enum over it; now one
    enum, which a result read back from the generation cache is too."""
    from monitorbench.generation.base import NO_SUBMISSION, GenerationResult, GenStatus
    from monitorbench.judging import records

    assert not hasattr(records, "GenStatus")
    assert NO_SUBMISSION is GenStatus.no_submission
    stored = json.dumps(GenerationResult("bfcl.x", NO_SUBMISSION, detail="step_limit").to_json())
    assert json.loads(stored)["status"] == "no_submission"        # the same string on disk
    assert GenerationResult.from_json(json.loads(stored)).status is GenStatus.no_submission
