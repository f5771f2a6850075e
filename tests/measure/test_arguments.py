"""The one declaration of the runner options, and what is derived from it."""

from __future__ import annotations

import argparse
import typing

import pytest
from helpers import parse_options

from perf.errors import UsageError
from perf.measure.arguments import add_runner_arguments, parse_runner_arguments
from perf.measure.options import OPTIONS_BY_NAME, RUNNER_OPTIONS, RunOptions, given_options
from perf.measure.protocol import worker_arguments
from perf.measure.values import DEFAULT_BUDGET, MEASURING, PER_WORKER, RECORDING, WORKER_ONLY


def make_parser():
    parser = argparse.ArgumentParser(prog="bench")
    add_runner_arguments(parser, DEFAULT_BUDGET, 1, 0, 0.1)
    return parser


def test_every_field_but_the_budgets_is_an_option():
    assert [*OPTIONS_BY_NAME, "given_budget", "budgets", "precision_default"] == list(RunOptions._fields)


@pytest.mark.parametrize("option", RUNNER_OPTIONS, ids=lambda option: option.name)
def test_a_switch_is_a_bool_and_a_list_a_tuple(option):
    hint = typing.get_type_hints(RunOptions)[option.name]
    if option.switch:
        assert hint is bool
    elif option.repeated or option.name == "inherit_environ":
        assert hint == typing.Tuple[str, ...]
    else:
        assert hint is not bool


def test_the_parser_declares_the_options_in_their_order():
    actions = [action for action in make_parser()._actions if action.dest != "help"]
    assert [action.dest for action in actions] == [option.name for option in RUNNER_OPTIONS]
    assert [tuple(action.option_strings) for action in actions] == [option.flags for option in RUNNER_OPTIONS]
    hidden = {action.dest for action in actions if action.help == argparse.SUPPRESS}
    assert hidden == {option.name for option in RUNNER_OPTIONS if option.worker == WORKER_ONLY}


def test_an_empty_command_line_gives_the_defaults_of_keywords():
    assert RunOptions.parsed(vars(make_parser().parse_args([]))) == RunOptions.parsed({})


def test_the_options_set_per_worker_are_the_ones_the_parent_writes():
    per_worker = {option.name for option in RUNNER_OPTIONS if option.worker == PER_WORKER}
    assert per_worker == {"values", "warmups", "loops", "min_time"}
    options = RunOptions(processes=3, values=4, warmups=5, loops=6, min_time=0.5)
    arguments = worker_arguments(options, 0, 9, 6)
    written = {arguments[index].lstrip("-").replace("-", "_") for index in range(5, len(arguments), 2)}
    assert written == per_worker


def test_every_option_passed_on_reaches_the_worker_as_given(tmp_path):
    argv = [
        "-v",
        "--affinity",
        "0",
        "--clock",
        "cpu",
        "--profile",
        str(tmp_path / "p"),
        "--hook",
        "perf_record",
        "--hook",
        "pystats",
    ]
    parent = parse_options(argv, plan=False)
    worker = parse_options(worker_arguments(parent, 0, 9, 6), plan=False)
    passed = [option.name for option in RUNNER_OPTIONS if option.worker in (MEASURING, RECORDING)]
    assert [getattr(worker, name) for name in passed] == [getattr(parent, name) for name in passed]
    for name in ("tracemalloc", "track_memory"):
        memory = parse_options([f"--{name.replace('_', '-')}"], plan=False)
        assert getattr(parse_options(worker_arguments(memory, 0, 9, 6), plan=False), name)


def test_keywords_give_the_options_of_the_same_command_line():
    given = given_options({"processes": 6, "values": 3, "min_time": 0.01, "hook": ("a",), "target_precision": 0.02})
    argv = ["-p", "6", "-n", "3", "--min-time", "0.01", "--hook", "a", "--target-precision", "2%"]
    assert RunOptions.parsed(given) == RunOptions.parsed(vars(make_parser().parse_args(argv)))
    keywords = {"warmups": "auto", "python_names": ("a", "b"), "inherit_environ": ["X"]}
    argv = ["-w", "auto", "--python-names", "a:b", "--inherit-environ", "X"]
    assert RunOptions.parsed(given_options(keywords)) == RunOptions.parsed(vars(make_parser().parse_args(argv)))


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"procesess": 3}, "unknown runner option 'procesess' (did you mean processes?)"),
        ({"worker": True}, "unknown runner option 'worker'"),
        ({"processes": "x"}, "runner option processes: invalid integer: 'x'"),
        ({"processes": True}, "runner option processes: expected an integer, got True"),
        ({"values": 0}, "runner option values: must be >= 1, got 0"),
        ({"loops": -1}, "runner option loops: must be >= 0, got -1"),
        ({"min_time": 0}, "runner option min_time: must be a number of seconds > 0, got 0"),
        ({"fast": 1}, "runner option fast: expected True or False, got 1"),
        ({"target_precision": 1.5}, "runner option target_precision: must be a fraction between 0 and 1"),
        ({"clock": "process"}, "runner option clock: expected one of 'wall', 'cpu', got 'process'"),
        ({"affinity": "3-1"}, "runner option affinity: invalid CPU list '3-1'"),
        ({"hook": 3}, "runner option hook: expected a list of strings, got 3"),
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
