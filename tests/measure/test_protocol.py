"""The protocol between the parent and a worker: command line and pipe."""

from __future__ import annotations

import pytest

from perf.errors import WorkerError
from perf.measure.arguments import add_runner_arguments
from perf.measure.options import DEFAULT_BUDGET, RUNNER_OPTIONS, RunOptions
from perf.measure.protocol import LIST_ARGUMENT, decode_names, name_line, with_stderr, worker_arguments
from perf.measure.values import WORKER_ONLY


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
