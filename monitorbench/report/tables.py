"""The report's tables, built from an :class:`Analysis`; each one mirrors a table of the paper.

Cells are typed so one table renders both as markdown (``62.1 [58.0, 66.3]``) and as CSV (point,
low and high in separate columns): :class:`Est` is a rate with its 95% task-bootstrap CI,
:class:`Diff` a between-configuration difference with its paired CI and whether that CI
excludes zero (``*``). Rates are percentages, as in the paper.

- :func:`leaderboard` — Tables 2 and 12: configurations ranked by BA_norm; the last column is
  the paired difference to the next rank, marked ``*`` when significant.
- :func:`type_rankings` — Appendix F: the same ranking within each task type.
- :func:`delta_table` — Tables 3 and 13: each value of an axis (scaffold, effort, access)
  against the axis' reference value, other axes held equal; ``by_type`` gives Table 15.
- :func:`concentration_table` — all-reject verifiers and Q_m (case- and task-weighted).
- :func:`diagnostics_table` — pooled, test-case-weighted diagnostics.
- :func:`same_cases_table` — Table 24: per task type, the task on which configurations differ
  most, as correct decisions over identical cases.
- :func:`attack_table` — static vs adaptive FPR_h when the jobs ran the adaptive attacker.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from monitorbench.metrics import build_table
from monitorbench.report.analysis import Analysis
from monitorbench.report.source import Configuration, axis_values, varying_axes
from monitorbench.suites.format import TASK_TYPES

HEADLINE = ("ba_norm", "tpr", "tnr", "fpr_h")
NAMES = {"ba_norm": "BA_norm", "tpr": "TPR", "tnr": "TNR", "fpr_h": "FPR_h"}
# Reference value per delta axis: the paper's common harness role, LOW effort, raw+parsed access.
DELTA_AXES = {"scaffold": "oneshot", "effort": "LOW", "access": "raw_parsed"}


@dataclass(frozen=True)
class Est:
    point: float
    low: float
    high: float


@dataclass(frozen=True)
class Diff:
    diff: float
    low: float
    high: float
    significant: bool


@dataclass
class Table:
    """One report table: ``rows`` hold str, int, float, Est, Diff or None cells."""

    name: str
    title: str
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    note: str = ""


def _est(an: Analysis, c: Configuration, key: str) -> Est | None:
    iv = an.ci(c).get(key)
    return None if iv is None else Est(iv.point, iv.low, iv.high)


def _diff(an: Analysis, a: Configuration, b: Configuration, key: str) -> Diff | None:
    d = an.paired(a, b).diffs.get(key)
    return None if d is None else Diff(d.diff, d.low, d.high, d.excludes_zero)


def _ranked(an: Analysis, configs: Sequence[Configuration], key: str) -> list[Configuration]:
    scored = [c for c in configs if key in an.ci(c)]
    return sorted(scored, key=lambda c: -an.ci(c)[key].point)


def _submitted(an: Analysis, c: Configuration) -> str:
    s = an.summary(c)
    return f"{int(s['n_submitted'])}/{int(s['n_tasks'])}"


def leaderboard(an: Analysis, configs: Sequence[Configuration], *, name: str = "leaderboard",
                title: str = "Leaderboard (paper Tables 2/12)") -> Table:
    t = Table(name, title, ["rank", "configuration", *(NAMES[k] for k in HEADLINE),
                            "submitted/N", "Δ BA_norm to next"],
              note="95% CIs: bootstrap over tasks (stratified by type). Δ to next: paired "
                   "bootstrap on the tasks both scored; * = CI excludes 0.")
    ranked = _ranked(an, configs, "ba_norm")
    for i, c in enumerate(ranked):
        nxt = _diff(an, c, ranked[i + 1], "ba_norm") if i + 1 < len(ranked) else None
        t.rows.append([i + 1, c.label, *(_est(an, c, k) for k in HEADLINE), _submitted(an, c),
                       nxt])
    return t


def type_rankings(an: Analysis, configs: Sequence[Configuration]) -> list[Table]:
    out = []
    present = {r["task_type"] for c in configs for r in c.records}
    for ttype in (t for t in TASK_TYPES if t in present):
        key = f"{ttype}/ba_norm"
        t = Table(f"ranking_{ttype}", f"Ranking on {ttype} tasks",
                  ["rank", "configuration", "BA_norm", "TPR", "TNR", "FPR_h",
                   "Δ BA_norm to next"],
                  note="Equal task weighting within the type; * = paired CI excludes 0.")
        ranked = _ranked(an, configs, key)
        for i, c in enumerate(ranked):
            nxt = _diff(an, c, ranked[i + 1], key) if i + 1 < len(ranked) else None
            t.rows.append([i + 1, c.label,
                           *(_est(an, c, f"{ttype}/{k}") for k in HEADLINE), nxt])
        out.append(t)
    return out


def _pairs_along(configs: Sequence[Configuration], axis: str
                 ) -> tuple[str, list[tuple[Configuration, Configuration]]]:
    """(reference value, [(config, its reference-valued twin)]) with all other axes equal."""
    values = axis_values(configs, axis)
    ref = DELTA_AXES[axis] if DELTA_AXES[axis] in values else values[0]

    def rest(c: Configuration) -> tuple[str, ...]:
        return tuple(v for k, v in sorted(c.axes.items()) if k != axis)

    twins = {rest(c): c for c in configs if c.axes[axis] == ref}
    return ref, [(c, twins[rest(c)]) for c in configs
                 if c.axes[axis] != ref and rest(c) in twins]


def delta_table(an: Analysis, configs: Sequence[Configuration], axis: str, *,
                by_type: bool = False) -> Table | None:
    """Each configuration against its twin at the axis' reference value (None: no pair)."""
    ref, pairs = _pairs_along(configs, axis)
    if not pairs:
        return None
    present = [t for t in TASK_TYPES if any(r["task_type"] == t for c in configs
                                            for r in c.records)]
    prefixes = [f"{t}/" for t in present] if by_type else [""]
    metrics = ("ba_norm", "tpr", "tnr") if by_type else HEADLINE
    cols = ["configuration", f"{axis}", f"{axis} (ref)"]
    if by_type:
        cols.insert(1, "task type")
    for m in metrics:
        cols += [f"{NAMES[m]} ref", f"{NAMES[m]}", f"Δ {NAMES[m]}"]
    cols.append("tasks paired")
    suffix = "_by_type" if by_type else ""
    t = Table(f"delta_{axis}{suffix}",
              f"{axis}: each value minus {ref}" + (" per task type (paper Table 15)"
                                                   if by_type else " (paper Tables 3/13)"),
              cols, note=f"Δ = configuration − the same configuration with {axis}={ref}, "
                         "paired bootstrap over the tasks both scored; * = CI excludes 0.")
    shown = [a for a in varying_axes(list(configs)) if a != axis] or ["generator"]
    for c, twin in pairs:
        base = " | ".join(c.axes[a] for a in shown if c.axes[a])
        for prefix in prefixes:
            row: list[Any] = [base, c.axes[axis], ref]
            if by_type:
                row.insert(1, prefix.rstrip("/"))
            for m in metrics:
                row += [_est(an, twin, prefix + m), _est(an, c, prefix + m),
                        _diff(an, c, twin, prefix + m)]
            row.append(an.paired(c, twin).n_common)
            t.rows.append(row)
    return t


def concentration_table(an: Analysis, configs: Sequence[Configuration]) -> Table:
    t = Table("concentration", "False rejections from all-reject verifiers (Q_m)",
              ["configuration", "all-reject tasks", "tasks", "false rejections",
               "Q_m (case-weighted)", "Q_m (task-weighted)"],
              note="Q_m: share of the FAIL decisions on positive cases that come from "
                   "verifiers returning FAIL on every case of their task; — = no such FAIL, "
                   "Q_m undefined.")
    for c in configs:
        s = an.summary(c)
        t.rows.append([c.label, int(s["all_reject_tasks"]), int(s["n_tasks"]),
                       int(s["false_rejections"]), s.get("q_m"), s.get("q_m_task")])
    return t


def diagnostics_table(an: Analysis, configs: Sequence[Configuration]) -> Table:
    groups = ("gold", "valid_variant", "ordinary_error", "attack")
    t = Table("diagnostics", "Pooled diagnostics (test-case weighted)",
              ["configuration", "submission rate", "valid-output rate", "rejection share",
               *(f"{g} P/F/U" for g in groups), "infra failures"],
              note="Rejection share: explicit FAIL among unaccepted positives. Infra failures: "
                   "cases the sandbox failed to judge even after retries; in no other column.")
    for c in configs:
        s = an.summary(c)
        cells = []
        for g in groups:
            if f"group/{g}/n" in s:
                cells.append("/".join(str(int(s[f"group/{g}/{o}"])) for o in "pfu"))
            else:
                cells.append(None)
        t.rows.append([c.label, s["submission_rate"], s["valid_output_rate"],
                       s.get("rejection_share"), *cells, int(s["diag/infra_failures"])])
    return t


def _task_scores(c: Configuration) -> dict[str, tuple[int, int, int, int, int]]:
    """task -> (positives accepted, positives, negatives rejected, negatives, U count), read
    from the metrics' own per-task counts (so infrastructure failures are left out here too)."""
    table = build_table(c.records, source=c.label)
    out: dict[str, tuple[int, int, int, int, int]] = {}
    for t, tid in enumerate(table.task_ids):
        pos, neg = table.counts[t, 0], table.counts[t, 1]  # outcome columns: P, F, U
        out[tid] = (int(pos[0]), int(pos.sum()), int(neg[1]), int(neg.sum()),
                    int(pos[2] + neg[2]))
    return out


def same_cases_table(configs: Sequence[Configuration]) -> Table:
    """Per task type, the common task whose per-task BA spreads most across configurations."""
    t = Table("same_cases", "Configurations on identical test cases (paper Table 24)",
              ["task type", "task", "configuration", "positive PASS", "negative FAIL",
               "no valid decision"],
              note="One task per type: the one where the configurations' per-task balanced "
                   "accuracy differs most (ties: first task id). Fractions count correct "
                   "decisions; U stays in the denominators.")
    scores = [_task_scores(c) for c in configs]
    types = {r["task_id"]: r["task_type"] for c in configs for r in c.records}
    common = sorted(set.intersection(*(set(s) for s in scores))) if scores else []
    for ttype in TASK_TYPES:
        tasks = [tid for tid in common if types[tid] == ttype]
        if not tasks:
            continue

        def spread(tid: str) -> float:
            ba = [s[tid][0] / s[tid][1] + s[tid][2] / s[tid][3] for s in scores]
            return max(ba) - min(ba)

        tid = min(tasks, key=lambda x: (-spread(x), x))
        for c, s in zip(configs, scores):
            a, p, r, n, u = s[tid]
            t.rows.append([ttype, tid, c.label, f"{a}/{p}", f"{r}/{n}", u])
    return t


def attack_table(configs: Sequence[Configuration]) -> Table | None:
    """Static vs adaptive FPR_h for jobs that ran the adaptive attacker (None: none did)."""
    ran = [c for c in configs if "attack/fpr_h_adaptive" in c.metrics]
    if not ran:
        return None
    t = Table("attack", "Attack acceptance: static suite vs adaptive search",
              ["configuration", "FPR_h static", "FPR_h adaptive", "tasks attacked",
               "tasks with a found candidate", "queries"],
              note="Adaptive FPR_h: share of attacked tasks (equal weight) where a budgeted "
                   "black-box search found an invalid candidate (reference FAIL) the verifier "
                   "accepted.")
    for c in ran:
        m = c.metrics
        t.rows.append([c.label, m.get("attack/fpr_h_static"), m["attack/fpr_h_adaptive"],
                       int(m.get("attack/tasks_attacked", 0)),
                       int(m.get("attack/tasks_found", 0)), int(m.get("attack/queries", 0))])
    return t
