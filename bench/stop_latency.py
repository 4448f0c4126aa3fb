"""How fast a job stops: Ctrl-C mid-judging, and a sandbox whose every worker dies.

Usage: python bench/stop_latency.py --suites outputs/suites [--before REV] [--scenario both]
                                    [--tasks N]

Runs each scenario on this checkout and, with ``--before REV``, on that revision too (extracted
with ``git archive`` into a temp dir and run from there, uninstalled), side by side in one run:

* ``sigint``: a real ``python -m monitorbench`` job judging replayed verifiers that sleep 0.3 s
  per case (``--tasks`` per type, default 4); SIGINT once 10 judgments are on disk. Reports the
  seconds from SIGINT to the process's exit, its exit status, and the judgments on disk then.
* ``dying``: a job (``run_job`` in a child process) whose verifiers are all killed from
  outside while they judge (a watcher SIGKILLs every sandbox session, as the OOM killer or a
  broken backend would), over the whole default BFCL suite. Reports seconds to failure, the
  error's first words, and the sandbox attempts persisted.

``--suites`` must hold a built (and audited) BFCL suite; both code trees use it.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SLOW = "import time\ndef verify(candidate, env):\n    time.sleep(0.3)\n    return 'PASS'\n"
DYING = ("import ctypes, time\ndef verify(candidate, env):\n"
         "    ctypes.CDLL(None).prctl(15, b'mb-bench-kill', 0, 0, 0)\n"
         "    time.sleep(5)\n    return 'PASS'\n")
# The child of the `dying` scenario: a watcher thread SIGKILLs the process group (the sandbox
# session this process started) of every process named mb-bench-kill, then the job runs.
DYING_RUNNER = textwrap.dedent('''
    import os, signal, sys, threading, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from hydra import compose, initialize_config_dir
    from monitorbench.config import register_configs
    from monitorbench.launch.run import run_job
    from monitorbench.pipeline.prepare import typed_config
    register_configs()

    def kill_session(pid):
        while pid > 1:
            stat = Path("/proc", str(pid), "stat").read_text()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            if ppid == os.getpid():
                os.killpg(pid, signal.SIGKILL)
                return
            pid = ppid

    def watch():
        while True:
            time.sleep(0.02)
            for e in os.listdir("/proc"):
                try:
                    if e.isdigit() and Path("/proc", e, "comm").read_text().strip() == "mb-bench-kill":
                        kill_session(int(e))
                except (OSError, ValueError):
                    pass

    threading.Thread(target=watch, daemon=True).start()
    with initialize_config_dir(config_dir=sys.argv[1] + "/conf", version_base="1.3"):
        cfg = compose("config", overrides=sys.argv[2:])
    t0 = time.monotonic()
    try:
        run_job(typed_config(cfg))
        print("RESULT finished", round(time.monotonic() - t0, 1))
    except Exception as e:
        print("RESULT", type(e).__name__, round(time.monotonic() - t0, 1), str(e)[:160])
''')


def _verifiers(out: Path, suites: Path, source: str) -> Path:
    manifest = json.loads((suites / "bfcl" / "manifest.json").read_text())
    for t in manifest["tasks"]:
        tid = t["task_id"] if isinstance(t, dict) else t
        (out / tid).mkdir(parents=True, exist_ok=True)
        (out / tid / "main.py").write_text(source)
    return out


def _lines(outputs: Path) -> int:
    files = list((outputs / "runs").glob("*/judgments.jsonl"))
    return len(files[0].read_text().splitlines()) if files else 0


def sigint(tree: Path, suites: Path, work: Path, tasks: int) -> dict[str, object]:
    """Seconds from SIGINT to exit of a job 10 judgments into judging."""
    vdir = _verifiers(work / "v", suites, SLOW)
    cmd = [sys.executable, "-m", "monitorbench", "generator=replay", f"generator.dir={vdir}",
           f"paths.outputs={work / 'out'}", f"paths.suites={suites}",
           f"tracking.tracking_uri=sqlite:///{work / 'mlflow.db'}",
           f"task.max_tasks_per_type={tasks}", f"hydra.run.dir={work / 'hydra'}"]
    proc = subprocess.Popen(cmd, cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    while _lines(work / "out") < 10:
        if proc.poll() is not None:
            return {"error": proc.stderr.read()[-500:] if proc.stderr else "exited"}
        time.sleep(0.05)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    while proc.poll() is None:
        time.sleep(0.01)
    took = time.monotonic() - sent
    err = proc.stderr.read() if proc.stderr else ""
    return {"seconds_to_exit": round(took, 2), "rc": proc.returncode,
            "judgments_on_disk": _lines(work / "out"), "traceback": "Traceback" in err}


def dying(tree: Path, suites: Path, work: Path) -> dict[str, object]:
    """Seconds until a job whose every sandbox worker is killed fails."""
    vdir = _verifiers(work / "v", suites, DYING)
    r = subprocess.run([sys.executable, "-c", DYING_RUNNER, str(tree), "generator=replay",
                        f"generator.dir={vdir}", f"paths.outputs={work / 'out'}",
                        f"paths.suites={suites}", "tracking.enabled=false"],
                       cwd=tree, capture_output=True, text=True, timeout=3600)
    result = next((x for x in r.stdout.splitlines() if x.startswith("RESULT")), r.stderr[-300:])
    return {"result": result, "attempts_persisted": _lines(work / "out")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suites", type=Path, required=True)
    ap.add_argument("--before", default=None, help="a git revision to measure beside this one")
    ap.add_argument("--scenario", choices=("sigint", "dying", "both"), default="both")
    ap.add_argument("--tasks", type=int, default=4)
    args = ap.parse_args()
    suites = args.suites.resolve()
    with tempfile.TemporaryDirectory(prefix="mb-stop-bench-") as tmp:
        trees = {"this checkout": ROOT}
        if args.before:
            before = Path(tmp) / "before"
            before.mkdir()
            archive = subprocess.run(["git", "archive", args.before], cwd=ROOT, check=True,
                                     capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
            trees = {f"before ({args.before})": before, **trees}
        for name, tree in trees.items():
            for scenario in (("sigint", "dying") if args.scenario == "both"
                             else (args.scenario,)):
                work = Path(tmp) / f"{scenario}-{len(name)}-{abs(hash(name))}"
                work.mkdir()
                out = (sigint(tree, suites, work, args.tasks) if scenario == "sigint"
                       else dying(tree, suites, work))
                print(f"{name:<22} {scenario:<7} {json.dumps(out)}", flush=True)


if __name__ == "__main__":
    main()
