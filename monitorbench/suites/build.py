"""``python -m monitorbench.suites.build``: kept because the README and old scripts use it.

The command is :mod:`monitorbench.cli_build` (``monitorbench build``), which builds and audits; it
lives above both ``suites`` and ``audit``. This module is only an entry-point shim (``.importlinter``
ignores its one import), imported by nothing.
"""

import sys

from monitorbench.cli_build import main

if __name__ == "__main__":
    sys.exit(main())
