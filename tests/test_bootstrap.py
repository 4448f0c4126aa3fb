"""Task-level bootstrap: intervals bracket the estimate, shrink with data, pair correctly."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from monitorbench.errors import InputError
from monitorbench.metrics import bootstrap_ci, build_table, paired_bootstrap, summarize
from monitorbench.metrics.bootstrap import resample_weights
from monitorbench.metrics.rates import headline

SUITE = "b" * 64
TYPES = ("tool_call", "state", "code")


def pool(n_per_type: int, seed: int, *, accept_shift: float = 0.0) -> list[dict[str, Any]]:
    """A synthetic configuration: per task a true acceptance and rejection probability (varying
    strongly across tasks, as real verifiers do: many accept nearly all or nearly none of a
    task's positives), task sizes 3-12 cases per side, two attack cases.
    The task structure depends on ``seed`` only through the outcome draws: sizes and
    probabilities come from a fixed generator so that two seeds judge the same suite."""
    layout = np.random.default_rng(12345)
    draws = np.random.default_rng(seed)
    out: list[dict[str, Any]] = []
    for ttype in TYPES:
        for i in range(n_per_type):
            tid = f"{ttype}-{i:03d}"
            n_pos, n_neg = layout.integers(3, 13, size=2)
            p_acc = float(np.clip(layout.beta(0.5, 0.5) + accept_shift, 0.0, 1.0))
            p_rej = float(layout.beta(5, 1.5))

            def add(case: str, label: str, group: str, p_good: float, cat: str = "c") -> None:
                good = draws.random() < p_good
                outcome = ("P" if good else "F") if label == "PASS" else ("F" if good else "P")
                out.append({"task_id": tid, "task_type": ttype, "case_id": case, "group": group,
                            "category": cat, "label": label, "outcome": outcome, "reason": "",
                            "round": 1, "suite_hash": SUITE})

            for k in range(n_pos):
                add(f"p{k}", "PASS", "gold" if k == 0 else "valid_variant", p_acc)
            for k in range(n_neg):
                add(f"n{k}", "FAIL", "ordinary_error", p_rej)
            add("a0", "FAIL", "attack", p_rej, "omission")
            add("a1", "FAIL", "attack", p_rej, "fake_success" if i % 3 == 0 else "omission")
    return out


def test_intervals_contain_point_estimate_for_every_headline_rate() -> None:
    records = pool(20, seed=1)
    cis = bootstrap_ci(records, n_resamples=500, seed=3)
    point = summarize(records)
    expected = {"tpr", "tnr", "ba_norm", "fpr_h", "fpr_h/omission", "fpr_h/fake_success"} | {
        f"{t}/{m}" for t in TYPES for m in ("tpr", "tnr", "ba_norm", "fpr_h")}
    assert set(cis) == expected
    for key, ci in cis.items():
        assert ci.point == pytest.approx(point[key])
        assert ci.low <= ci.point <= ci.high, key
        assert ci.low < ci.high, key
        assert ci.n_defined == ci.n_resamples == 500


def test_intervals_narrow_with_more_tasks() -> None:
    small = bootstrap_ci(pool(8, seed=1), n_resamples=1000, seed=0)
    large = bootstrap_ci(pool(80, seed=1), n_resamples=1000, seed=0)
    for key in ("tpr", "tnr", "ba_norm"):
        width_small = small[key].high - small[key].low
        width_large = large[key].high - large[key].low
        assert width_large < 0.6 * width_small, key


def test_vectorised_resamples_equal_recomputing_each_resample() -> None:
    """Each weight row must give exactly the metrics of the resampled pool built by hand."""
    records = pool(4, seed=2)
    table = build_table(records)
    weights = resample_weights(table.task_types, 25, seed=9)
    boot = headline(table, weights)
    by_task: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_task.setdefault(r["task_id"], []).append(r)
    for row in range(weights.shape[0]):
        resampled = [dict(r, task_id=f"{tid}#{copy}")
                     for t, tid in enumerate(table.task_ids)
                     for copy in range(int(weights[row, t])) for r in by_task[tid]]
        s = summarize(resampled)
        for key in ("tpr", "tnr", "ba_norm", "state/tpr", "code/tnr"):
            assert boot[key][row] == pytest.approx(s[key]), (row, key)
        for key in ("fpr_h", "fpr_h/fake_success"):
            if key in s:
                assert boot[key][row] == pytest.approx(s[key]), (row, key)
            else:
                assert np.isnan(boot[key][row])


def test_resampling_is_stratified_and_seeded() -> None:
    types = ["tool_call"] * 5 + ["state"] * 3 + ["code"] * 2
    w = resample_weights(types, 200, seed=4)
    assert (w[:, :5].sum(axis=1) == 5).all()
    assert (w[:, 5:8].sum(axis=1) == 3).all()
    assert (w[:, 8:].sum(axis=1) == 2).all()
    assert np.array_equal(w, resample_weights(types, 200, seed=4))
    assert not np.array_equal(w, resample_weights(types, 200, seed=5))


def test_paired_bootstrap_detects_a_real_difference() -> None:
    better = pool(30, seed=1)
    worse = pool(30, seed=2, accept_shift=-0.25)
    diff = paired_bootstrap(better, worse, n_resamples=1000, seed=0)
    assert diff["tpr"].excludes_zero and diff["tpr"].low > 0
    assert diff["ba_norm"].excludes_zero
    point = summarize(better)["tpr"] - summarize(worse)["tpr"]
    assert diff["tpr"].diff == pytest.approx(point)
    assert diff["tpr"].low <= diff["tpr"].diff <= diff["tpr"].high


def test_paired_bootstrap_rarely_flags_a_null_difference() -> None:
    """Same per-task probabilities, independent draws: a 95% interval should exclude 0 in about
    5% of replicate pairs (percentile intervals run a little narrow with 30 tasks a type)."""
    replicates = 40
    flagged = {"tpr": 0, "tnr": 0, "ba_norm": 0}
    for k in range(replicates):
        diff = paired_bootstrap(pool(30, seed=2 * k), pool(30, seed=2 * k + 1),
                                n_resamples=400, seed=k)
        for key in flagged:
            flagged[key] += diff[key].excludes_zero
    for key, n in flagged.items():
        assert n / replicates <= 0.15, (key, n)


def test_pairing_narrows_the_difference_interval() -> None:
    """Shared task difficulty cancels in a paired difference; an unpaired one keeps it."""
    a, b = pool(30, seed=1), pool(30, seed=2, accept_shift=-0.1)
    paired = paired_bootstrap(a, b, n_resamples=1000, seed=0)["tpr"]
    ci_a = bootstrap_ci(a, n_resamples=1000, seed=0)["tpr"]
    ci_b = bootstrap_ci(b, n_resamples=1000, seed=1)["tpr"]
    unpaired_halfwidth = np.hypot(ci_a.high - ci_a.low, ci_b.high - ci_b.low)
    assert paired.high - paired.low < 0.6 * unpaired_halfwidth


def test_paired_bootstrap_refuses_different_tasks_or_suites() -> None:
    a = pool(5, seed=1)
    with pytest.raises(InputError, match="different tasks"):
        paired_bootstrap(a, [r for r in pool(5, seed=2) if r["task_id"] != "code-004"])
    with pytest.raises(InputError) as err:
        paired_bootstrap(a, [dict(r, suite_hash="c" * 64) for r in pool(5, seed=2)])
    assert err.value.field == "suite_hash"


@pytest.mark.parametrize("kwargs,field", [({"n_resamples": 0}, "n_resamples"),
                                          ({"level": 95.0}, "level")])
def test_bad_settings_are_refused(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as err:
        bootstrap_ci(pool(2, seed=1), **kwargs)
    assert err.value.field == field
