"""Build the ``code`` suite: SWE-smith-style bug tasks from pinned pure-Python libraries.

Per library: fetch the sdist, run its tests once (baseline), try seeded AST mutations until
enough of them break tests (a mutation is a bug only if >= 1 passing test fails, nothing times
out and at most ``MAX_F2P`` tests break), combine two bugs in distinct functions into one task,
build the cases (``cases.py``), confirm every case's label with the hardened grader and drop the
ones it contradicts. Each library's result is cached on disk, so an interrupted build resumes and
a rebuild with the same seed reuses the work; the suite written from it is byte-identical.

Pass-to-pass tests per task: every baseline-passing test in the test files the fail-to-pass tests
live in, plus a seeded sample of ``P2P_SAMPLE`` others, so grading stays around two seconds.

The search's outcome is pinned in ``pinned_bugs.json`` (per library, seed and bugs needed): a
build replays the pinned bugs and verifies them with one full test run per library (they must
fail exactly their fail-to-pass tests) instead of searching; ``--search`` reruns the search and
rewrites the file. A configuration that is not pinned is searched as before.

Run: ``python -m monitorbench.sources.code.build OUT_DIR [--seed N] [--libraries a,b]
[--tasks-per-library N] [--search]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import time
from dataclasses import asdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Sequence

from monitorbench.errors import InputError
from monitorbench.hashing import canonical_json, creation_lock, sha256_file, sha256_text
from monitorbench.sources.code.runtime import DEFAULT_BUDGET, copy_checkout
from monitorbench.sources.code import grader
from monitorbench.sources.code.cases import Bug, TaskDraft, build_cases
from monitorbench.sources.code.diffs import make_patch
from monitorbench.sources.code.libraries import DEFAULT_LIBRARIES, LIBRARIES, LibrarySpec
from monitorbench.sources.code.mutate import Mutation, sample_mutations
from monitorbench.sources.code.sdists import (cache_root, checkout_files, fetch_sdist,
                                             pristine_checkout)
from monitorbench.sources.code.testrun import TestRun, run_pytest
from monitorbench.suites.format import Case, Reference, Task, write_suite

BUILD_VERSION = "code-build/2"  # 2: skips_tests, breaks_collection, kills_test_run cases
# The bug search is versioned on its own: new case kinds reuse the (slow) cached searches.
SEARCH_VERSION = "code-build/1"
MAX_F2P = 30
P2P_SAMPLE = 20
MAX_TRIES_PER_TASK = 40
GRADE_WORKERS = 2
LIBRARY_WORKERS = 2
# The search's outcome per (library, seed, bugs needed), so a build replays and verifies known
# bugs (one test run per library) instead of searching (dozens of runs); see replay_pin.
PINNED_FILE = Path(__file__).with_name("pinned_bugs.json")
PINNED_ABOUT = ("Bug-search outcomes of the code suite builder (monitorbench.sources.code.build): "
                "per library, seed and number of bugs needed, the mutations that survived the "
                "fail-to-pass/pass-to-pass screen. Rewritten by `python -m "
                "monitorbench.suites.build code --search`; do not edit by hand.")
SEARCH_FIX = ("rerun the bug search, which rewrites the pinned file: python -m "
              "monitorbench.suites.build code --search")


def _log(progress: bool) -> Callable[[str], None]:
    return (lambda msg: print(msg, file=sys.stderr, flush=True)) if progress else (lambda msg: None)


def source_files(spec: LibrarySpec, files: dict[str, str]) -> dict[str, str]:
    """The files mutations may touch: Python sources under ``source_dirs``, minus exclusions."""
    def inside(p: str, d: str) -> bool:
        return p == d or p.startswith(d.rstrip("/") + "/")
    return {p: t for p, t in files.items() if p.endswith(".py") and not grader.is_test_path(p)
            and any(inside(p, d) for d in spec.source_dirs)
            and not any(inside(p, e) for e in spec.exclude_sources)}


def related_tests(spec: LibrarySpec, files: dict[str, str], path: str) -> list[str]:
    """Test files named after the module (test_itertoolz.py for itertoolz.py); all when none."""
    p = PurePosixPath(path)
    stem = p.parent.name if p.stem == "__init__" else p.stem
    hits = sorted(f for f in files if grader.is_test_path(f) and PurePosixPath(f).name.startswith(
        "test_") and stem in PurePosixPath(f).stem and f.endswith(".py"))
    return hits or list(spec.test_paths)


def _safe_id(nodeid: str) -> bool:
    """Node ids that survive a round trip through the command line and junit."""
    return "::" not in nodeid.partition("[")[2] and "\n" not in nodeid


_SECTION = re.compile(r"^_{3,} (.+?) _{3,}$")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


def _failure_excerpt(output: str, tests: Sequence[str], limit: int = 900) -> str:
    """The ``E`` lines of the first failure section that belongs to one of ``tests``."""
    wanted = {".".join(t.split("::")[1:]) for t in tests}
    current = None
    lines: list[str] = []
    for line in output.splitlines():
        m = _SECTION.match(line)
        if m:
            if lines:
                break
            current = m.group(1)
        elif current in wanted and line.startswith("E "):
            lines.append(line)
    # Object reprs carry memory addresses (``<function f at 0x7f...>``): masked, or two searches
    # of the same seed would write different issue texts.
    return _ADDRESS.sub("0x...", "\n".join(lines[:12]))[:limit]


def _run_mutant(root: Path, spec: LibrarySpec, texts: dict[str, str], targets: Sequence[str],
                timeout: float = 120.0) -> TestRun:
    work = Path(copy_checkout(str(root)))
    try:
        for rel, text in texts.items():
            with open(work / rel, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        return run_pytest(work, spec, targets, timeout=timeout)
    finally:
        shutil.rmtree(work.parent, ignore_errors=True)


def _broken(run: TestRun, base_pass: set[str]) -> tuple[list[str], str]:
    """(baseline-passing tests that no longer pass, why the mutant is unusable or '')."""
    if run.timed_out:
        return [], "timeout"
    if run.raw is None or run.junit is None:
        return [], "no_report"
    if any("timeout" in v.lower() for v in run.output.splitlines() if v.startswith("E ")):
        return [], "test_timeout"
    seen = set(run.raw)
    failed = sorted(n for n in base_pass if n in seen and run.outcome(n) != "passed")
    missing = base_pass - seen
    return failed, ("missing_tests" if missing and not failed else "")


def find_bugs(spec: LibrarySpec, files: dict[str, str], root: Path, base_pass: set[str],
              seed: int, need: int, log: Callable[[str], None]
              ) -> tuple[list[Bug], list[Mutation], dict[str, int]]:
    """Try mutations in seeded order until ``need`` bugs are confirmed by full test runs."""
    stats: dict[str, int] = {}
    bugs: list[Bug] = []
    neutral: list[Mutation] = []
    srcs = source_files(spec, files)
    used_funcs: set[tuple[str, str]] = set()
    pool = sample_mutations(srcs, seed)
    for tries, m in enumerate(pool):
        if len(bugs) >= need or tries >= MAX_TRIES_PER_TASK * max(need, 1):
            break
        stats["tried"] = stats.get("tried", 0) + 1
        if (m.file, m.function) in used_funcs:
            stats["same_function_as_kept_bug"] = stats.get("same_function_as_kept_bug", 0) + 1
            continue
        texts = {m.file: m.apply(files[m.file])}
        related = related_tests(spec, files, m.file)
        quick = _run_mutant(root, spec, texts, related, timeout=60.0)
        failed, why = _broken(quick, {n for n in base_pass
                                      if any(n.startswith(r) for r in related)})
        if why or not failed:
            reason = why or "no_failing_test"
            stats[reason] = stats.get(reason, 0) + 1
            if reason == "no_failing_test" and len(neutral) < 200:
                neutral.append(m)
            continue
        full = _run_mutant(root, spec, texts, list(spec.test_paths))
        failed, why = _broken(full, base_pass)
        if why or not failed or len(failed) > MAX_F2P:
            reason = why or ("no_failing_test" if not failed else "too_many_failures")
            stats[reason] = stats.get(reason, 0) + 1
            continue
        bugs.append(Bug(m, tuple(failed), _failure_excerpt(full.output, failed)))
        used_funcs.add((m.file, m.function))
        stats["kept"] = stats.get("kept", 0) + 1
        log(f"  {spec.name}: bug {len(bugs)}/{need} {m.file}:{m.lineno} {m.function} "
            f"[{m.operator}] breaks {len(failed)} test(s)")
    # Edits elsewhere (wrong_function, refactors) draw first from mutations seen to break nothing.
    rest = [m for m in pool if m not in neutral]
    stats["neutral_kept"] = len(neutral)
    return bugs, neutral + rest, stats


def _pairs(bugs: list[Bug]) -> list[list[Bug]]:
    """Pair bugs, preferring two distinct functions of the same file."""
    left = list(bugs)
    out = []
    while len(left) >= 2:
        a = left.pop(0)
        j = next((i for i, b in enumerate(left) if b.mutation.file == a.mutation.file), 0)
        out.append([a, left.pop(j)])
    return out


def _issue(spec: LibrarySpec, bugs: list[Bug], f2p: list[str]) -> str:
    where = "\n".join(f"- `{b.mutation.file}`, in `{b.mutation.function}`" for b in bugs)
    tests = "\n".join(f"- `{t}`" for t in f2p[:6])
    more = f"\n- ... and {len(f2p) - 6} more" if len(f2p) > 6 else ""
    excerpt = "\n\n".join(b.failure for b in bugs if b.failure)
    return (f"Regression in {spec.name} {spec.version}: tests that used to pass now fail.\n\n"
            f"The failures trace back to these places:\n{where}\n\n"
            f"Failing tests:\n{tests}{more}\n\n"
            f"Assertion output:\n```\n{excerpt}\n```\n\n"
            "Please fix the library code so these tests pass again, without breaking any other "
            "test. Test files are not part of the fix.")


def _public(spec: LibrarySpec, issue: str, sdist_sha: str) -> dict[str, Any]:
    test_cmd = ["python", "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q",
                *spec.pytest_args]
    return {
        "instruction": issue,
        "repo": {
            "library": spec.name, "version": spec.version,
            "sdist": f"{spec.name}-{spec.version}.tar.gz", "sdist_sha256": sdist_sha,
            "checkout": "repo/",
            "obtain": ("the buggy checkout is the repo/ directory of this task; it is the sdist "
                       f"(pip download --no-binary :all: --no-deps {spec.pin}) with the bug "
                       "applied, UTF-8 text files only"),
            "pythonpath": list(spec.pythonpath),
            "test_command": test_cmd,
        },
        "contract": {
            "candidate": {"patch": "unified diff against repo/ with a/ and b/ prefixes "
                                   "(as git diff writes; applied with git apply -p1)"},
            "decision": "PASS if the patch resolves the issue without breaking other tests",
            "run_public": ("env.run_public(cmd, patch=None) applies the candidate's patch (or "
                           "the given one) to a fresh copy of repo/ and runs cmd there; returns "
                           "{exit_code, output, applied, timed_out}; raises BudgetExceeded "
                           "after the budget"),
            "budget": DEFAULT_BUDGET,
        },
    }


def draft_task(task_id: str, spec: LibrarySpec, files: dict[str, str], root: Path,
               base_pass: set[str], pair: list[Bug], bugs: list[Bug], pool: list[Mutation],
               rng: random.Random) -> TaskDraft | None:
    """Combine ``pair`` into one task after a full test run of the combined mutant; None when
    the combination no longer breaks tests of both bugs (one masks the other) or breaks too many.
    """
    texts: dict[str, str] = {}
    for b in sorted(pair, key=lambda b: (b.mutation.file, -b.mutation.start)):
        texts[b.mutation.file] = b.mutation.apply(texts.get(b.mutation.file,
                                                             files[b.mutation.file]))
    full = _run_mutant(root, spec, texts, list(spec.test_paths))
    f2p, why = _broken(full, base_pass)
    if why or not all(set(b.fail_to_pass) & set(f2p) for b in pair) or len(f2p) > MAX_F2P:
        return None
    f2p_files = {n.split("::", 1)[0] for n in f2p}
    near = sorted(n for n in base_pass - set(f2p) if n.split("::", 1)[0] in f2p_files)
    rest = sorted(base_pass - set(f2p) - set(near))
    p2p = sorted(near + rng.sample(rest, min(P2P_SAMPLE, len(rest))))
    bug_files = {b.mutation.file for b in pair}
    return TaskDraft(task_id, spec, files, list(pair), f2p, p2p,
                     other_bugs=[b for b in bugs if b not in pair],
                     others=[m for m in pool if m.file in bug_files])


def reference_data(d: TaskDraft, sdist_sha: str) -> dict[str, Any]:
    """What the hardened grader needs for a task; it lives only in the hidden tree."""
    bug_patch = make_patch({p: (d.originals[p], t) for p, t in d.mutant.items()})
    return {"library": d.spec.name, "version": d.spec.version, "sdist_sha256": sdist_sha,
            "bug_patch": bug_patch, "fail_to_pass": d.fail_to_pass,
            "pass_to_pass": d.pass_to_pass,
            "bugs": [{"file": b.mutation.file, "function": b.mutation.function,
                      "operator": b.mutation.operator, "lineno": b.mutation.lineno}
                     for b in d.bugs]}


def _grade_all(spec: LibrarySpec, data: dict[str, Any], patches: list[str]
               ) -> list[grader.Grade]:
    with ThreadPoolExecutor(GRADE_WORKERS) as pool:
        return list(pool.map(lambda p: grader.grade(spec, data, p), patches))


def _cached_search(spec: LibrarySpec, files: dict[str, str], root: Path, base_pass: set[str],
                   seed: int, need: int, log: Callable[[str], None], path: Path
                   ) -> tuple[list[Bug], list[Mutation], dict[str, int]]:
    """:func:`find_bugs`, saved to ``path`` so a build interrupted later resumes after it."""
    if path.is_file():
        saved = json.loads(path.read_text(encoding="utf-8"))
        return _restore(spec, files, seed, saved)
    bugs, pool, stats = find_bugs(spec, files, root, base_pass, seed, need, log)
    _write_atomic(path, json.dumps(_outcome(bugs, pool, stats), sort_keys=True))
    return bugs, pool, stats


def _outcome(bugs: list[Bug], pool: list[Mutation], stats: dict[str, int]) -> dict[str, Any]:
    """A search's outcome as JSON: the bugs, the neutral mutations' keys, the counters."""
    return {"bugs": [{"mutation": asdict(b.mutation), "fail_to_pass": list(b.fail_to_pass),
                      "failure": b.failure} for b in bugs],
            "neutral": [m.key for m in pool[:stats.get("neutral_kept", 0)]], "stats": stats}


def _restore(spec: LibrarySpec, files: dict[str, str], seed: int, saved: dict[str, Any]
             ) -> tuple[list[Bug], list[Mutation], dict[str, int]]:
    """The (bugs, pool, stats) :func:`find_bugs` returned, from its :func:`_outcome`; the pool
    is re-enumerated (seeded), neutral mutations first, exactly as the search ordered it."""
    bugs = [Bug(Mutation(**b["mutation"]), tuple(b["fail_to_pass"]), b["failure"])
            for b in saved["bugs"]]
    pool = sample_mutations(source_files(spec, files), seed)
    by_key = {m.key: m for m in pool}
    neutral = [by_key[k] for k in saved["neutral"]]
    return bugs, neutral + [m for m in pool if m not in neutral], saved["stats"]


def pin_key(spec: LibrarySpec, seed: int, need: int) -> str:
    """The pinned file's entry for one library's search: the search depends on nothing else
    (the sdist is pinned by its hash inside the entry)."""
    return f"{spec.pin} seed={seed} need={need}"


def read_pins(path: Path | None = None) -> dict[str, Any]:
    """The pinned search outcomes (``pinned_bugs.json``); an absent file pins nothing."""
    path = Path(path or PINNED_FILE)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return dict(data["entries"])
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(path, "entries", f"unreadable pinned bug file ({e})", SEARCH_FIX) from e


def write_pin(key: str, entry: dict[str, Any], path: Path | None = None) -> None:
    """Replace one entry of the pinned file (the others are kept), sorted and indented so a
    re-search that finds the same bugs leaves the file byte-identical."""
    path = Path(path or PINNED_FILE)
    entries = read_pins(path)
    entries[key] = entry
    path.write_text(json.dumps({"about": PINNED_ABOUT, "search_version": SEARCH_VERSION,
                                "entries": dict(sorted(entries.items()))},
                               sort_keys=True, indent=1) + "\n", encoding="utf-8")


def replay_pin(spec: LibrarySpec, files: dict[str, str], root: Path, base_pass: set[str],
               seed: int, key: str, entry: dict[str, Any], sdist_sha: str
               ) -> tuple[list[Bug], list[Mutation], dict[str, int]]:
    """The pinned search outcome, verified by one full test run of all pinned bugs together:
    the tests that fail must be exactly the union of the bugs' fail-to-pass tests (each bug's
    tests fail, every other baseline-passing test still passes); anything else is an error."""
    where = f"entries[{key!r}]"
    if entry.get("sdist_sha256") != sdist_sha:
        raise InputError(PINNED_FILE, f"{where}.sdist_sha256",
                         f"pinned for another sdist of {spec.pin} (this one is {sdist_sha})",
                         SEARCH_FIX)
    try:
        bugs, pool, stats = _restore(spec, files, seed, entry)
    except (KeyError, TypeError) as e:
        raise InputError(PINNED_FILE, where, f"pinned mutation {e} is not a mutation of "
                         "this checkout", SEARCH_FIX) from e
    known = {m.key: m for m in pool}
    stale = [b.mutation.key for b in bugs if known.get(b.mutation.key) != b.mutation]
    texts: dict[str, str] = {}
    for b in sorted(bugs, key=lambda b: (b.mutation.file, -b.mutation.start)):
        texts[b.mutation.file] = b.mutation.apply(texts.get(b.mutation.file,
                                                            files[b.mutation.file]))
    run = _run_mutant(root, spec, texts, list(spec.test_paths)) if not stale else None
    failed, why = _broken(run, base_pass) if run else ([], f"stale mutations {stale}")
    want = sorted({t for b in bugs for t in b.fail_to_pass})
    if why or failed != want:
        diff = why or (f"failing now but not pinned: {sorted(set(failed) - set(want))[:5]}; "
                       f"pinned but passing now: {sorted(set(want) - set(failed))[:5]}")
        raise InputError(PINNED_FILE, where, f"the pinned bugs of {spec.pin} no longer "
                         f"verify ({diff})", SEARCH_FIX)
    return bugs, pool, stats


def _unusable(cases: list[dict[str, Any]]) -> str | None:
    """Why a task's confirmed cases cannot make a task, or None. Every task keeps its gold case
    (see suites.format): one whose gold patch the grader rejects is left out."""
    labels = {c["label"] for c in cases}
    if labels != {"PASS", "FAIL"}:
        return f"only {sorted(labels)} cases left"
    if not any(c["group"] == "gold" for c in cases):
        return "the grader rejected the gold patch"
    return None


def _baseline(spec: LibrarySpec, root: Path, log: Callable[[str], None]) -> set[str]:
    """The baseline-passing tests of the pristine checkout (one full test run)."""
    base = run_pytest(root, spec, list(spec.test_paths))
    if base.raw is None or base.junit is None:
        raise InputError(root, spec.pin, "baseline test run produced no report",
                         f"check that pytest runs in {root}: {base.output[-300:]}")
    log(f"{spec.name}: baseline {len(base.passed_ids())} passing tests in {base.seconds:.1f}s")
    return {n for n in base.passed_ids() if _safe_id(n)}


def search_and_pin(spec: LibrarySpec, *, seed: int, need: int, progress: bool = False,
                   cache: Path | None = None) -> dict[str, Any]:
    """Run the bug search for ``spec`` from scratch and write its outcome to the pinned file."""
    log = _log(progress)
    files = checkout_files(spec, cache)
    root = pristine_checkout(spec, cache)
    base_pass = _baseline(spec, root, log)
    bugs, pool, stats = find_bugs(spec, files, root, base_pass, seed, need, log)
    entry = dict(_outcome(bugs, pool, stats), library=spec.name, seed=seed, need=need,
                 sdist_sha256=sha256_file(fetch_sdist(spec, cache)))
    write_pin(pin_key(spec, seed, need), entry)
    return entry


def refresh_pins(extra: Sequence[tuple[str, int, int]] = (), *, progress: bool = False) -> None:
    """Re-search every (library, seed, need) the pinned file holds, plus ``extra``."""
    configs = {(e["library"], e["seed"], e["need"]) for e in read_pins().values()}
    unknown = sorted({c[0] for c in extra} - set(LIBRARIES))
    if unknown:
        raise InputError(None, "libraries", f"unknown libraries {unknown}",
                         f"choose from {', '.join(LIBRARIES)}")
    for name, seed, need in sorted(configs | set(extra)):
        search_and_pin(LIBRARIES[name], seed=seed, need=need, progress=progress)


def configs(libraries: Sequence[str] = DEFAULT_LIBRARIES, seed: int = 0,
            tasks_per_library: int = 7) -> list[tuple[str, int, int]]:
    """The (library, seed, need) searches a build with these options runs."""
    return [(name, seed, 2 * tasks_per_library + 2) for name in libraries]


def _find_or_replay(spec: LibrarySpec, files: dict[str, str], root: Path, base_pass: set[str],
                    seed: int, need: int, log: Callable[[str], None], out_file: Path,
                    sdist_sha: str) -> tuple[list[Bug], list[Mutation], dict[str, int]]:
    """The library's bugs: the pinned ones (verified) when pinned, else a (cached) search."""
    key = pin_key(spec, seed, need)
    entry = read_pins().get(key)
    if entry is not None:
        log(f"{spec.name}: replaying {len(entry['bugs'])} pinned bugs")
        return replay_pin(spec, files, root, base_pass, seed, key, entry, sdist_sha)
    log(f"{spec.name}: no pinned bugs for {key!r}; searching")
    search_file = out_file.parent / (f"search-{spec.name}-{spec.version}-seed{seed}-"
                                     f"n{(need - 2) // 2}-{SEARCH_VERSION.replace('/', '')}.json")
    return _cached_search(spec, files, root, base_pass, seed, need, log, search_file)


def _result_file(spec: LibrarySpec, seed: int, tasks: int, cache: Path) -> Path:
    """Where one library's built result is cached; a build from pinned bugs names the pinned
    entry's hash, so a re-search that changes the pins is never answered from a stale result."""
    entry = read_pins().get(pin_key(spec, seed, 2 * tasks + 2))
    tag = "" if entry is None else f"-pin{sha256_text(canonical_json(entry))[:10]}"
    return cache.parent / "code_build" / (f"{spec.name}-{spec.version}-seed{seed}-n{tasks}-"
                                          f"{BUILD_VERSION.replace('/', '')}{tag}.json")


def _drafts(spec: LibrarySpec, files: dict[str, str], root: Path, base_pass: set[str],
            bugs: list[Bug], pool: list[Mutation], stats: dict[str, int], *, seed: int,
            tasks: int) -> list[TaskDraft]:
    """Up to ``tasks`` two-bug tasks from the bugs, in pair order; rejected pairs are counted
    in ``stats``."""
    rng = random.Random(f"{seed}:{spec.name}:p2p")
    drafts: list[TaskDraft] = []
    for pair in _pairs(bugs):
        if len(drafts) >= tasks:
            break
        d = draft_task(f"code.{spec.name}.t{len(drafts) + 1:02d}", spec, files, root, base_pass,
                       pair, bugs, pool, rng)
        if d is None:
            stats["pair_rejected"] = stats.get("pair_rejected", 0) + 1
            continue
        drafts.append(d)
    return drafts


def _confirmed_task(spec: LibrarySpec, d: TaskDraft, sdist_sha: str, seed: int,
                    grade_seconds: list[float], dropped: list[dict[str, Any]]
                    ) -> dict[str, Any] | None:
    """One draft's task with the cases whose label the hardened grader confirms, or None when
    too few are left (``_unusable``); every case or task left out is appended to ``dropped``
    with the grader's reasons, and each grading's seconds to ``grade_seconds``."""
    data = reference_data(d, sdist_sha)
    drafts_c = build_cases(d, seed)
    grades = _grade_all(spec, data, [c.patch for c in drafts_c])
    counts: dict[str, int] = {}
    cases = []
    for c, g in zip(drafts_c, grades):
        counts[c.category] = counts.get(c.category, 0) + 1
        cid = f"{d.task_id}.{c.category}" + (f".{counts[c.category]}"
                                             if counts[c.category] > 1 else "")
        grade_seconds.append(g.seconds)
        if g.decision != c.label:
            dropped.append({"case_id": cid, "category": c.category, "label": c.label,
                            "reference": g.decision, "reasons": g.reasons[:5]})
            continue
        cases.append({"case_id": cid, "task_id": d.task_id, "group": c.group,
                      "category": c.category, "label": c.label,
                      "candidate": {"patch": c.patch}})
    why = _unusable(cases)
    if why:
        dropped.append({"case_id": d.task_id, "category": "task", "label": "-",
                        "reference": "-", "reasons": [why]})
        return None
    return {"task_id": d.task_id,
            "public": _public(spec, _issue(spec, d.bugs, d.fail_to_pass), sdist_sha),
            "mutant_files": d.mutant, "reference": data, "cases": cases}


def _write_atomic(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all: a process reading the cache never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def build_library(spec: LibrarySpec, *, seed: int, tasks: int, progress: bool = False,
                  cache: Path | None = None) -> dict[str, Any]:
    """Build (or load from the cache) one library's tasks, cases and report. Processes that
    share a cache build each result once: the others wait on its lock, then load it."""
    cache = cache or cache_root()
    out_file = _result_file(spec, seed, tasks, cache)
    if not out_file.is_file():
        out_file.parent.mkdir(parents=True, exist_ok=True)
        with creation_lock(out_file):
            if not out_file.is_file():  # else another process built it while this one waited
                result = _build_library(spec, seed, tasks, progress, cache, out_file)
                _write_atomic(out_file, json.dumps(result, sort_keys=True, indent=1))
    return json.loads(out_file.read_text(encoding="utf-8"))


def _build_library(spec: LibrarySpec, seed: int, tasks: int, progress: bool, cache: Path,
                   out_file: Path) -> dict[str, Any]:
    """:func:`build_library`'s work: baseline, bugs, drafts and the graded cases."""
    log = _log(progress)
    t0 = time.monotonic()
    files = checkout_files(spec, cache)
    root = pristine_checkout(spec, cache)
    sdist_sha = sha256_file(fetch_sdist(spec, cache))
    base_pass = _baseline(spec, root, log)
    bugs, pool, stats = _find_or_replay(spec, files, root, base_pass, seed, 2 * tasks + 2, log,
                                        out_file, sdist_sha)
    t_search = time.monotonic() - t0
    drafts = _drafts(spec, files, root, base_pass, bugs, pool, stats, seed=seed, tasks=tasks)
    out_tasks = []
    grade_seconds: list[float] = []
    dropped: list[dict[str, Any]] = []
    for d in drafts:
        task = _confirmed_task(spec, d, sdist_sha, seed, grade_seconds, dropped)
        if task is not None:
            out_tasks.append(task)
            log(f"  {d.task_id}: {len(task['cases'])} cases kept, "
                f"{sum(1 for x in dropped if x['case_id'].startswith(d.task_id + '.'))} dropped")
    return {
        "library": spec.pin, "sdist_sha256": sdist_sha, "tasks": out_tasks,
        "report": {"baseline_passing": len(base_pass), "mutations": stats,
                   "bugs": len(bugs), "tasks": len(out_tasks), "dropped_cases": dropped},
        "timings": {"search_s": round(t_search, 1), "total_s": round(time.monotonic() - t0, 1),
                    "grading_s_per_case_mean": round(sum(grade_seconds) / max(len(grade_seconds), 1), 2),
                    "grading_s_per_case_max": round(max(grade_seconds, default=0.0), 2),
                    "graded_cases": len(grade_seconds)},
    }


def _build_libraries(libraries: Sequence[str], seed: int, tasks: int, progress: bool
                     ) -> list[dict[str, Any]]:
    """Each library's :func:`build_library`, :data:`LIBRARY_WORKERS` at a time, in the order
    given. A library's build has long stretches of one test run at a time (its baseline, the
    replay of its pinned bugs, one full run per drafted pair) between the graded batches that
    fill :data:`GRADE_WORKERS`; building two at once keeps both cores busy through them. Each
    library's result depends only on its own inputs (its own checkout, seeded generators and
    lock), so the suite is the same whatever the interleaving."""
    with ThreadPoolExecutor(LIBRARY_WORKERS) as pool:
        return list(pool.map(lambda name: build_library(
            LIBRARIES[name], seed=seed, tasks=tasks, progress=progress), libraries))


def build_code_suite(out_dir: Path, *, seed: int = 0,
                     libraries: Sequence[str] = DEFAULT_LIBRARIES, tasks_per_library: int = 7,
                     progress: bool = False) -> Path:
    """Build the code suite into ``out_dir``; returns it. Same seed -> byte-identical manifest.

    Build times are not part of the suite (they would break byte-identity); they are written to
    ``<out_dir>/build_times.json``, outside the manifest.
    """
    unknown = [n for n in libraries if n not in LIBRARIES]
    if unknown:
        raise InputError(None, "libraries", f"unknown libraries {unknown}",
                         f"choose from {', '.join(LIBRARIES)}")
    tasks: list[Task] = []
    cases: dict[str, list[Case]] = {}
    refs: dict[str, Reference] = {}
    extra: dict[str, dict[str, str]] = {}
    report: dict[str, Any] = {"builder": BUILD_VERSION, "grader": grader.VERSION, "seed": seed,
                              "p2p_policy": f"all baseline-passing tests in the fail-to-pass "
                                            f"test files plus a seeded sample of {P2P_SAMPLE}",
                              "libraries": {}}
    timings: dict[str, Any] = {}
    sources = {}
    for name, res in zip(libraries, _build_libraries(libraries, seed, tasks_per_library,
                                                     progress)):
        spec = LIBRARIES[name]
        files = checkout_files(spec)
        sources[spec.pin] = {"sdist_sha256": res["sdist_sha256"]}
        timings[spec.pin] = res["timings"]
        groups: dict[str, int] = {}
        for t in res["tasks"]:
            tid = t["task_id"]
            tasks.append(Task(tid, "code", spec.pin, t["public"]))
            cases[tid] = [Case(c["case_id"], tid, c["group"], c["category"], c["label"],
                               c["candidate"]) for c in t["cases"]]
            for c in t["cases"]:
                groups[f"{c['group']}/{c['category']}"] = groups.get(
                    f"{c['group']}/{c['category']}", 0) + 1
            refs[tid] = Reference(grader.VERIFIER_ID, grader.VERSION, t["reference"])
            repo = dict(files, **t["mutant_files"])
            extra[tid] = {f"repo/{p}": text for p, text in repo.items()}
        report["libraries"][spec.pin] = dict(res["report"], cases_by_category=dict(sorted(
            groups.items())))
    out_dir = Path(out_dir)
    write_suite(out_dir, name="code", tasks=tasks, cases=cases, references=refs,
                meta={"task_type": "code", "seed": seed, "sources": sources,
                      "builder": BUILD_VERSION},
                build_report=report, extra_public_files=extra)
    (out_dir / "build_times.json").write_text(json.dumps(timings, sort_keys=True, indent=1) + "\n")
    return out_dir


def masked_paths() -> tuple[str, ...]:
    """Host paths a sandbox must hide for code tasks: the build cache (pristine checkouts, bug
    patches, cached cases with labels) and an installed copy of a pinned library, which would
    otherwise show the unmutated source next to the buggy checkout (six is installed here)."""
    import importlib.util

    root = cache_root()
    paths = [str(root), str(root.parent / "code_build")]
    for name in LIBRARIES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            origin = Path(spec.origin)
            paths.append(str(origin.parent if origin.name == "__init__.py" else origin))
    return tuple(paths)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--libraries", default=",".join(DEFAULT_LIBRARIES))
    ap.add_argument("--tasks-per-library", type=int, default=7)
    ap.add_argument("--search", action="store_true",
                    help="rerun the bug search for these options and every pinned "
                         "configuration, rewrite pinned_bugs.json, then build")
    args = ap.parse_args(argv)
    libraries = [x for x in args.libraries.split(",") if x]
    try:
        t0 = time.monotonic()
        if args.search:
            refresh_pins(configs(libraries, args.seed, args.tasks_per_library), progress=True)
        out = build_code_suite(args.out_dir, seed=args.seed,
                               libraries=libraries,
                               tasks_per_library=args.tasks_per_library, progress=True)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out} in {time.monotonic() - t0:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
