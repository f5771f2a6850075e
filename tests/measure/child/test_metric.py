"""The metric seam: what a worker measures, picked from a run's options."""

from __future__ import annotations

import pytest
from helpers import parse_options

from perf.measure.child.metric import METRICS, get_metric, metric_of
from perf.measure.child.sampling import Samples
from perf.measure.child.tasks import Task


@pytest.mark.parametrize(
    ("argv", "name", "unit", "timed", "witnessed"),
    [
        ([], "wall", "second", True, True),
        (["--clock", "cpu"], "cpu", "second", True, True),
        (["--track-memory"], "track-memory", "byte", False, False),
        (["--tracemalloc"], "tracemalloc", "byte", False, False),
    ],
)
def test_the_options_pick_the_metric(argv, name, unit, timed, witnessed):
    metric = metric_of(parse_options(argv, plan=False))
    assert (metric.name, metric.unit, metric.timed, metric.witnessed) == (name, unit, timed, witnessed)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_every_registered_metric_has_its_name(name):
    assert get_metric(name).name == name


def test_a_time_is_the_task_own_and_a_peak_is_tracked():
    task = Task("t", lambda loops: 0.25)
    assert get_metric("wall").measure(task.time_function, task)(3) == 0.25
    peak = get_metric("tracemalloc").measure(lambda loops: [0] * 100_000 and 0.0, task)
    assert peak(1) >= 100_000 * 8  # a list of 100,000 references, traced


def test_memory_peaks_are_stored_as_integers():
    samples = Samples(values=(4096.0,), warmups=((1, 8192.0),), loops=1, calibration_steps=0)
    finished = get_metric("track-memory").finish(samples)
    assert finished.values == (4096,) and type(finished.values[0]) is int
    assert finished.warmups == ((1, 8192),)


def test_the_worker_command_line_is_the_metric_s_to_wrap():
    assert get_metric("wall").command(["python", "bench.py"]) == ["python", "bench.py"]
