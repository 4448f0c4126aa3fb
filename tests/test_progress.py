"""Progress without a terminal: a log line per 10 % with rate and ETA (never a bar), and the
MLflow sink fed every interval and at the end."""

from __future__ import annotations

import logging

import pytest

from monitorbench.progress import Progress


def test_log_lines_and_sink_without_a_terminal(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[int] = []
    with caplog.at_level(logging.INFO, logger="monitorbench"):
        with Progress(4, "judging", unit="cases", interval=0.0, on_update=seen.append,
                      tty=False) as bar:
            for _ in range(3):
                bar.update()
    assert seen == [1, 2, 3, 3]  # every update past the interval, and once at the end
    last = caplog.records[-1].getMessage()
    assert last.startswith("judging: 3/4 cases (75%), ") and "cases/s, ETA " in last


def test_one_line_per_ten_percent_however_many_updates(
        caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="monitorbench"):
        with Progress(1000, "judging", unit="cases", tty=False) as bar:
            for _ in range(1000):
                bar.update()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 10, lines
    assert [line.split("(")[1].split(")")[0] for line in lines] == [
        f"{p}%" for p in range(10, 101, 10)]
    err = capsys.readouterr().err
    assert "\r" not in err and "it/s]" not in err            # no bar in a log


def test_quiet_between_intervals() -> None:
    seen: list[int] = []
    bar = Progress(100, "generation", interval=3600.0, on_update=seen.append, tty=False)
    for _ in range(50):
        bar.update()
    assert seen == []
    bar.close()
    assert seen == [50]
