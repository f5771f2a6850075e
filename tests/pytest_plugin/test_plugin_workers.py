"""perf.pytest_plugin.workers: the workers' pytest command line, and the worker side's events."""

from __future__ import annotations

import os
import sys

import pytest

from perf.measure.protocol import ERROR, LISTED, BatchSpec, Event, decode_events
from perf.pytest_plugin.workers import WorkerRecorder, pytest_command, worker_arguments


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        (["-x", "tests"], ["tests"]),
        (["-xvs", "-k", "fast"], ["-vs", "-k", "fast"]),
        (["-x", "-q"], ["-q"]),
        (["-kx"], ["-kx"]),  # -k's value, not -x
        (["--pdb", "--lf", "--maxfail", "2", "--maxfail=3", "-v"], ["-v"]),
        (["--junitxml", "out.xml", "--basetemp=/tmp/b", "t.py"], ["t.py"]),
        (
            ["--benchmark-json", "x.json", "--perf-budget", "fast"],
            ["--benchmark-json", "x.json", "--perf-budget", "fast"],
        ),
    ],
)
def test_worker_arguments(given, kept):
    assert worker_arguments(given) == kept


def test_each_worker_has_its_own_basetemp_and_cache():
    command = pytest_command(["-x", "tests"], xdist=False, cache=True)
    assert command("/tmp/w1") == [
        sys.executable,
        "-m",
        "pytest",
        "tests",
        "--basetemp=/tmp/w1.tmp",
        "--override-ini=cache_dir=/tmp/w1.cache",
    ]
    assert pytest_command([], xdist=True, cache=False)("/tmp/w2")[-2:] == ["-n0", "--basetemp=/tmp/w2.tmp"]


def test_a_worker_sends_its_events_on_the_parent_pipe():
    read_fd, write_fd = os.pipe()
    recorder = WorkerRecorder(BatchSpec(["a", "b"], {"b": 7}, ["/x/a.py"], write_fd))
    assert recorder.wanted == {"a", "b"}
    recorder.pipe.send(LISTED, "a", "/x/a.py")
    try:
        1 / 0  # noqa: B018
    except ZeroDivisionError as exc:
        recorder.failed("b", exc)
    recorder.pipe.file.close()
    with open(read_fd, "rb") as file:
        events = decode_events(file.read())
    assert events[0] == Event(LISTED, "a", "/x/a.py")
    assert (events[1].kind, events[1].test) == (ERROR, "b")
    assert events[1].detail.startswith("it failed in a worker process:\nTraceback (most recent call last):")
    assert events[1].detail.splitlines()[-1] == "ZeroDivisionError: division by zero"
