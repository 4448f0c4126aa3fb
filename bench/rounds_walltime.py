"""Wall time of one mixed_small job judged with 1 vs 3 state/code rounds, side by side.

    python bench/rounds_walltime.py [--generator schema_check] [--suites DIR] [--repeat 1]

The paper judges state and code tasks three times and reports the median-BA round
(``task.rounds.state``/``.code``, default 3); this measures what that costs on the mixed_small task
setting (BFCL + 12 AgentDojo + 4 code tasks). Each job gets fresh outputs (no judgment store or
generation cache to reuse) and shares the already built suites, so the numbers compare judging,
not suite building. The two settings alternate (1, 3, 1, 3, ...) so machine load hits both.
Prints per job the total and judging seconds and the number of judgments, then the ratio.
"""

from __future__ import annotations

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
from cli_job import run_cli_job  # noqa: E402  (bench/cli_job.py)


def run_job(rounds: int, generator: str, suites: Path) -> dict[str, float]:
    """One mixed_small job through the CLI, fresh outputs; returns its metrics plus wall time."""
    return run_cli_job(["task=mixed_small", f"generator={generator}",
                        f"task.rounds.state={rounds}", f"task.rounds.code={rounds}"], suites,
                       f"rounds={rounds}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generator", default="schema_check")
    ap.add_argument("--suites", type=Path, default=ROOT / "outputs" / "suites")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    walls: dict[int, list[float]] = {1: [], 3: []}
    print(f"{'rounds':>6} {'wall s':>8} {'judging s':>10} {'judgments':>10} {'ba_norm':>8}")
    for _ in range(args.repeat):
        for rounds in (1, 3):
            m = run_job(rounds, args.generator, args.suites.resolve())
            walls[rounds].append(m["wall"])
            print(f"{rounds:>6} {m['wall']:>8.1f} {m['timing/seconds_judging']:>10.1f} "
                  f"{int(m['cache/judgments_new']):>10} {m['ba_norm']:>8.1f}", flush=True)
    ratio = sum(walls[3]) / sum(walls[1])
    print(f"wall time rounds=3 / rounds=1: {ratio:.2f}x")


if __name__ == "__main__":
    main()
