"""Count BFCL wrong-value cases whose "wrong" value is only another form of an accepted one.

Usage: python scripts/scan_bfcl_wrong_values.py SUITE_DIR [--show N]

For every ``wrong_value`` case of a built BFCL suite, finds the one argument that differs from
the gold calls and compares the case's value with every option the answer key accepts for that
argument (from the hidden reference.json). Two counts are printed:

- ``near_synonym``: the value is an accepted option or a spelling, abbreviation, unit or number
  form of one (``monitorbench.sources.bfcl.values.near_accepted``), so the FAIL label is wrong;
- ``shares_word``: a looser screen for manual review, the value shares a word of 4+ letters with
  an accepted option (e.g. "Museum of Modern Art" / "Metropolitan Museum of Art" are different
  museums; it is printed so a reader can judge, not counted as wrong).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any, Iterator

from monitorbench.sources.bfcl.values import near_accepted

_WORD = re.compile(r"[a-z]{4,}")


def _changed(gold: list[dict[str, Any]], calls: list[dict[str, Any]]
             ) -> Iterator[tuple[int, str, Any, Any]]:
    for ci, (g, c) in enumerate(zip(gold, calls)):
        for name, value in g["arguments"].items():
            if c["arguments"].get(name) != value:
                yield ci, name, value, c["arguments"].get(name)


def _options(reference: dict[str, Any], ci: int, gold_call: dict[str, Any], name: str
             ) -> list[Any]:
    """The answer-key options of argument ``name`` of the call that gold call ``ci`` answers."""
    key = reference["data"]["possible_answer"][ci]
    (fname, args), = key.items()
    assert fname == gold_call["name"], (fname, gold_call["name"])
    return list(args.get(name, []))


def _shares_word(value: Any, options: list[Any]) -> bool:
    words = set(_WORD.findall(json.dumps(value).lower()))
    return any(words & set(_WORD.findall(json.dumps(o).lower())) for o in options if o != "")


def scan(root: Path, show: int) -> dict[str, int]:
    counts = {"wrong_value_cases": 0, "near_synonym": 0, "shares_word": 0}
    for cases_file in sorted(root.glob("hidden/bfcl.*/cases.jsonl")):
        cases = [json.loads(line) for line in cases_file.read_text().splitlines() if line]
        reference = json.loads((cases_file.parent / "reference.json").read_text())
        gold = next(c for c in cases if c["category"] == "gold")["candidate"]["calls"]
        for case in cases:
            if case["category"] != "wrong_value":
                continue
            counts["wrong_value_cases"] += 1
            for ci, name, gold_value, value in _changed(gold, case["candidate"]["calls"]):
                options = _options(reference, ci, gold[ci], name)
                kind = ("near_synonym" if near_accepted(value, options)
                        else "shares_word" if _shares_word(value, options) else None)
                if kind:
                    counts[kind] += 1
                    if counts[kind] <= show:
                        print(f"{kind:13} {case['case_id']} {name}: {value!r} "
                              f"(accepted {options!r})"[:220])
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--show", type=int, default=20)
    args = parser.parse_args()
    print(json.dumps(scan(args.suite, args.show)))


if __name__ == "__main__":
    main()
