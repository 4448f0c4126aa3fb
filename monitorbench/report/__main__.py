"""``python -m monitorbench.report ...``: the same command as ``monitorbench report`` (one parser,
one experiment check), kept so existing scripts go on working."""

from __future__ import annotations

import sys

from monitorbench.cli import main

if __name__ == "__main__":
    sys.exit(main(["report", *sys.argv[1:]]))
