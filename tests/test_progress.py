"""Progress without a terminal: a log line per 10 % with rate and ETA (never a bar), and the
MLflow sink fed every interval and at the end."""

from __future__ import annotations

import logging

import pytest

from monitorbench import progress
from monitorbench.progress import Progress, rate_text


class Clock:
    """Stands in for time.monotonic: a stage's seconds pass as the test says, not as fast as
    this machine runs the loop (the real clock cannot give a 100-second stage in a test)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _lines(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, n: int,
           step_s: float) -> list[tuple[float, str]]:
    clock = Clock()
    monkeypatch.setattr(progress.time, "monotonic", clock)
    seen: list[tuple[float, str]] = []
    with caplog.at_level(logging.INFO, logger="monitorbench"):
        with Progress(n, "generation", unit="verifiers", tty=False) as bar:
            for _ in range(n):
                clock.now += step_s
                bar.update()
                seen += [(clock.now, r.getMessage()) for r in caplog.records[len(seen):]]
    seen += [(clock.now, r.getMessage()) for r in caplog.records[len(seen):]]
    return seen


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
        with Progress(1000, "judging", unit="cases", tty=False, min_gap=0.0) as bar:
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


def test_a_stage_of_milliseconds_logs_one_line(monkeypatch, caplog) -> None:
    """A scripted generator: 1000 verifiers in 20 ms gave 10 lines (2189.9 verifiers/s)."""
    lines = _lines(monkeypatch, caplog, 1000, 0.00002)
    assert [m for _, m in lines] == [lines[-1][1]] and "1000/1000 verifiers (100%)" in lines[-1][1]


@pytest.mark.parametrize("step_s", [0.001, 0.003, 0.5])
def test_never_two_progress_lines_within_a_second(monkeypatch, caplog, step_s: float) -> None:
    lines = _lines(monkeypatch, caplog, 1000, step_s)
    times = [t for t, _ in lines]
    assert all(b - a >= 1.0 for a, b in zip(times, times[1:])), lines
    assert lines[-1][1].startswith("generation: 1000/1000")
    if step_s == 0.5:      # a slow stage still gets its line per 10 %
        assert len(lines) == 10


def test_rates_keep_the_digits_they_need() -> None:
    assert [rate_text(r) for r in (2189.9, 12.04, 0.0051, 0.000123)] == [
        "2190", "12.0", "0.0051", "0.00012"]
