"""First-run suite builds of ``+experiment=g4adv`` (its default task=small), before and after, side by
side: *before* builds each suite in turn with the code suite's bug search; *after* builds them
concurrently (registry.ensure_suites) with the code bugs replayed from pinned_bugs.json. Each
mode starts from an empty outputs dir (suites, sdist cache, code build cache); both get the same
sdist tarballs copied in, so neither times a download. Prints seconds per mode and whether every
suite's manifest is byte-identical between the two.

``--line1`` then times README line 1 itself, end to end, in a fresh ``git clone`` of this
checkout (install, suite builds and audits, the whole g4adv sweep), prints its phases from the
run's log, and checks that the suites it built have the manifests of the *before* builds. Line 1
installs the clone in editable mode, which re-points this environment's ``monitorbench`` at the
clone; the bench points it back at this checkout afterwards (``pip install -e . --no-deps``).

    python bench/first_run.py [--task conf/task/small.yaml] [--line1 | --only-line1]

pip's cache is off for line 1 (``PIP_NO_CACHE_DIR=1``). Run it from a virtual environment
(``python -m venv --system-site-packages``) when other work uses this checkout's install: line 1's
editable install re-points the environment that runs it until the bench points it back.

Run it on an otherwise idle machine for absolute numbers; the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _wanted(task_yaml: Path) -> list[tuple[str, dict[str, Any]]]:
    from omegaconf import OmegaConf
    cfg = OmegaConf.load(task_yaml)
    return [(s.name, dict(OmegaConf.to_container(s.options, resolve=True) or {}))
            for s in cfg.suites]


def _fresh_outputs(root: Path, sdists: list[Path]) -> Path:
    """An empty outputs dir with the pinned sdists in its cache, set as MONITORBENCH_OUTPUTS."""
    cache = root / "cache" / "sdists"
    cache.mkdir(parents=True)
    for tar in sdists:
        shutil.copy(tar, cache / tar.name)
    os.environ["MONITORBENCH_OUTPUTS"] = str(root)
    os.environ.pop("MONITORBENCH_CACHE", None)
    return root


def _before(root: Path, wanted: list[tuple[str, dict[str, Any]]]) -> dict[str, float]:
    """One suite after the other, the code bugs searched (no pinned file)."""
    from monitorbench.sources.code import build as code_build
    from monitorbench.audit.prepare import ensure_suite

    pinned = code_build.PINNED_FILE
    code_build.PINNED_FILE = root / "no-pins.json"
    try:
        times = {}
        for name, options in wanted:
            t0 = time.perf_counter()
            ensure_suite(root / "suites", name, options)
            times[name] = time.perf_counter() - t0
        return times
    finally:
        code_build.PINNED_FILE = pinned


def _after(root: Path, wanted: list[tuple[str, dict[str, Any]]]) -> float:
    """All suites at once, the code bugs replayed from the pinned file (in spawned workers)."""
    from monitorbench.audit.prepare import ensure_suites

    t0 = time.perf_counter()
    ensure_suites(root / "suites", wanted)
    return time.perf_counter() - t0


def readme_line1(repo: Path) -> str:
    """The first command line of the README's Quick start block."""
    text = (repo / "README.md").read_text(encoding="utf-8")
    block = text.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return next(line.strip() for line in block.splitlines() if line.strip())


def _phases(log: str) -> dict[str, datetime]:
    """Timestamps in line 1's log: the sweep launched (install and MLflow set up), the first
    job's generation done (suites built and audited), the last job's summary written."""
    stamps = [(datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f"), line)
              for line in log.splitlines()
              if (m := re.match(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\]", line))]
    out: dict[str, datetime] = {}
    for when, line in stamps:
        if "Launching" in line:
            out.setdefault("launched", when)
        elif "generation:" in line:
            out.setdefault("built", when)
        out["last"] = when
    return out


def _line1(tmp: Path) -> tuple[float, Path, dict[str, datetime]]:
    """README line 1 in a fresh clone with a clean environment; (seconds, suites dir, phases)."""
    clone = tmp / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MONITORBENCH_", "MLFLOW_")) and k != "PYTHONPATH"}
    env["PIP_NO_CACHE_DIR"] = "1"  # issue 20's condition: pip's cache cold
    cmd = readme_line1(clone)
    print(f"README line 1 in {clone}: {cmd}", flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(["bash", "-c", cmd], cwd=clone, env=env, capture_output=True,
                          text=True)
    seconds = time.perf_counter() - t0
    (tmp / "line1.log").write_text(proc.stdout + proc.stderr)
    back = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                           "--no-build-isolation", "--root-user-action=ignore", "-e",
                           str(REPO)], capture_output=True, text=True)
    if back.returncode != 0:  # the measurement stands; say what to do about the environment
        print(f"could not point {sys.executable} back at {REPO} (run `pip install -e "
              f"{REPO} --no-deps`): {back.stderr.strip().splitlines()[-1:]}", flush=True)
    if proc.returncode != 0:
        raise SystemExit(f"README line 1 failed (rc {proc.returncode}); log tail:\n"
                         f"{(proc.stdout + proc.stderr)[-3000:]}")
    return seconds, clone / "outputs" / "suites", _phases(proc.stdout + proc.stderr)


def _report_line1(seconds: float, phases: dict[str, datetime], t_start: datetime) -> None:
    if {"launched", "built", "last"} <= set(phases):
        setup, builds, sweep = ((b - a).total_seconds() for a, b in (
            (t_start, phases["launched"]), (phases["launched"], phases["built"]),
            (phases["built"], phases["last"])))
        print(f"line 1: clone, install and MLflow setup {setup:.0f} s, suite builds and audits "
              f"(concurrent) {builds:.0f} s, the sweep's jobs {sweep:.0f} s")
    print(f"line 1: {seconds:.1f} s wall ({seconds / 60:.1f} min), target 360 s: "
          f"{'met' if seconds <= 360 else 'NOT met'}")


def main() -> None:
    from monitorbench.sources.code.libraries import LIBRARIES
    from monitorbench.sources.code.sdists import fetch_sdist
    from monitorbench.suites.registry import suite_dir

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", type=Path, default=Path("conf/task/small.yaml"))
    ap.add_argument("--line1", action="store_true",
                    help="also time README line 1 end to end in a fresh clone")
    ap.add_argument("--only-line1", action="store_true",
                    help="time README line 1 only (no before/after builds)")
    args = ap.parse_args()
    if args.only_line1:
        with tempfile.TemporaryDirectory(prefix="mb-line1-") as tmp:
            print(f"load average at start: {os.getloadavg()}", flush=True)
            t_start = datetime.now()
            seconds, _, phases = _line1(Path(tmp))
            _report_line1(seconds, phases, t_start)
        print(f"load average at end: {os.getloadavg()}")
        return
    wanted = _wanted(args.task)
    libs = [n for name, o in wanted if name == "code" for n in o.get("libraries", LIBRARIES)]
    sdists = [fetch_sdist(LIBRARIES[n]) for n in libs]
    print(f"suites: {wanted}\nload average at start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="mb-firstrun-") as tmp:
        before_root = _fresh_outputs(Path(tmp) / "before", sdists)
        before = _before(before_root, wanted)
        after_root = _fresh_outputs(Path(tmp) / "after", sdists)
        after = _after(after_root, wanted)
        print(f"{'suite':<12}{'before s':>10}  identical manifest")
        for name, options in wanted:
            a, b = (suite_dir(r / "suites", name, options) / "manifest.json"
                    for r in (before_root, after_root))
            print(f"{name:<12}{before[name]:>10.1f}  {a.read_bytes() == b.read_bytes()}")
        print(f"{'total':<12}{sum(before.values()):>10.1f}  (before: in turn, searched)")
        print(f"{'total':<12}{after:>10.1f}  (after: concurrent, pinned)", flush=True)
        if args.line1:
            t_start = datetime.now()
            seconds, suites, phases = _line1(Path(tmp))
            _report_line1(seconds, phases, t_start)
            for name, options in wanted:
                a = suite_dir(before_root / "suites", name, options) / "manifest.json"
                b = suite_dir(suites, name, options) / "manifest.json"
                print(f"line 1 {name}: manifest identical to the searched build: "
                      f"{b.is_file() and a.read_bytes() == b.read_bytes()}")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
