"""The protocol between the parent and a worker: command line and pipe."""

from __future__ import annotations

import json
import os

import pytest

from perf.errors import WorkerError
from perf.measure.arguments import add_runner_arguments
from perf.measure.options import RUNNER_OPTIONS, RunOptions
from perf.measure.protocol import (
    DONE,
    LIST_ARGUMENT,
    PARENT,
    START,
    BatchSpec,
    Event,
    EventPipe,
    decode_events,
    decode_names,
    name_line,
    spec_argument,
    with_stderr,
    worker_arguments,
)
from perf.measure.values import DEFAULT_BUDGET, WORKER_ONLY
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.storage.files import dumps, loads_benchmark


def test_a_worker_reads_its_command_line_with_the_runner_parser():
    import argparse

    parser = argparse.ArgumentParser()
    add_runner_arguments(parser, DEFAULT_BUDGET, 1, 0, 0.1)
    args = parser.parse_args(
        [*worker_arguments(RunOptions(processes=3, values=4, warmups=0, loops=8, min_time=0.5), 2, 9, 8), LIST_ARGUMENT]
    )
    assert (args.worker, args.pipe, args.worker_task, args.worker_list) == (True, 9, 2, True)
    internal = {option.flags[0] for option in RUNNER_OPTIONS if option.worker == WORKER_ONLY}
    assert {"--worker", "--pipe", "--worker-task", LIST_ARGUMENT} <= internal


def test_names_round_trip():
    names = ["a", "b c", "é\n"]
    assert decode_names(b"".join(name_line(name) for name in names), "w", b"") == names


@pytest.mark.parametrize(("data", "message"), [(b"", "w sent no benchmark name"), (b"{\n", "w sent an invalid list")])
def test_bad_name_lists(data, message):
    with pytest.raises(WorkerError, match=message):
        decode_names(data, "w", b"")


def test_an_error_quotes_the_end_of_stderr():
    assert with_stderr("w failed", b"") == "w failed"
    assert with_stderr("w failed", b"ERROR: no\n") == "w failed; last lines of its stderr:\n    ERROR: no"


# -- batch workers -----------------------------------------------------------------------


def test_a_batch_spec_round_trip(tmp_path):
    spec = BatchSpec(["a.py::t[1]"], {"a.py::t[1]": 40}, ["/x/a.py"], 7)
    spec.save(str(tmp_path / "spec"))
    assert BatchSpec.load(str(tmp_path / "spec")) == spec
    assert spec_argument(str(tmp_path / "spec")) == f"--perf-worker={tmp_path / 'spec'}"


def sent(send):
    """The bytes the EventPipe wrote, after *send(pipe)*."""
    read_fd, write_fd = os.pipe()
    pipe = EventPipe(write_fd)
    send(pipe)
    pipe.file.close()
    with open(read_fd, "rb") as file:
        return file.read()


def test_events_are_json_lines_sent_as_they_happen():
    benchmark = Benchmark([Run((1.0, 2.0), metadata={"name": "a", "loops": 3}, collect_metadata=False)])

    def send(pipe):
        pipe.send(START, "a")
        pipe.send(DONE, "a", dumps(benchmark))
        pipe.send(PARENT, "b")

    data = sent(send)
    assert [json.loads(line)[0] for line in data.splitlines()] == [START, DONE, PARENT]
    events = decode_events(data)
    assert events[0] == Event(START, "a", "")
    assert loads_benchmark(events[1].detail).get_values() == (1.0, 2.0)


def test_events_stop_at_a_line_cut_by_a_crash():
    data = sent(lambda pipe: pipe.send(START, "a")) + b'["done", "a", "{\\"bench'
    assert decode_events(data) == [Event(START, "a")]
