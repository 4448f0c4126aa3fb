"""The folder a blind reader of the τ² acceptance records is given, and the check of what the
reader writes back (issue 46).

Why: each blind pass of :data:`second_pass.LATER_PASSES` was written by a reader given a folder
of the sampled tasks' public texts, the domains' policies and tool lists and GUIDE.md, but the
folders were made by scratch scripts outside the repository, so no one could repeat a pass, or
show that a folder held nothing of the records. :func:`write_blind_folder` makes the folder of
a pass from the repository alone: the tasks of :func:`second_pass.blind_sample` in its order,
each task's public text as :func:`source.user_request` gives it, each sampled domain's
:func:`source.policy` and :func:`source.public_tools`, GUIDE.md, and a ``check.py`` calling
:func:`check_blind_pass`. Nothing of the records (``resolves_to``, ``must_tell``, notes,
``gold_breaks``, the gold, hidden cases) is written: only what the public task shows. A reader
can so repeat a pass and check it with the records' own quote rule::

    python -m monitorbench.sources.tau2.acceptance.blind_folder write tenth_pass.json DEST
    python -m monitorbench.sources.tau2.acceptance.blind_folder check DEST DEST/tenth_pass.json

A pass that asks for coverage (the eleventh, banking only) marks its banking tasks in
``index.json``, and the check then lists each sentence of the task's text that no quote of the
record covers (:mod:`.coverage`, GUIDE.md "Coverage (banking)"). A pass read with the reading
aid (the twenty-eighth on) marks them ``aid`` too, and the check then also lists the lines of
the reader's own record that a rule's words point to (:func:`reading_aid.to_confirm`), for the
reader to decide again; they are not problems. A pass that reconciles two blind readers (the
thirty-second) also gets their passes and their comparison with each other, in ``readers/``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

from monitorbench.errors import InputError, MonitorbenchError
from monitorbench.sources.tau2.acceptance import HERE, parse_record, quote_norm
from monitorbench.sources.tau2.acceptance.coverage import (COVERAGE_DOMAINS, record_quotes,
                                                           uncovered)
from monitorbench.sources.tau2.acceptance.reading_aid import to_confirm
from monitorbench.sources.tau2.acceptance.second_pass import (LATER_PASSES, BlindPass,
                                                              blind_pass, blind_sample,
                                                              compare_passes, disagreements)

INDEX = "index.json"
READERS = "readers"  # a reconciling pass's folder: the passes it reconciles, and their comparison
COMPARED = "compared.txt"
GUIDE = "GUIDE.md"
CHECKER = "check.py"
README = "README.md"
PASS_KEYS = {"about", "seed", "tasks"}
# Fields only a reviewer writes (from the gold's lookups and the build's findings): a reader of
# the public task alone has nothing to write them from, so a pass holding one is refused.
REVIEWER_FIELDS = {"gold_breaks", "tells", "search", "lookups"}
_CHECK_PY = '''"""Checks a blind pass written in this folder: python check.py [PASS_FILE]."""
import sys
from pathlib import Path

from monitorbench.sources.tau2.acceptance.blind_folder import main

folder = Path(__file__).resolve().parent
sys.exit(main(["check", str(folder), sys.argv[1] if len(sys.argv) > 1 else str(folder / {name!r})]))
'''
_README = """# Blind pass {name}

Write `{name}` in this folder: one record per task of `index.json`, read from the task's public
text (`tasks/`), its domain's policy (`policies/`) and tool list (`tools/`) alone, following
`GUIDE.md`:

    {{"about": "<who wrote it, from what>", "seed": {seed}, "tasks": {{"<key>": {{<record>}}}}}}

A task `index.json` marks `"coverage": true` must account for every sentence of its text
(`GUIDE.md`, "Coverage (banking)"): read it sentence by sentence, in order.

Then check its quotes, fields and coverage: `python check.py {name}`.
"""
_README_AID = """
A task `index.json` marks `"aid": true` is read with the reading aid: once its record is
written and checked, `check.py` also lists, under "to decide again", the lines of your record
whose words a rule of `GUIDE.md` names (a not-item holding a condition, what is kept, an ask
for a human, a reason a tool may take or a figure; an item quoted at a lead-in). Read each
against the rule it names and the task's text, and move it only where that rule makes it
something else: the list points, it does not decide, and most lines it lists stay as they are.
"""
_README_RECONCILE = """
This pass reconciles two blind readers of the same tasks, who saw no reviewed record either:
`readers/` holds their passes ({passes}) and `readers/compared.txt`, where they differ, item
by item (the first named is "first"). Keep what both wrote alike. Where they differ, decide
under `GUIDE.md` from the task's text, as if reading it yourself: neither reader is right by
default, and a line only one of them made an item is an item only where the guide makes it one.
Write one whole record per task, every sentence covered.
"""


def _pass(name: str) -> BlindPass:
    """The blind pass ``name``; an unknown name is refused naming the known ones."""
    try:
        return blind_pass(name)
    except KeyError:
        raise InputError(None, "pass name", f"{name!r} is not a blind pass after the second",
                         f"use one of {', '.join(p.name for p in LATER_PASSES)}") from None


def task_header(domain: str, task_id: str) -> str:
    """The lines a task file starts with, before the task's public text."""
    return f"domain: {domain}\ntask_id: {task_id}\n\n"


def public_text(folder: Path, entry: Mapping[str, Any]) -> str:
    """The public text of the task of ``entry`` (an index row), without its header."""
    domain, task_id = entry["key"].split("/", 1)
    text = (folder / entry["file"]).read_text(encoding="utf-8")
    header = task_header(domain, task_id)
    if not text.startswith(header):
        raise InputError(folder / entry["file"], None, "does not start with its task's header",
                         "write the folder again with blind_folder write")
    return text[len(header):]


def _refuse_unless_empty(dest: Path) -> None:
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise InputError(dest, None, "is not an empty folder", "name a new or empty folder: a "
                         "blind folder is written whole, never over other files")


def write_blind_folder(name: str, dest: Path) -> list[str]:
    """Write the folder of the blind pass ``name`` to ``dest`` (new or empty); the keys
    ``"<domain>/<task_id>"`` written, in :func:`second_pass.blind_sample` order."""
    from monitorbench.sources.tau2 import source as src

    spec = _pass(name)
    _refuse_unless_empty(dest)
    picked = blind_sample(name)
    domains = list(dict.fromkeys(d for d, _ in picked))
    for sub in ("tasks", "policies", "tools"):
        (dest / sub).mkdir(parents=True, exist_ok=True)
    index = []
    for i, (domain, task_id) in enumerate(picked):
        task = next(t for t in src.load_tasks(domain) if t.task_id == task_id)
        entry: dict[str, Any] = {"key": f"{domain}/{task_id}",
                                 "file": f"tasks/{i:02d}_{domain}.txt",
                                 "policy": f"policies/{domain}.md",
                                 "tools": f"tools/{domain}.json"}
        if spec.coverage and domain in COVERAGE_DOMAINS:
            entry["coverage"] = True
            if spec.aid:
                entry["aid"] = True
        (dest / entry["file"]).write_text(task_header(domain, task_id) + src.user_request(task),
                                          encoding="utf-8")
        index.append(entry)
    for domain in domains:
        (dest / f"policies/{domain}.md").write_text(src.policy(domain), encoding="utf-8")
        _write_json(dest / f"tools/{domain}.json", src.public_tools(domain))
    _write_json(dest / INDEX, index)
    shutil.copyfile(HERE / GUIDE, dest / GUIDE)
    (dest / CHECKER).write_text(_CHECK_PY.format(name=name), encoding="utf-8")
    readme = _README.format(name=name, seed=spec.seed) + (_README_AID if spec.aid else "")
    if spec.reconciles:
        readme += _README_RECONCILE.format(passes=", ".join(spec.reconciles))
        _write_readers(spec, dest / READERS)
    (dest / README).write_text(readme, encoding="utf-8")
    return [e["key"] for e in index]


def _write_readers(spec: BlindPass, dest: Path) -> None:
    """The blind passes a reconciling pass reconciles, and their comparison with each other
    (:func:`second_pass.compare_passes`: the two passes alone, no record, and no settlement)."""
    dest.mkdir()
    for name in spec.reconciles:
        shutil.copyfile(HERE / name, dest / name)
    first, second = spec.reconciles
    report = compare_passes(first, second)
    lines = [f"first: {first}; second: {second}; they agree on {report['agreement']:.1%} of "
             "their items (matched items of both over all their items)"]
    lines += [f"{key}: {line}" for key, found in disagreements(report).items() for line in found]
    (dest / COMPARED).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(path, None, "does not exist", "give an existing file") from None
    except json.JSONDecodeError as e:
        raise InputError(path, None, f"is not valid JSON ({e})", "fix the JSON syntax") from None


def check_blind_pass(folder: Path, pass_file: Path) -> list[str]:
    """The problems of the blind pass ``pass_file`` against the folder it was written from
    (none: ``[]``): a top-level key or a record field unknown or missing, a reviewer's field
    (:data:`REVIEWER_FIELDS`), ``nothing_stated`` inconsistent with the items (the records'
    own validation, :func:`acceptance.parse_record`: a not-item's category too), a key the
    index lacks or a task of the index without a record, a quote not in its task's public
    text, a policy line not in its domain's policy (both under :func:`quote_norm`), and, for a
    task the index marks ``coverage``, each sentence of its public text that no quote covers
    (:func:`coverage.uncovered`) and each of its ``restated`` sentences that names no item it
    states again (``of``)."""
    entries = {e["key"]: e for e in _read_json(folder / INDEX)}
    data = _read_json(pass_file)
    if not isinstance(data, Mapping):
        return ["(top level): must be an object"]
    problems = [f"(top level): unknown key {k!r}" for k in sorted(set(data) - PASS_KEYS)]
    problems += [f"(top level): missing key {k!r}" for k in sorted(PASS_KEYS - set(data))]
    tasks = data.get("tasks", {})
    if not isinstance(tasks, Mapping):
        return [*problems, "tasks: must be an object keyed by \"<domain>/<task_id>\""]
    problems += [f"{k}: not a task of the folder's index" for k in tasks if k not in entries]
    problems += [f"{k}: no record written" for k in entries if k not in tasks]
    for key, raw in tasks.items():
        if key in entries:
            problems += _task_problems(folder, entries[key], pass_file, raw)
    return problems


def aid_lines(folder: Path, pass_file: Path) -> list[str]:
    """For each task the index marks ``aid``, the lines of the pass's record to decide again
    (:func:`reading_aid.to_confirm`), each prefixed with the task's key; a record that does not
    parse is left to :func:`check_blind_pass`'s problems."""
    data = _read_json(pass_file)
    tasks = data.get("tasks", {}) if isinstance(data, Mapping) else {}
    lines = []
    for entry in _read_json(folder / INDEX):
        raw = tasks.get(entry["key"]) if isinstance(tasks, Mapping) else None
        if not entry.get("aid") or raw is None:
            continue
        try:
            rec = parse_record(pass_file, entry["key"], raw)
        except InputError:
            continue
        lines += [f"{entry['key']}: {line}" for line in to_confirm(rec)]
    return lines


def _reviewer_fields(raw: Any) -> list[str]:
    """The :data:`REVIEWER_FIELDS` a record holds, at its top level or in a question."""
    if not isinstance(raw, Mapping):
        return []
    found = [k for k in raw if k in REVIEWER_FIELDS]
    questions = raw.get("questions")
    for q in questions if isinstance(questions, list) else []:
        found += [f"questions[].{k}" for k in (q if isinstance(q, Mapping) else ())
                  if k in REVIEWER_FIELDS]
    return sorted(set(found))


def _task_problems(folder: Path, entry: Mapping[str, Any], pass_file: Path,
                   raw: Any) -> list[str]:
    """One record's problems: its fields, then its quotes and policy lines."""
    key = entry["key"]
    problems = [f"{key}: unknown field {f!r} (a reviewer's, not a blind reader's)"
                for f in _reviewer_fields(raw)]
    try:
        rec = parse_record(pass_file, key, raw)
    except InputError as e:
        return [*problems, f"{key}: field {e.field!r} {e.problem}"]
    brief = public_text(folder, entry)
    text = quote_norm(brief)
    policy = quote_norm((folder / entry["policy"]).read_text(encoding="utf-8"))
    problems += [f"{key}: quote {q!r} not in the task's public text"
                 for q in record_quotes(rec) if quote_norm(q) not in text]
    problems += [f"{key}: policy {q!r} not in the policy" for q in rec.policy
                 if quote_norm(q) not in policy]
    if entry.get("coverage"):
        problems += [f"{key}: sentence {s!r} not covered (GUIDE.md, Coverage (banking))"
                     for s in uncovered(rec, brief)]
        problems += [f"{key}: restated sentence {n.quote!r} names no item it states again "
                     "(GUIDE.md: give its 'of')" for n in rec.not_items
                     if n.why == "restated" and not n.of]
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """``write NAME DEST`` or ``check DEST PASS_FILE``; 1 when the check finds problems, 2 on
    bad input."""
    parser = argparse.ArgumentParser(
        prog="python -m monitorbench.sources.tau2.acceptance.blind_folder",
        description="Write or check a τ² blind-pass folder.")
    sub = parser.add_subparsers(dest="command", required=True)
    write = sub.add_parser("write", help="write the folder of a blind pass")
    write.add_argument("name", help=", ".join(p.name for p in LATER_PASSES))
    write.add_argument("dest", type=Path)
    check = sub.add_parser("check", help="check a pass file against its folder")
    check.add_argument("dest", type=Path)
    check.add_argument("pass_file", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "write":
            keys = write_blind_folder(args.name, args.dest)
            print(f"wrote the {len(keys)} tasks of {args.name} to {args.dest}: {', '.join(keys)}")
            return 0
        problems = check_blind_pass(args.dest, args.pass_file)
        to_decide = aid_lines(args.dest, args.pass_file)
    except MonitorbenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print("\n".join(problems) if problems else f"{args.pass_file}: no problems")
    if to_decide:
        print(f"to decide again ({len(to_decide)} lines; README.md):", *to_decide, sep="\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
