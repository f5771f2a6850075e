"""What the runner prints: progress on stderr, verbose samples."""

from __future__ import annotations

import io

import pytest

from perf.cli.display import ProgressLine, _format_left, sample_printer, stop_line
from perf.measure.child.metric import get_metric
from perf.measure.child.tasks import Task
from perf.measure.parent.saving import PartialSave
from perf.measure.parent.schedule import Progress
from perf.measure.parent.workers import WorkerOutput
from perf.model.benchmark import Benchmark
from perf.model.run import Run

CLEAR = "\r\x1b[K"


class FakeStream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self.tty = tty
        self.flushes = 0

    def isatty(self):
        return self.tty

    def flush(self):
        self.flushes += 1
        super().flush()


BENCHMARK = Benchmark([Run([1e-3], metadata={"name": "bench"}, collect_metadata=False)])


def progress(done, total=3, *, elapsed=2.0, stderr="", worker_elapsed=0.5, name="bench"):
    return Progress(name, done, total, WorkerOutput(BENCHMARK, stderr, worker_elapsed), elapsed)


# -- not a terminal: dots --------------------------------------------------------------


def test_dots_on_a_non_tty_stream():
    stream = FakeStream(tty=False)
    line = ProgressLine(quiet=False, stream=stream)
    for done in (1, 2, 3):
        line.update(progress(done))
    assert stream.getvalue() == "..."
    assert stream.flushes == 3
    line.close()
    assert stream.getvalue() == "...\n"


def test_close_without_progress_writes_nothing():
    stream = FakeStream(tty=False)
    line = ProgressLine(quiet=False, stream=stream)
    line.close()
    line.close()
    assert stream.getvalue() == ""


def test_close_twice_ends_the_line_once():
    stream = FakeStream(tty=False)
    line = ProgressLine(quiet=False, stream=stream)
    line.update(progress(1))
    line.close()
    line.close()
    assert stream.getvalue() == ".\n"


def test_worker_stderr_is_forwarded_between_dots():
    stream = FakeStream(tty=False)
    line = ProgressLine(quiet=False, stream=stream)
    line.update(progress(1))
    line.update(progress(2, stderr="a warning"))
    line.update(progress(3, stderr="two\nlines\n"))
    line.close()
    assert stream.getvalue() == ".\na warning\n.\ntwo\nlines\n.\n"


def test_blank_worker_stderr_is_not_forwarded():
    stream = FakeStream(tty=False)
    line = ProgressLine(quiet=False, stream=stream)
    line.update(progress(1, stderr=" \n\n"))
    assert stream.getvalue() == "."


def test_first_worker_stderr_needs_no_line_break():
    stream = FakeStream(tty=False)
    line = ProgressLine(quiet=False, stream=stream)
    line.update(progress(1, stderr="early\n"))
    assert stream.getvalue() == "early\n."


# -- a terminal: one line rewritten ---------------------------------------------------


def test_tty_line_with_time_left():
    stream = FakeStream(tty=True)
    line = ProgressLine(quiet=False, stream=stream)
    line.update(progress(1, elapsed=2.0))  # 2 s per process, 2 left
    assert stream.getvalue() == CLEAR + "bench: 1/3 processes, 4 s left"
    line.update(progress(2, elapsed=50.0))  # 25 s per process, 1 left
    assert stream.getvalue().endswith(CLEAR + "bench: 2/3 processes, 25 s left")
    line.update(progress(3, elapsed=60.0))
    assert stream.getvalue().endswith(CLEAR + "bench: 3/3 processes")
    line.close()
    assert stream.getvalue() == (
        CLEAR + "bench: 1/3 processes, 4 s left"
        + CLEAR + "bench: 2/3 processes, 25 s left"
        + CLEAR + "bench: 3/3 processes"
        + CLEAR
    )  # fmt: skip


def test_tty_line_with_minutes_left_and_a_prefix():
    stream = FakeStream(tty=True)
    line = ProgressLine(quiet=False, prefix="[ref] ", stream=stream)
    line.update(progress(2, total=20, elapsed=15.0, name="telco"))  # 7.5 s x 18
    assert stream.getvalue() == CLEAR + "[ref] telco: 2/20 processes, 2 min 15 s left"


def test_tty_worker_stderr_clears_the_line_first():
    stream = FakeStream(tty=True)
    line = ProgressLine(quiet=False, stream=stream)
    line.update(progress(1, elapsed=1.0))
    line.update(progress(2, elapsed=2.0, stderr="warning: slow"))
    assert stream.getvalue() == (
        CLEAR + "bench: 1/3 processes, 2 s left"
        + CLEAR + "warning: slow\n"
        + CLEAR + "bench: 2/3 processes, 1 s left"
    )  # fmt: skip


def test_a_line_of_the_callers_own():
    """history record writes its own line (the round, the commit, about how
    long is left); a dot per worker when stderr is not a terminal."""
    stream = FakeStream(tty=True)
    line = ProgressLine(quiet=False, stream=stream)
    line.show("round 1/6 (94b8317318): 2/24 processes")
    line.show("round 3/6 (bd5047ed89): 9/24 processes, about 10 s left", stderr="warning: slow")
    line.close()
    assert stream.getvalue() == (
        CLEAR + "round 1/6 (94b8317318): 2/24 processes"
        + CLEAR + "warning: slow\n"
        + CLEAR + "round 3/6 (bd5047ed89): 9/24 processes, about 10 s left"
        + CLEAR
    )  # fmt: skip
    dots = FakeStream(tty=False)
    line = ProgressLine(quiet=False, stream=dots)
    line.show("round 1/6 (94b8317318): 2/24 processes")
    line.show("round 1/6 (94b8317318): 3/24 processes")
    line.close()
    assert dots.getvalue() == "..\n"
    quiet = FakeStream(tty=True)
    ProgressLine(quiet=True, stream=quiet).show("round 1/6 (94b8317318): 2/24 processes", stderr="warning")
    assert quiet.getvalue() == "warning\n"


def test_stream_defaults_to_stderr(capsys):
    line = ProgressLine(quiet=False)
    line.update(progress(1))
    line.close()
    captured = capsys.readouterr()
    assert captured.err == ".\n"
    assert captured.out == ""


# -- verbose and quiet ----------------------------------------------------------------


def test_verbose_prints_one_line_per_worker_on_stdout(capsys):
    stream = FakeStream(tty=True)
    line = ProgressLine(quiet=False, prefix="[new] ", stream=stream, verbose=True)
    line.update(progress(1, worker_elapsed=1.234))
    line.update(progress(2, worker_elapsed=0.5))
    line.close()
    assert capsys.readouterr().out == "[new] Worker 1/3: 1.23 s\n\n[new] Worker 2/3: 0.50 s\n\n"
    assert stream.getvalue() == ""


def test_verbose_still_forwards_stderr(capsys):
    stream = FakeStream(tty=False)
    line = ProgressLine(quiet=False, stream=stream, verbose=True)
    line.update(progress(1, stderr="note"))
    assert stream.getvalue() == "note\n"
    assert capsys.readouterr().out == "Worker 1/3: 0.50 s\n\n"


@pytest.mark.parametrize("tty", [False, True])
def test_quiet_prints_no_progress(tty, capsys):
    stream = FakeStream(tty=tty)
    line = ProgressLine(quiet=True, stream=stream, verbose=True)
    line.update(progress(1))
    line.update(progress(2))
    line.close()
    assert stream.getvalue() == ""
    assert capsys.readouterr().out == ""


def test_quiet_still_forwards_worker_stderr():
    stream = FakeStream(tty=False)
    line = ProgressLine(quiet=True, stream=stream)
    line.update(progress(1, stderr="DeprecationWarning: x"))
    line.close()
    assert stream.getvalue() == "DeprecationWarning: x\n"


# -- _format_left -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (0, "0 s"),
        (4.4, "4 s"),
        (59.4, "59 s"),
        (60, "1 min 00 s"),
        (61, "1 min 01 s"),
        (125.4, "2 min 05 s"),
        (3599, "59 min 59 s"),
        (3600, "1 h 00 min"),
        (3660, "1 h 01 min"),
        (7325, "2 h 02 min"),
        (3599.6, "1 h 00 min"),
        (100 * 3600, "100 h 00 min"),
    ],
)
def test_format_left(seconds, expected):
    assert _format_left(seconds) == expected


@pytest.mark.parametrize("seconds", [59.5, 59.9])
def test_format_left_just_below_a_minute(seconds):
    assert _format_left(seconds) == "1 min 00 s"


WALL = get_metric("wall")


# -- sample_printer -----------------------------------------------------------------


def test_sample_printer_lines(capsys):
    on_sample = sample_printer(Task("bench", lambda loops: 0.0), WALL)
    on_sample("calibration", 1, 2e-3)
    on_sample("calibration", 10, 0.015)
    on_sample("warmup", 10, 0.012)
    on_sample("value", 10, 0.011)
    on_sample("value", 10, 0.0105)
    assert capsys.readouterr().out.splitlines() == [
        "Calibration 1: 2.00 ms (loops: 1, raw: 2.00 ms)",
        "Calibration 2: 1.50 ms (loops: 10, raw: 15.0 ms)",
        "Warmup 1: 1.20 ms (loops: 10, raw: 12.0 ms)",
        "Value 1: 1.10 ms (loops: 10, raw: 11.0 ms)",
        "Value 2: 1.05 ms (loops: 10, raw: 10.5 ms)",
    ]


def test_sample_printer_divides_by_inner_loops(capsys):
    on_sample = sample_printer(Task("bench", lambda loops: 0.0, inner_loops=4), WALL)
    on_sample("value", 2, 8e-3)
    assert capsys.readouterr().out == "Value 1: 1.00 ms (loops: 2, raw: 8.00 ms)\n"


def test_a_peak_of_memory_is_not_divided_by_inner_loops(capsys):
    on_sample = sample_printer(Task("bench", lambda loops: 0.0, inner_loops=4), get_metric("track-memory"))
    on_sample("value", 1, 8192)
    assert capsys.readouterr().out == "Value 1: 8192 bytes (loops: 1, raw: 8192 bytes)\n"


def test_sample_printers_count_separately(capsys):
    first = sample_printer(Task("a", lambda loops: 0.0), WALL)
    second = sample_printer(Task("b", lambda loops: 0.0), WALL)
    first("value", 1, 1.0)
    first("value", 1, 1.0)
    second("value", 1, 1.0)
    assert [line.split(":")[0] for line in capsys.readouterr().out.splitlines()] == ["Value 1", "Value 2", "Value 1"]


# -- what a stopped run saved ----------------------------------------------------------


@pytest.mark.parametrize(
    ("saved", "expected"),
    [
        (
            PartialSave("t.json", [], [("timeit", 8, 24)], [], []),
            "Interrupted: saved to t.json: timeit (8 of 24 processes, marked incomplete)",
        ),
        (
            PartialSave("s.json", ["a"], [("b", 1, 3)], ["c", "d"], []),
            "Interrupted: saved to s.json: a (complete), b (1 of 3 processes, marked incomplete); not run: c, d",
        ),
        (
            PartialSave("", [], [("timeit", 8, 24)], [], []),
            "Interrupted: nothing was saved (no -o): timeit (8 of 24 processes)",
        ),
        (PartialSave("t.json", [], [], ["timeit"], []), "Interrupted before any worker finished: nothing was saved"),
    ],
)
def test_stop_line_says_what_was_saved_and_what_was_not(saved, expected):
    assert stop_line(saved, "Interrupted") == expected
