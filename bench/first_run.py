"""First-run suite builds of ``+experiment=g4adv`` (task=mixed_small), before and after, side by
side: *before* builds each suite in turn with the code suite's bug search; *after* builds them
concurrently (registry.ensure_suites) with the code bugs replayed from pinned_bugs.json. Each
mode starts from an empty outputs dir (suites, sdist cache, code build cache); both get the same
sdist tarballs copied in, so neither times a download. Prints seconds per mode and whether every
suite's manifest is byte-identical between the two.

    python bench/first_run.py [--task conf/task/mixed_small.yaml]

Run it on an otherwise idle machine for absolute numbers; the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any


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


def main() -> None:
    from monitorbench.sources.code.libraries import LIBRARIES
    from monitorbench.sources.code.sdists import fetch_sdist
    from monitorbench.suites.registry import suite_dir

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", type=Path, default=Path("conf/task/mixed_small.yaml"))
    args = ap.parse_args()
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
        print(f"{'total':<12}{after:>10.1f}  (after: concurrent, pinned)")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
