"""The report's tables, built from an :class:`Analysis`; each one mirrors a table of the paper.

Cells are typed so one table renders both as markdown (``62.1 [58.0, 66.3]``) and as CSV (point,
low and high in separate columns): :class:`Est` is a rate with its 95% task-bootstrap CI,
:class:`Diff` a between-configuration difference with its paired CI and whether that CI
excludes zero (``*``). Rates are percentages, as in the paper.

- :func:`leaderboard` — Tables 2 and 12: configurations ranked by BA_norm on the common task
  pool (the tasks every ranked configuration scored; rows that scored more are flagged ``†``
  with their count, and the note names the pools); the last column is the gap to the next
  rank's shown value, with its paired CI, marked ``*`` when significant.
- :func:`type_rankings` — Appendix F: the same ranking within each task type (its own pool).
- :func:`delta_table` — Tables 3 and 13: each value of an axis (scaffold, effort, access)
  against the axis' reference value, other axes held equal; ``by_type`` gives Table 15.
- :func:`concentration_table` — all-reject verifiers and Q_m (case- and task-weighted).
- :func:`diagnostics_table` — pooled, test-case-weighted diagnostics.
- :func:`same_cases_table` — Table 24: per task type, the task on which configurations differ
  most, as correct decisions over identical cases.
- :func:`attack_table` — static beside adaptive FPR_h and tasks broken when the jobs ran the
  attack stage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from monitorbench.metrics.adaptive import attack_rates, with_found
from monitorbench.metrics import build_table
from monitorbench.metrics.bootstrap import METHOD
from monitorbench.metrics.headline import HEADLINE
from monitorbench.metrics.ranking import common_pool, rank_on_pool
from monitorbench.report.analysis import Analysis
from monitorbench.report.source import Configuration, axis_values, varying_axes
from monitorbench.suites.format import TASK_TYPES
from monitorbench.tracking.sweep_report import pool_note
from monitorbench.tracking.table_text import DECIMALS  # places a rate is shown with

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
    axes: dict[str, dict[str, str]] = field(default_factory=dict)   # label -> its axis values


def shown(x: float) -> float:
    """A rate as the markdown shows it (``DECIMALS`` places), so a gap between two shown
    values is computed from exactly what the reader sees."""
    return float(f"{x:.{DECIMALS}f}")


def _est(an: Analysis, c: Configuration, key: str, pool: frozenset[str] | None = None
         ) -> Est | None:
    iv = an.ci(c, pool).get(key)
    return None if iv is None else Est(iv.point, iv.low, iv.high)


def _gap(an: Analysis, a: Configuration, b: Configuration, key: str,
         pool: frozenset[str]) -> Diff | None:
    """a − b on ``pool``: the paired bootstrap CI, with the point set to the gap between the
    two values as shown (both over ``pool``), so the Δ column matches the visible gap."""
    d = an.paired(a, b, pool).diffs.get(key)
    pa, pb = an.ci(a, pool).get(key), an.ci(b, pool).get(key)
    if d is None or pa is None or pb is None:
        return None
    return Diff(round(shown(pa.point) - shown(pb.point), DECIMALS), d.low, d.high,
                d.excludes_zero)


def _types(configs: Sequence[Configuration]) -> dict[str, str]:
    return {r["task_id"]: r["task_type"] for c in configs for r in c.records}


def _scored(an: Analysis, configs: Sequence[Configuration], ttype: str | None
            ) -> dict[str, frozenset[str]]:
    """Each configuration's scored tasks of ``ttype`` (None: any), by label."""
    types = _types(configs)
    return {c.label: frozenset(t for t in an.scored(c) if ttype in (None, types[t]))
            for c in configs}


def _pool_text(an: Analysis, configs: Sequence[Configuration], pool: frozenset[str],
               ttype: str | None) -> str:
    """The note's statement of which tasks the ranking is on (wording as the sweep
    leaderboard's :func:`pool_note`)."""
    types = _types(configs)
    rows = [{"run": c.label, "tasks": sum(1 for t in an.scored(c) if ttype in (None, types[t]))}
            for c in configs]
    differ = pool_note(rows, str)   # a note is plain text, rendered as markdown and HTML
    if not pool:
        return f"{differ or ''} No task was scored by every configuration: nothing ranked.".strip()
    kind = f" {ttype}" if ttype else ""
    head = (f"Ranked on the common task pool: the {len(pool)}{kind} tasks every ranked "
            "configuration scored; every rate, CI and Δ here is over those tasks.")
    if differ is None:
        return head
    return f"{head} {differ}"


def _ranking_rows(an: Analysis, configs: Sequence[Configuration], ttype: str | None
                  ) -> tuple[list[list[Any]], str]:
    """Rows [rank, label, BA_norm, TPR, TNR, FPR_h, tasks scored, Δ to next] on the common
    pool, ranked by :func:`monitorbench.metrics.ranking.rank_on_pool` like every other
    leaderboard, and the note's pool statement."""
    prefix = f"{ttype}/" if ttype else ""
    key = prefix + "ba_norm"
    by_label = {c.label: c for c in configs}
    scored = _scored(an, configs, ttype)

    def value_on(label: str, pool: frozenset[str]) -> float | None:
        ci = an.ci(by_label[label], pool)
        return ci[key].point if key in ci else None

    names = {c.label: c.run_name or c.label for c in configs}
    order = [r for r in rank_on_pool(scored, value_on, names) if r.rank is not None]
    pool = common_pool(scored)
    rows = []
    for i, r in enumerate(order):
        c = by_label[r.name]
        nxt = (_gap(an, c, by_label[order[i + 1].name], key, pool)
               if i + 1 < len(order) else None)
        rows.append([r.rank, c.label, *(_est(an, c, prefix + k, pool) for k in HEADLINE),
                     r.tasks_cell, nxt])
    ranked = [c for c in configs if scored[c.label]]
    return rows, _pool_text(an, ranked, pool, ttype)


def _submitted(an: Analysis, c: Configuration) -> str:
    s = an.summary(c)
    return f"{int(s['n_submitted'])}/{int(s['n_tasks'])}"


def leaderboard(an: Analysis, configs: Sequence[Configuration], *, name: str = "leaderboard",
                title: str = "Leaderboard (paper Tables 2/12)") -> Table:
    rows, pool = _ranking_rows(an, configs, None)
    t = Table(name, title, ["rank", "configuration", *(NAMES[k] for k in HEADLINE),
                            "submitted/N", "tasks scored", "Δ BA_norm to next"],
              note=f"{pool} CIs: {METHOD}. Δ to next: the "
                   "gap between the two shown BA_norm values, with the paired bootstrap CI on "
                   "the same tasks; * = CI excludes 0. submitted/N: over all the "
                   "configuration's tasks.")
    by_label = {c.label: c for c in configs}
    for row in rows:
        t.rows.append([*row[:6], _submitted(an, by_label[row[1]]), *row[6:]])
    return t


def type_rankings(an: Analysis, configs: Sequence[Configuration]) -> list[Table]:
    out = []
    present = set(_types(configs).values())
    for ttype in (t for t in TASK_TYPES if t in present):
        rows, pool = _ranking_rows(an, configs, ttype)
        out.append(Table(f"ranking_{ttype}", f"Ranking on {ttype} tasks",
                         ["rank", "configuration", "BA_norm", "TPR", "TNR", "FPR_h",
                          "tasks scored", "Δ BA_norm to next"], rows,
                         note=f"{pool} Equal task weighting within the type; Δ to next: gap "
                              "between the shown values, * = paired CI excludes 0."))
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
              cols, note=f"Δ = configuration − the same configuration with {axis}={ref}: the "
                         "gap between the two shown values, with the paired bootstrap CI; both "
                         "values and Δ are over the tasks both scored (tasks paired"
                         + (", counted within the row's task type" if by_type else "")
                         + "); * = CI excludes 0.")
    shown_axes = [a for a in varying_axes(list(configs)) if a != axis] or ["generator"]
    for c, twin in pairs:
        base = " | ".join(c.axes[a] for a in shown_axes if c.axes[a])
        common = an.scored(c) & an.scored(twin)
        pairing = an.paired(c, twin, common)
        for prefix in prefixes:
            row: list[Any] = [base, c.axes[axis], ref]
            if by_type:
                row.insert(1, prefix.rstrip("/"))
            for m in metrics:
                row += [_est(an, twin, prefix + m, common), _est(an, c, prefix + m, common),
                        _gap(an, c, twin, prefix + m, common)]
            row.append(pairing.n_by_type.get(prefix.rstrip("/"), 0) if by_type
                       else pairing.n_common)
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


def attack_table(an: Analysis, configs: Sequence[Configuration]) -> Table | None:
    """Static beside adaptive attack acceptance for jobs that ran the attack stage (None: none
    did), on the leaderboard's common task pool, by the attack stage's own definitions
    (:func:`monitorbench.metrics.adaptive.attack_rates` of the pool's records, and of those plus
    the mutants the search found: :func:`monitorbench.metrics.adaptive.with_found`)."""
    ran = [c for c in configs if c.found is not None]
    if not ran:
        return None
    pool = common_pool(_scored(an, configs, None))
    t = Table("attack", "Attack acceptance: static suite vs adaptive search",
              ["configuration", "FPR_h static", "FPR_h adaptive", "tasks broken static",
               "tasks broken adaptive", "broken static/adaptive of attacked", "queries"],
              note=f"On the common task pool of the leaderboard ({len(pool)} tasks), so FPR_h "
                   "static is the leaderboard's FPR_h. FPR_h static / adaptive: the paper's "
                   "FPR_h (mean over the tasks with attack cases of the share of their attack "
                   "cases the verifier accepted) over the suite's attack cases / over those plus "
                   "every mutant the budgeted black-box search found and the verifier accepted "
                   "(invalid by construction and rejected by the reference). Same definition, "
                   "same tasks, so adaptive is never below static; equal at budget 0. Tasks "
                   "broken: % of the attacked tasks (those with attack cases) where any attack "
                   "was accepted, static / adaptive; the counts column gives them as "
                   "static/adaptive of attacked. Queries: verifier calls the search made on all "
                   "the job's tasks. — = the job did not log it.")
    for c in ran:
        recs = [r for r in c.records if r["task_id"] in pool]
        m = {**attack_rates(recs, "static"),
             **attack_rates(with_found(recs, c.found or frozenset()), "adaptive")} if recs else {}
        counts = None
        if "attack/n_attack_tasks" in m:
            counts = "/".join(str(int(m.get(f"attack/n_tasks_broken_{k}", 0)))
                              for k in ("static", "adaptive")) + \
                f" of {int(m['attack/n_attack_tasks'])}"
        queries = c.metrics.get("attack/queries")
        t.rows.append([c.label, m.get("attack/fpr_h_static"), m.get("attack/fpr_h_adaptive"),
                       m.get("attack/tasks_broken_static"), m.get("attack/tasks_broken_adaptive"),
                       counts, None if queries is None else int(queries)])
    return t
