"""The audit's outputs on disk: ``report.json`` (everything), ``report.md`` (task x check table,
exclusions in Table 7 style, per-source totals) and ``decisions.jsonl`` (C3's decision records:
every reference decision with its case hash and reference version)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from monitorbench.audit.audit import SuiteAudit
from monitorbench.audit.model import CHECK_NAMES, CHECKS, DEFECT_CODES


def _cell(text: str, limit: int = 90) -> str:
    text = text.replace("|", "/").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def source_of(source: str) -> str:
    """The task source family from a task's ``source`` string (``bfcl_v4:simple_python_3``...)."""
    for family in ("bfcl", "agentdojo"):
        if source.startswith(family):
            return family
    return "code" if "==" in source else source.split(":")[0]


def markdown(audit: SuiteAudit) -> str:
    m = audit.metrics()
    lines = [f"# V4V audit: suite `{audit.name}`", "",
             f"suite hash `{audit.suite_hash}`; {m['tasks']:.0f} tasks, {m['cases']:.0f} cases, "
             f"{audit.repeats} reference runs per case; {m['tasks_passed']:.0f} tasks pass all "
             f"checks, {m['tasks_excluded']:.0f} excluded; {m['mutation_configurations']:.0f} "
             f"mutation configurations; {audit.seconds:.1f} s.", "",
             "| task | " + " | ".join(f"{k} {CHECK_NAMES[k]}" for k in CHECKS) + " | defects |",
             "|---" * (len(CHECKS) + 2) + "|"]
    for t in audit.tasks:
        cells = [("pass" if t.checks[k].passed else "**FAIL**: " + _cell(t.checks[k].evidence))
                 for k in CHECKS]
        found = "; ".join(f"{f.code}: {_cell(f.evidence, 60)}" for f in t.defects) or "none"
        lines.append(f"| {t.task_id} | " + " | ".join(cells) + f" | {found} |")
    lines += ["", "## Excluded tasks", "", "| source | task id | reason | evidence |",
              "|---|---|---|---|"]
    for t in audit.failed():
        for r in t.reasons():
            lines.append(f"| {source_of(t.source)} | {t.task_id} | {r['code']} | "
                         f"{_cell(r['evidence'], 160)} |")
    if not audit.failed():
        lines.append("| | (none) | | |")
    lines += ["", "Reason codes: " + "; ".join(f"{k} {v}" for k, v in DEFECT_CODES.items())
              + "; C1-C8 the failed check.", "", "## Per source", "",
              "| source | tasks | excluded | mutation configurations | operators undetected |",
              "|---|---|---|---|---|"]
    per: dict[str, list] = defaultdict(list)
    for t in audit.tasks:
        per[source_of(t.source)].append(t)
    for src, ts in sorted(per.items()):
        configs = sum(t.checks["C6"].details.get("configurations", 0) for t in ts)
        missed: dict[str, int] = defaultdict(int)
        for t in ts:
            for op in t.checks["C6"].details.get("missed", []):
                missed[op] += 1
        lines.append(f"| {src} | {len(ts)} | {sum(not t.passed for t in ts)} | {configs} | "
                     + (", ".join(f"{k} ({v} tasks)" for k, v in sorted(missed.items())) or "none")
                     + " |")
    lines += fidelity_section(audit) + environment_section(audit)
    return "\n".join(lines) + "\n"


def fidelity_section(audit: SuiteAudit) -> list[str]:
    """Markdown lines listing every C7 finding of the tasks C7 flags (the table cell is cut)."""
    flagged = [t for t in audit.tasks if "C7" in t.checks and not t.checks["C7"].passed]
    lines = ["", "## Instruction fidelity (C7)", "",
             f"{len(flagged)} of {len(audit.tasks)} tasks flagged."]
    for t in flagged:
        c7 = t.checks["C7"]
        lines += ["", f"- `{t.task_id}`: {_cell(c7.evidence.split(':')[0], 120)}"]
        asked = c7.details.get("answer_seeking", [])
        if asked:
            lines.append("  - asks: " + "; ".join(f"{a['cue']}: {_cell(a['sentence'], 80)}"
                                                  for a in asked))
        lines += [f"  - {f['case_id']} ({f['group']}): {_cell(f['finding'], 200)}"
                  for f in c7.details.get("findings", [])[:10]]
    return lines


def environment_section(audit: SuiteAudit) -> list[str]:
    """Markdown lines: C8's per-kind task counts, then every finding of each flagged task."""
    flagged = [t for t in audit.tasks if "C8" in t.checks and not t.checks["C8"].passed]
    kinds: dict[str, int] = defaultdict(int)
    for t in flagged:
        for k in t.checks["C8"].details.get("kinds", {}):
            kinds[k] += 1
    lines = ["", "## Environment fidelity (C8)", "",
             f"{len(flagged)} of {len(audit.tasks)} tasks flagged"
             + (": " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) if kinds else "")
             + "."]
    for t in flagged:
        lines.append(f"\n- `{t.task_id}`:")
        lines += [f"  - [{f['kind']}] {f['case_id']} ({f['group']}/{f['category']}): "
                  f"{_cell(f['finding'], 200)}" for f in t.checks["C8"].details["findings"][:10]]
    return lines


def write_report(audit: SuiteAudit, out_dir: Path) -> dict[str, Path]:
    """Write the three files into ``out_dir``; returns their paths by kind."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / "report.json", "md": out_dir / "report.md",
             "decisions": out_dir / "decisions.jsonl"}
    paths["json"].write_text(json.dumps(audit.to_json(), indent=1, sort_keys=True) + "\n",
                             encoding="utf-8")
    paths["md"].write_text(markdown(audit), encoding="utf-8")
    with open(paths["decisions"], "w", encoding="utf-8") as f:
        for t in audit.tasks:
            for d in t.decisions:
                f.write(json.dumps(d, sort_keys=True) + "\n")
    return paths
