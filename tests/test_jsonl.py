"""JSON-lines reading: a data file with a broken line is refused with the file, the line and the
fix; a log that a killed or untrusted writer left torn is read for what parses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitorbench.errors import InputError
from monitorbench.jsonl import read_lenient, read_strict
from monitorbench.metrics import load_judgments


def test_strict_reading_names_the_line_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"a": 1}\n\n{"b": 2}\n{"c": \n')
    with pytest.raises(InputError) as e:
        list(read_strict(path, "rebuild the suite"))
    assert e.value.field == "line 4" and "rebuild the suite" in str(e.value)
    path.write_text('{"a": 1}\n\n{"b": 2}\n')
    assert list(read_strict(path, "x")) == [(1, {"a": 1}), (3, {"b": 2})]


def test_lenient_reading_keeps_what_parses() -> None:
    assert read_lenient('{"event": "start"}\nnot json\n{"event": "end"}\n{"event": "mo') == \
        [{"event": "start"}, {"event": "end"}]


def test_judgments_for_the_metrics_are_read_strictly(tmp_path: Path) -> None:
    path = tmp_path / "judgments.jsonl"
    path.write_text(json.dumps({"task_id": "t"}) + "\n[1, 2]\n")
    with pytest.raises(InputError, match="must be a JSON object"):
        load_judgments(path)
    path.write_text(json.dumps({"task_id": "t"}) + "\n{torn\n")
    with pytest.raises(InputError) as e:
        load_judgments(path)
    assert e.value.field == "line 2"
