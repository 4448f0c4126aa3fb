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


def _one_task(ttype: str, accepts: bool, rejects: bool) -> list[dict[str, Any]]:
    """One task of ``ttype`` with two positives and two negatives (one an attack), judged by a
    verifier that accepts (or not) every positive and rejects (or not) every negative."""
    def rec(case: str, label: str, group: str, good: bool) -> dict[str, Any]:
        outcome = ("P" if good else "F") if label == "PASS" else ("F" if good else "P")
        return {"task_id": f"{ttype}-0", "task_type": ttype, "case_id": case, "group": group,
                "category": "omission" if group == "attack" else "c", "label": label,
                "outcome": outcome, "reason": "", "round": 1, "suite_hash": SUITE}
    return [rec("p0", "PASS", "gold", accepts), rec("p1", "PASS", "valid_variant", accepts),
            rec("n0", "FAIL", "ordinary_error", rejects), rec("a0", "FAIL", "attack", rejects)]


def test_one_task_per_type_gives_an_interval_with_width_and_no_per_type_interval() -> None:
    """README's model-run line: one task per type, BA_norm 0, -100, -100, which used to print
    ``-66.7 [-66.7, -66.7]``: a type of one task added no variance to the stratified draw."""
    from monitorbench.tracking.table_text import rate_ci

    records = (_one_task("tool_call", True, False) + _one_task("state", False, False)
               + _one_task("code", False, False))   # BA_norm 0, -100, -100 (the 0 by accepting)
    cis = bootstrap_ci(records, n_resamples=1000, seed=0)
    ba = cis["ba_norm"]
    assert ba.point == pytest.approx(-200 / 3) and ba.n_tasks == 3 and ba.has_width
    assert ba.low == pytest.approx(-100.0) and ba.high == pytest.approx(0.0)
    for key in ("tool_call/ba_norm", "state/tpr", "code/fpr_h"):
        assert cis[key].n_tasks == 1 and not cis[key].has_width, key
        assert rate_ci(cis[key].point, cis[key].low, cis[key].high).endswith("[n/a (1 task)]")
    assert rate_ci(ba.point, ba.low, ba.high) == "-66.7 [-100.0, 0.0]"


def test_identical_tasks_keep_a_zero_width_interval() -> None:
    """Zero width is honest only where every task has the same value (a constant verifier)."""
    records = [dict(r, task_id=f"t{i}") for i in range(3)
               for r in _one_task("tool_call", True, False)]
    ci = bootstrap_ci(records, n_resamples=200, seed=0)["ba_norm"]
    assert ci.has_width and ci.low == ci.high == ci.point == 0.0


def _tasks(ttype: str, n: int, accepts: bool, rejects: bool) -> list[dict[str, Any]]:
    """``n`` tasks of ``ttype``, each judged as :func:`_one_task` judges its one."""
    return [dict(r, task_id=f"{ttype}-{i}") for i in range(n)
            for r in _one_task(ttype, accepts, rejects)]


def test_types_constant_inside_but_apart_still_get_an_interval_with_width() -> None:
    """Two accepting-and-rejecting tool-call tasks (BA_norm 100) and two accept-all code tasks
    (0): stratified, every resample keeps two of each and printed ``50.0 [50.0, 50.0]``."""
    records = _tasks("tool_call", 2, True, True) + _tasks("code", 2, True, False)
    ci = bootstrap_ci(records, n_resamples=1000, seed=0)["ba_norm"]
    assert ci.point == pytest.approx(50.0) and ci.has_width
    assert ci.low < 50.0 < ci.high
    code = bootstrap_ci(records, n_resamples=200, seed=0)["code/ba_norm"]
    assert code.low == code.high == 0.0          # both code tasks are 0: zero width is honest


def test_a_paired_difference_constant_within_types_is_not_called_significant() -> None:
    """a − b is 0 on the tool-call tasks and 100 on the code tasks: stratified, the difference
    read 50 [50, 50] and 'excludes zero'; the tasks say a could equal b."""
    a = _tasks("tool_call", 2, True, True) + _tasks("code", 2, True, True)
    b = _tasks("tool_call", 2, True, True) + _tasks("code", 2, True, False)
    diff = paired_bootstrap(a, b, n_resamples=1000, seed=0)["ba_norm"]
    assert diff.diff == pytest.approx(50.0) and diff.low < diff.high
    assert diff.low == pytest.approx(0.0) and not diff.excludes_zero


def test_a_type_with_one_task_resamples_across_types() -> None:
    types = ["tool_call"] * 5 + ["state"] * 3 + ["code"]
    w = resample_weights(types, 400, seed=4)
    assert (w.sum(axis=1) == 9).all()
    assert len(set(w[:, 8])) > 2          # the lone code task is drawn 0, 1, 2, ... times
    assert len(set(w[:, :5].sum(axis=1))) > 1   # the types no longer keep their counts


def test_paired_difference_of_a_one_task_rate_has_no_interval() -> None:
    a = _one_task("tool_call", True, True) + _one_task("state", True, False)
    b = _one_task("tool_call", False, True) + _one_task("state", True, True)
    diff = paired_bootstrap(a, b, n_resamples=300, seed=0)
    assert diff["ba_norm"].n_tasks == 2 and diff["ba_norm"].low < diff["ba_norm"].high
    assert diff["state/ba_norm"].n_tasks == 1 and np.isnan(diff["state/ba_norm"].low)
    assert not diff["state/ba_norm"].excludes_zero
