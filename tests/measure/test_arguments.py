"""The table of the runner options and what is derived from it."""

from __future__ import annotations

import argparse
import typing

import pytest

from perf.errors import UsageError
from perf.measure.arguments import (
    MEASURING,
    OPTIONS_BY_NAME,
    PER_WORKER,
    RECORDING,
    RUNNER_DEFAULT,
    RUNNER_OPTIONS,
    WORKER_ONLY,
    add_runner_arguments,
    given_options,
    parse_runner_arguments,
    parsed_defaults,
)
from perf.measure.options import DEFAULT_BUDGET, RunOptions, check_runner_args
from perf.measure.protocol import worker_arguments

#: RunOptions fields that are not runner options
NOT_OPTIONS = {"given_budget"}


def make_parser():
    parser = argparse.ArgumentParser(prog="bench")
    add_runner_arguments(parser, DEFAULT_BUDGET, 1, 0, 0.1)
    return parser


def test_the_table_and_run_options_have_the_same_fields():
    assert [option.name for option in RUNNER_OPTIONS if option.name not in RunOptions._fields] == []
    assert set(RunOptions._fields) - NOT_OPTIONS == set(OPTIONS_BY_NAME)
    assert len(OPTIONS_BY_NAME) == len(RUNNER_OPTIONS)


@pytest.mark.parametrize("option", RUNNER_OPTIONS, ids=lambda option: option.name)
def test_the_table_and_run_options_agree_on_defaults(option):
    if option.default == RUNNER_DEFAULT:
        assert option.name not in RunOptions._field_defaults  # the budget: always completed
    else:
        assert RunOptions._field_defaults[option.name] == option.frozen_default


@pytest.mark.parametrize("option", RUNNER_OPTIONS, ids=lambda option: option.name)
def test_the_table_and_run_options_agree_on_types(option):
    hint = typing.get_type_hints(RunOptions)[option.name]
    if option.convert is None:
        assert hint is bool
    elif option.repeated or option.name == "inherit_environ":
        assert hint == typing.Tuple[str, ...]
    else:
        assert hint is not bool


def test_the_parser_declares_the_table_in_its_order():
    actions = [action for action in make_parser()._actions if action.dest != "help"]
    assert [action.dest for action in actions] == [option.name for option in RUNNER_OPTIONS]
    assert [tuple(action.option_strings) for action in actions] == [option.flags for option in RUNNER_OPTIONS]
    hidden = {action.dest for action in actions if action.help == argparse.SUPPRESS}
    assert hidden == {option.name for option in RUNNER_OPTIONS if option.worker == WORKER_ONLY}


def test_parsed_defaults_are_the_parser_defaults():
    assert parsed_defaults() == vars(make_parser().parse_args([]))


def test_the_options_set_per_worker_are_the_ones_the_parent_writes():
    per_worker = {option.name for option in RUNNER_OPTIONS if option.worker == PER_WORKER}
    assert per_worker == {"values", "warmups", "loops", "min_time"}
    options = RunOptions(3, 4, 5, 6, 0.5)
    arguments = worker_arguments(options, 0, 9, 6)
    written = {arguments[index].lstrip("-").replace("-", "_") for index in range(5, len(arguments), 2)}
    assert written == per_worker


def test_every_option_passed_on_reaches_the_worker_as_given(tmp_path):
    argv = ["-v", "--affinity", "0", "--clock", "cpu", "--profile", str(tmp_path / "p"), "--hook", "a", "--hook", "b"]
    parent = make_parser().parse_args(argv)
    check_runner_args(parent, DEFAULT_BUDGET, 1)
    worker = make_parser().parse_args(worker_arguments(RunOptions.from_namespace(parent), 0, 9, 6))
    passed = [option.name for option in RUNNER_OPTIONS if option.worker in (MEASURING, RECORDING)]
    assert [getattr(worker, name) for name in passed if name not in ("tracemalloc", "track_memory")] == [
        getattr(parent, name) for name in passed if name not in ("tracemalloc", "track_memory")
    ]
    for name in ("tracemalloc", "track_memory"):
        memory = make_parser().parse_args([f"--{name.replace('_', '-')}"])
        check_runner_args(memory, DEFAULT_BUDGET, 1)
        arguments = worker_arguments(RunOptions.from_namespace(memory), 0, 9, 6)
        assert getattr(make_parser().parse_args(arguments), name)


def test_given_options_are_checked_and_completed_as_parsed():
    given = given_options({"processes": 6, "values": 3, "min_time": 0.01, "hook": ("a",), "target_precision": 0.02})
    expected = vars(make_parser().parse_args(["-p", "6", "-n", "3", "--min-time", "0.01", "--hook", "a"]))
    expected["target_precision"] = 0.02
    assert given == expected
    assert given_options({"warmups": "auto", "python_names": ("a", "b"), "inherit_environ": ["X"]})["python_names"] == (
        "a",
        "b",
    )


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"procesess": 3}, "unknown runner option 'procesess' (did you mean processes?)"),
        ({"worker": True}, "unknown runner option 'worker'"),
        ({"processes": "3"}, "runner option processes: expected an integer, got '3'"),
        ({"processes": True}, "runner option processes: expected an integer, got True"),
        ({"values": 0}, "runner option values: must be >= 1, got 0"),
        ({"loops": -1}, "runner option loops: must be >= 0, got -1"),
        ({"min_time": 0}, "runner option min_time: must be a number of seconds > 0, got 0"),
        ({"fast": 1}, "runner option fast: expected True or False, got 1"),
        ({"target_precision": 1.5}, "runner option target_precision: must be a fraction between 0 and 1"),
        ({"clock": "process"}, "runner option clock: expected one of 'wall', 'cpu', got 'process'"),
        ({"affinity": "3-1"}, "runner option affinity: invalid CPU list '3-1'"),
        ({"hook": "a"}, "runner option hook: expected a list of strings, got 'a'"),
        ({"python_names": ("a",)}, "runner option python_names: expected two names"),
    ],
)
def test_given_options_errors(keywords, message):
    with pytest.raises(UsageError) as info:
        given_options(keywords)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_parse_runner_arguments_keeps_the_other_arguments():
    given, rest = parse_runner_arguments(["-p", "3", "--size", "5", "-v"], DEFAULT_BUDGET)
    assert (given["processes"], given["verbose"]) == (3, True)
    assert rest == ["--size", "5"]
    with pytest.raises(UsageError, match=r"^after --: argument -p/--processes: "):
        parse_runner_arguments(["-p", "0"], DEFAULT_BUDGET, error_prefix="after --: ")
