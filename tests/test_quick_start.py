"""The README's Quick start is exactly two command lines, and CI runs exactly the second.

A newcomer copies these lines; CI must run what they run, or a green CI says nothing about the
README (the test command gained ``-n 2 --dist loadgroup`` in one place once and had to be
changed in the other by hand).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _quick_start() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None, "README's Quick start has no ```bash block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_quick_start_is_two_lines_and_ci_runs_the_second() -> None:
    lines = _quick_start()
    assert len(lines) == 2, lines
    install_and_run, install_and_test = lines
    assert install_and_run.startswith("bash scripts/install.sh && python -m monitorbench ")
    assert install_and_test.startswith("bash scripts/install.sh test && python -m pytest ")
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    assert ci[-1] == install_and_test, (ci[-1], install_and_test)


def test_the_quick_start_section_is_a_short_path() -> None:
    """Issue 36: the Quick start is the two lines and three short paragraphs (what you will see,
    how to read it, next steps as commands), at most 25 lines up to the next heading; timings
    live in the Performance section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start\n", 1)[1]
    body = re.split(r"^#{2,3} ", section, maxsplit=1, flags=re.M)[0].strip("\n").splitlines()
    assert len(body) <= 25, len(body)
    said = "\n".join(body)
    for part in ("**What you will see.**", "**How to read it.**", "**Next steps.**"):
        assert part in said, part
    assert "## Performance" in text
