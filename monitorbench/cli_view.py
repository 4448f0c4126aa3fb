"""``monitorbench view PATH``: build the case viewer's pages for a run or a sweep (and serve
them with ``--serve``).

PATH is a run directory (``outputs/runs/<run_key>``, the one a job's ``Outputs:`` line names),
a sweep directory under ``outputs/hydra/<experiment>/``, or a file holding what
``monitorbench score DIR --task ID --json`` printed (``--verifier DIR`` adds its code). The
pages join what the run wrote (its judgments and metrics, the suite's hidden candidates, the
verifier's code and generation trace from the generation cache); nothing is judged again.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from monitorbench.score import default_suites_dir
from monitorbench.view.site import build_site, default_out, start_server

EXAMPLES = """examples:
  monitorbench view outputs/runs/81115772ecd1f301a86c
  monitorbench view outputs/runs/81115772ecd1f301a86c --serve --port 8765
  monitorbench view outputs/hydra/g4adv/multirun_2026-12-06_12-00-00 --out /tmp/g4adv-view
  monitorbench score my_verifier --task bfcl.simple_python_12 --json > scored.jsonl
  monitorbench view scored.jsonl --verifier my_verifier"""


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="monitorbench view",
                                 description="Pages showing every judged case of a run: label, "
                                             "verdict, reason, candidate, the verifier's code "
                                             "and its generation trace.", epilog=EXAMPLES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", type=Path,
                    help="a run directory, a sweep directory or a `score --json` output file")
    ap.add_argument("--out", type=Path, default=None,
                    help="where to write the site (default outputs/views/<run_key> for a run, "
                         "<sweep dir>/view for a sweep)")
    ap.add_argument("--serve", action="store_true",
                    help="serve the site on 127.0.0.1 until Ctrl-C and print its URL")
    ap.add_argument("--port", type=int, default=0, help="port for --serve (default: a free one)")
    ap.add_argument("--verifier", type=Path, default=None,
                    help="for a score output: the verifier directory that was scored")
    ap.add_argument("--suites-dir", type=Path, default=Path(default_suites_dir()),
                    help="for a score output: where its suite is built (as for score)")
    return ap


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    index = build_site(args.path, args.out if args.out else default_out(args.path),
                       suites_root=args.suites_dir, verifier=args.verifier)
    if not args.serve:
        print(f"wrote {index.parent}; open file://{index.resolve()} "
              "(or add --serve for a URL)")
        return 0
    server, url = start_server(index.parent, args.port)
    print(f"serving {index.parent} at {url} (Ctrl-C stops)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.shutdown()
    return 0
