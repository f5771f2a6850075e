"""The runner's command line: converters, checks, and worker command lines."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys

import pytest
from helpers import parse_options

from perf.cli.runner import ArgumentParser
from perf.errors import OutputExistsError, UsageError
from perf.measure import options
from perf.measure.arguments import (
    add_runner_arguments,
    cpu_list,
    percentage,
    positive_or_zero,
    seconds,
    strictly_positive,
)
from perf.measure.options import RunOptions
from perf.measure.parent import sides
from perf.measure.parent.sides import output_paths, side_labels
from perf.measure.protocol import worker_arguments as options_worker_arguments
from perf.measure.values import AUTO, DEFAULT_BUDGET, JIT_BUDGET, Budget, _integer, python_names, warmups_count
from perf.measure.values import names as comma_list


def make_parser(budget=DEFAULT_BUDGET, warmups=1, loops=0, min_time=0.1):
    parser = ArgumentParser(prog="bench")
    add_runner_arguments(parser, budget, warmups, loops, min_time)
    return parser


#: what a bad value raises: a converter's ValueError, argparse's error of a command-line type
BAD = (ValueError, argparse.ArgumentTypeError)


def worker_arguments(options, *arguments):
    """The worker command line of the checked *options*."""
    return options_worker_arguments(options, *arguments)


def parse(argv, *, budget=DEFAULT_BUDGET, warmups=1, loops=0, min_time=0.1, command=None):
    return parse_options(argv, budget=budget, warmups=warmups, loops=loops, min_time=min_time, mode=command or "script")


# -- converters ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("17", 17), ("0", 0), ("-3", -3), ("2^10", 1024), ("10^3", 1000), ("3^0", 1), (" 2^4", 16)],
)
def test_integer_accepts_plain_and_power_notation(text, expected):
    value = _integer(text)
    assert value == expected
    assert type(value) is int


@pytest.mark.parametrize("text", ["x", "", "1.5", "2^", "^3", "2^x", "2^1.5", "2^3^2"])
def test_integer_rejects_other_text(text):
    with pytest.raises(BAD, match=re.escape(f"invalid integer: {text!r}")):
        _integer(text)


@pytest.mark.parametrize("converter", [_integer, positive_or_zero, strictly_positive, warmups_count])
def test_negative_exponent_is_not_a_count(converter):
    with pytest.raises(BAD, match=re.escape("invalid integer: '2^-1'")):
        converter("2^-1")


def test_strictly_positive():
    assert strictly_positive("1") == 1
    assert strictly_positive("2^3") == 8
    for text in ("0", "-2", "0^5"):
        with pytest.raises(BAD, match=re.escape(f"must be >= 1, got {text!r}")):
            strictly_positive(text)
    with pytest.raises(BAD, match="invalid integer: 'one'"):
        strictly_positive("one")


def test_positive_or_zero():
    assert positive_or_zero("0") == 0
    assert positive_or_zero("2^5") == 32
    with pytest.raises(BAD, match=re.escape("must be >= 0, got '-1'")):
        positive_or_zero("-1")


def test_warmups_count():
    assert warmups_count("auto") == AUTO == "auto"
    assert warmups_count("0") == 0
    assert warmups_count("2^2") == 4
    with pytest.raises(BAD, match=re.escape("must be >= 0, got '-1'")):
        warmups_count("-1")
    with pytest.raises(BAD, match=re.escape("invalid integer: 'AUTO'")):
        warmups_count("AUTO")


@pytest.mark.parametrize(("text", "expected"), [("0.5", 0.5), ("1e-3", 1e-3), ("2", 2.0), ("1e-9", 1e-9)])
def test_seconds_accepts_positive_numbers(text, expected):
    assert seconds(text) == expected


@pytest.mark.parametrize("text", ["0", "-1", "-0.0", "inf", "nan", "-inf"])
def test_seconds_rejects_zero_negative_and_non_finite(text):
    with pytest.raises(BAD, match=re.escape(f"must be a number of seconds > 0, got {text!r}")):
        seconds(text)


def test_seconds_rejects_text():
    with pytest.raises(BAD, match=re.escape("invalid number of seconds: '1 s'")):
        seconds("1 s")


def test_cpu_list_returns_the_text_unchanged():
    assert cpu_list("0-3,7") == "0-3,7"
    assert cpu_list("5") == "5"


def test_cpu_list_errors():
    with pytest.raises(BAD, match=re.escape("invalid CPU list '3-1': invalid CPU range '3-1'")):
        cpu_list("3-1")
    with pytest.raises(BAD, match=re.escape("invalid CPU list 'a,b': ")):
        cpu_list("a,b")
    for text in ("", "  "):
        with pytest.raises(BAD, match=re.escape(f"empty CPU list: {text!r}")):
            cpu_list(text)


def test_comma_list_strips_and_drops_empty_items():
    assert comma_list("A, B,,C ") == ("A", "B", "C")
    assert comma_list("PATH") == ("PATH",)
    assert comma_list("") == ()
    assert comma_list(" , ") == ()


def test_python_names():
    assert python_names("ref:new") == ("ref", "new")
    assert python_names("a:b:c") == ("a", "b:c")
    for text in ("ref", ":new", "ref:", ":"):
        with pytest.raises(BAD, match=re.escape(f"expected REF_NAME:CHANGED_NAME, got {text!r}")):
            python_names(text)


# -- parsing: converters wired to the options --------------------------------------


def test_parser_defaults():
    args = make_parser(loops=7, min_time=0.25).parse_args([])
    assert args.loops == 7
    assert args.min_time == 0.25
    assert args.processes is None
    assert args.values is None
    assert args.warmups is None
    assert args.hook == []
    assert not args.worker
    assert args.pipe is None


def test_bad_option_value_is_a_usage_error():
    with pytest.raises(UsageError, match=re.escape("argument -p/--processes: must be >= 1, got '0'")):
        make_parser().parse_args(["-p", "0"])


def test_memory_options_are_mutually_exclusive():
    with pytest.raises(UsageError, match="argument --track-memory: not allowed with argument --tracemalloc"):
        make_parser().parse_args(["--tracemalloc", "--track-memory"])


def test_hook_is_repeatable():
    assert make_parser().parse_args(["--hook", "a", "--hook", "b"]).hook == ["a", "b"]


def test_converted_options():
    args = parse(["-l", "2^4", "--inherit-environ", "A,B", "--affinity", "0-1", "--python-names", "x:y",
                  "--compare-to", sys.executable])  # fmt: skip
    assert args.loops == 16
    assert args.inherit_environ == ("A", "B")
    assert args.affinity == "0-1"
    assert args.python_names == ("x", "y")


# -- budget presets -------------------------------------------------------------


def budget_of(args):
    return args.processes, args.values, args.warmups


def test_default_budget():
    assert budget_of(parse([])) == (24, 2, 1)
    assert budget_of(parse([], budget=JIT_BUDGET, warmups=AUTO)) == (6, 10, "auto")


def test_rigorous_doubles_processes():
    assert budget_of(parse(["--rigorous"])) == (48, 2, 1)


def test_fast_halves_processes_and_takes_two_thirds_of_values():
    assert budget_of(parse(["--fast"])) == (12, 2, 1)
    assert budget_of(parse(["--fast"], budget=JIT_BUDGET)) == (3, 6, 1)
    assert budget_of(parse(["--fast"], budget=Budget(4, 2))) == (3, 2, 1)


def test_debug_single_value():
    args = parse(["--debug-single-value", "-l", "100", "--min-time", "5"])
    assert budget_of(args) == (1, 1, 0)
    assert args.loops == 1
    assert args.min_time == 1e-9


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--fast", "-p", "7"], (7, 2, 1)),
        (["--fast", "-n", "9"], (12, 9, 1)),
        (["--rigorous", "-p", "5", "-n", "4"], (5, 4, 1)),
        (["--rigorous", "-w", "3"], (48, 2, 3)),
        (["--debug-single-value", "-p", "2", "-n", "5", "-w", "auto"], (2, 5, "auto")),
        (["-p", "1", "-n", "1", "-w", "0"], (1, 1, 0)),
    ],
)
def test_explicit_counts_win_over_presets(argv, expected):
    assert budget_of(parse(argv)) == expected


# -- verbosity ------------------------------------------------------------------


def test_pipe_forces_quiet_but_keeps_verbose():
    args = parse(["--worker", "--pipe", "5", "-v"])
    assert args.quiet is True
    assert args.verbose is True


def test_quiet_wins_over_verbose():
    args = parse(["-q", "-v"])
    assert args.quiet is True
    assert args.verbose is False


def test_verbose_alone():
    args = parse(["-v"])
    assert (args.quiet, args.verbose) == (False, True)


# -- calibration flags ------------------------------------------------------------


@pytest.mark.parametrize(
    "flag", ["--calibrate-loops", "--recalibrate-loops", "--calibrate-warmups", "--recalibrate-warmups"]
)
def test_calibration_flags_require_worker(flag):
    with pytest.raises(UsageError, match=re.escape(f"{flag} requires --worker")):
        parse([flag, "-l", "1"] if flag == "--recalibrate-loops" else [flag])


def test_calibration_flags_accepted_in_a_worker():
    assert parse(["--worker", "--calibrate-loops"]).calibrate_loops
    assert parse(["--worker", "--recalibrate-loops", "-l", "8"]).loops == 8
    assert parse(["--worker", "--calibrate-warmups", "-l", "8"]).calibrate_warmups


def test_calibrate_loops_with_loops_is_refused():
    with pytest.raises(UsageError, match=re.escape("--loops=N is incompatible with --calibrate-loops")):
        parse(["--worker", "--calibrate-loops", "-l", "5"])


def test_recalibrate_loops_needs_loops():
    with pytest.raises(UsageError, match=re.escape("--recalibrate-loops requires --loops=N")):
        parse(["--worker", "--recalibrate-loops"])


def test_worker_task_and_pipe_require_worker():
    with pytest.raises(UsageError, match=re.escape("--worker-task requires --worker")):
        parse(["--worker-task", "1"])
    with pytest.raises(UsageError, match=re.escape("--pipe requires --worker")):
        parse(["--pipe", "3"])


# -- output files ---------------------------------------------------------------


def test_output_existing_file_is_refused(tmp_path):
    path = tmp_path / "result.json"
    path.write_text("{}")
    with pytest.raises(OutputExistsError) as info:
        parse(["-o", str(path)])
    assert str(info.value) == f"{path}: the file already exists (use --append to add runs to it)"


def test_output_dangling_symlink_is_refused(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "missing.json")
    with pytest.raises(OutputExistsError, match="the file already exists"):
        parse(["-o", str(link)])


def test_output_new_file_is_accepted(tmp_path):
    path = tmp_path / "result.json"
    assert parse(["-o", str(path)]).output == str(path)
    assert not path.exists()


def test_output_into_a_missing_folder(tmp_path):
    path = tmp_path / "missing" / "result.json"
    with pytest.raises(UsageError) as info:
        parse(["-o", str(path)])
    assert str(info.value) == f"{path}: the folder {tmp_path / 'missing'} does not exist"


def test_output_relative_path_is_checked_against_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError) as info:
        parse(["-o", "sub/result.json"])
    assert str(info.value) == f"sub/result.json: the folder {tmp_path / 'sub'} does not exist"


def test_output_into_a_read_only_folder(tmp_path, monkeypatch):
    real_access = os.access
    monkeypatch.setattr(sides.os, "access", lambda path, mode: path != str(tmp_path) and real_access(path, mode))
    path = tmp_path / "result.json"
    with pytest.raises(UsageError) as info:
        parse(["-o", str(path)])
    assert str(info.value) == f"{path}: cannot write into the folder {tmp_path}"


def test_worker_with_a_pipe_does_not_check_output_files(tmp_path):
    path = tmp_path / "result.json"
    path.write_text("{}")
    assert parse(["--worker", "--pipe", "3", "-o", str(path)]).output == str(path)


def test_worker_run_in_place_refuses_an_existing_output_file(tmp_path):
    """--worker without --pipe writes -o itself: refused before it measures."""
    path = tmp_path / "result.json"
    path.write_text("{}")
    with pytest.raises(OutputExistsError) as info:
        parse(["--worker", "-o", str(path)])
    assert str(info.value) == f"{path}: the file already exists (use --append to add runs to it)"


def test_append_missing_file_is_accepted(tmp_path):
    path = tmp_path / "runs.json"
    assert parse(["--append", str(path)]).append == str(path)


def test_append_existing_readable_file_is_accepted(tmp_path):
    path = tmp_path / "runs.json"
    path.write_text("{}")
    assert parse(["--append", str(path)]).append == str(path)


def test_append_unreadable_file(tmp_path, monkeypatch):
    path = tmp_path / "runs.json"
    path.write_text("{}")
    real_access = os.access
    checked = []

    def access(target, mode):
        if os.fspath(target) == str(path):
            checked.append(mode)
            return False
        return real_access(target, mode)

    monkeypatch.setattr(sides.os, "access", access)  # chmod does not stop root
    with pytest.raises(UsageError) as info:
        parse(["--append", str(path)])
    assert str(info.value) == f"{path}: cannot read and write this file"
    assert checked == [os.R_OK | os.W_OK]


def test_append_into_a_missing_folder(tmp_path):
    path = tmp_path / "nope" / "runs.json"
    with pytest.raises(UsageError, match=re.escape(f"{path}: the folder {tmp_path / 'nope'} does not exist")):
        parse(["--append", str(path)])


def test_output_and_append_are_exclusive(tmp_path):
    with pytest.raises(UsageError, match=re.escape("--output and --append are mutually exclusive")):
        parse(["-o", str(tmp_path / "a.json"), "--append", str(tmp_path / "b.json")])


def test_labels_name_the_side_files(tmp_path):
    """-o FILE with --compare-to: FILE-LABEL.json, checked before the run."""
    pythons = []
    for folder in ("a", "b"):
        python = tmp_path / folder / "bin" / "python"
        python.parent.mkdir(parents=True)
        os.symlink(sys.executable, python)
        pythons.append(str(python))
    argv = ["--compare-to", pythons[0], "--python", pythons[1]]
    (tmp_path / "ab-b.json").write_text("{}")
    with pytest.raises(OutputExistsError) as info:
        parse(["-o", str(tmp_path / "ab.json"), *argv])
    assert str(info.value) == f"{tmp_path / 'ab-b.json'}: the file already exists (use --append to add runs to it)"
    args = parse(["--append", str(tmp_path / "ab.json"), *argv])
    assert side_labels(args) == ("a", "b")
    assert output_paths(args.append, side_labels(args)) == (str(tmp_path / "ab-a.json"), str(tmp_path / "ab-b.json"))
    args = parse(["--append", str(tmp_path / "ab.json"), *argv, "--python-names", "x:y"])
    assert side_labels(args) == ("x", "y")


def test_output_with_compare_to_checks_both_files(tmp_path):
    parse(["-o", str(tmp_path / "a.json"), "--compare-to", sys.executable])  # nothing there yet
    (tmp_path / "a-changed.json").write_text("{}")
    with pytest.raises(OutputExistsError) as info:
        parse(["-o", str(tmp_path / "a.json"), "--compare-to", sys.executable])
    assert str(info.value) == f"{tmp_path / 'a-changed.json'}: the file already exists (use --append to add runs to it)"


def test_profile_into_a_missing_folder(tmp_path):
    path = tmp_path / "missing" / "profile.out"
    with pytest.raises(UsageError, match=re.escape(f"{path}: the folder {tmp_path / 'missing'} does not exist")):
        parse(["--profile", str(path)])
    assert parse(["--profile", str(tmp_path / "profile.out")]).profile == str(tmp_path / "profile.out")


# -- other checks ---------------------------------------------------------------


def test_python_names_without_compare_to():
    with pytest.raises(UsageError) as info:
        parse(["--python-names", "a:b"])
    assert str(info.value) == "--python-names requires --compare-to"


def test_tracemalloc_with_command():
    with pytest.raises(UsageError) as info:
        parse(["--tracemalloc"], command="command")
    assert str(info.value) == "--tracemalloc cannot be used with python -m perf command (use --track-memory)"


def test_tracemalloc_outside_command_and_track_memory_with_command():
    assert parse(["--tracemalloc"]).tracemalloc
    assert parse(["--tracemalloc"], command="timeit").tracemalloc
    assert parse(["--track-memory"], command="command").track_memory


@pytest.mark.parametrize(
    ("option", "executable"),
    [("--python", "no-such-python-xyz"), ("--compare-to", "/nonexistent/bin/python"), ("--python", "./nope")],
)
def test_python_not_found(option, executable):
    with pytest.raises(UsageError) as info:
        parse([option, executable])
    assert str(info.value) == f"{option}: {executable}: no such executable"


def test_python_not_executable(tmp_path):
    path = tmp_path / "python"
    path.write_text("#!/bin/sh\n")
    path.chmod(0o644)
    with pytest.raises(UsageError, match=re.escape(f"--python: {path}: no such executable")):
        parse(["--python", str(path)])


def test_python_folder_is_not_an_executable(tmp_path):
    with pytest.raises(UsageError, match=re.escape(f"--python: {tmp_path}: no such executable")):
        parse(["--python", str(tmp_path)])


def test_python_is_made_absolute_and_keeps_symlinks(tmp_path, monkeypatch):
    link = tmp_path / "python-link"
    link.symlink_to(sys.executable)
    monkeypatch.chdir(tmp_path)
    args = parse(["--python", "./python-link", "--compare-to", str(link)])
    assert args.python == str(link)
    assert args.compare_to == str(link)


def test_python_found_on_path(tmp_path, monkeypatch):
    program = tmp_path / "mypython"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert parse(["--python", "mypython"]).python == str(program)


def test_python_defaults_to_this_interpreter():
    args = parse([])
    assert args.python == sys.executable
    assert args.compare_to is None


# -- worker command lines ----------------------------------------------------------


def test_worker_arguments_of_the_calibrating_worker():
    args = parse([])
    assert worker_arguments(args, 0, 7, 0) == [
        "--worker", "--pipe", "7", "--worker-task", "0", "--values", "2", "--min-time", "0.1",
        "--loops", "0", "--warmups", "1",
    ]  # fmt: skip


def test_worker_arguments_of_a_later_worker_with_every_option(tmp_path):
    profile = str(tmp_path / "p.out")
    args = parse(["-n", "5", "-w", "auto", "--min-time", "0.025", "-v", "--affinity", "0",
                  "--tracemalloc", "--profile", profile, "--hook", "perf_record", "--hook", "pystats"])  # fmt: skip
    assert worker_arguments(args, 3, 11, 1024) == [
        "--worker", "--pipe", "11", "--worker-task", "3", "--values", "5", "--min-time", "0.025",
        "--loops", "1024", "--warmups", "auto", "-v", "--affinity=0", "--tracemalloc",
        "--profile", profile, "--hook", "perf_record", "--hook", "pystats",
    ]  # fmt: skip


def test_worker_arguments_leave_parent_only_options_out(tmp_path):
    args = parse(["--track-memory", "-q", "--copy-env", "--inherit-environ", "A", "--timeout", "5", "--fast",
                  "-o", str(tmp_path / "out.json"), "--no-locale", "-d", "-m", "-g", "-t"])  # fmt: skip
    assert worker_arguments(args, 1, 4, 16) == [
        "--worker", "--pipe", "4", "--worker-task", "1", "--values", "2", "--min-time", "0.1",
        "--loops", "16", "--warmups", "1", "--track-memory",
    ]  # fmt: skip


def test_worker_arguments_round_trip():
    parent = parse(["-n", "4", "-w", "2", "--min-time", "0.3", "-v", "--affinity", "0"])
    worker = parse(worker_arguments(parent, 2, 9, 50))
    assert worker.worker
    assert (worker.pipe, worker.worker_task) == (9, 2)
    assert (worker.values, worker.warmups, worker.loops, worker.min_time) == (4, 2, 50, 0.3)
    assert worker.verbose
    assert worker.quiet
    assert worker.affinity == "0"


def test_calibrating_worker_round_trip():
    worker = parse(worker_arguments(parse([]), 0, 9, 0))
    assert worker.loops == 0
    assert not worker.calibrate_loops


def test_calibrating_worker_round_trip_with_a_loops_default():
    """A script's Runner(loops=5) default must not apply to a calibrating worker."""
    parent = parse(["-l", "0"], loops=5)
    assert parent.loops == 0
    arguments = worker_arguments(parent, 0, 9, 0)
    assert arguments[arguments.index("--loops") + 1] == "0"
    assert parse(arguments, loops=5).loops == 0


@pytest.mark.parametrize(
    "reference, message",
    [
        ("nosuchprogram -x", "--compare-to: nosuchprogram: program not found"),
        ("python3 'unclosed", "--compare-to: python3 'unclosed: No closing quotation"),
        ("  ", "--compare-to: the reference is empty"),
    ],
)
def test_reference_command_of_command_compare_to(reference, message):
    with pytest.raises(UsageError) as info:
        parse(["--compare-to", reference], command="command")
    assert str(info.value) == message


def test_reference_command_is_kept_as_written():
    args = parse(["--compare-to", "true --flag"], command="command")
    assert args.compare_to == "true --flag"


@pytest.mark.parametrize("text, expected", [("1%", 0.01), ("0.5", 0.005), (" 2 % ", 0.02)])
def test_percentage(text, expected):
    assert percentage(text) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["0", "100%", "-1", "abc", "%"])
def test_bad_percentage(text):
    with pytest.raises(argparse.ArgumentTypeError):
        percentage(text)


def test_target_precision_bounds_and_defaults():
    args = parse(["--target-precision", "1%"])
    assert (args.target_precision, args.min_processes, args.max_processes) == (0.01, 10, 100)
    assert args.processes == 100  # the most processes a run may take
    args = parse(["--target-precision", "2", "--min-processes", "3", "--max-processes", "8"])
    assert (args.min_processes, args.max_processes, args.processes) == (3, 8, 8)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--target-precision", "1", "-p", "4"], "--target-precision replaces -p/--processes"),
        (["--target-precision", "1", "--min-processes", "1"], "--min-processes must be at least 2"),
        (
            ["--target-precision", "1", "--min-processes", "9", "--max-processes", "8"],
            "--max-processes (8) must be at least --min-processes (9)",
        ),
        (["--min-processes", "3"], "--min-processes requires --target-precision"),
        (["--max-processes", "3"], "--max-processes requires --target-precision"),
    ],
)
def test_target_precision_errors(argv, message):
    with pytest.raises(UsageError) as info:
        parse(argv)
    assert str(info.value).startswith(message)


def test_target_precision_is_not_forwarded_to_workers():
    args = parse(["--target-precision", "1"])
    assert not any("precision" in arg or "processes" in arg for arg in worker_arguments(args, 0, 5, 100))


def test_adaptive_values_errors():
    with pytest.raises(UsageError, match=re.escape("--adaptive-values replaces -n/--values")):
        parse(["--adaptive-values", "-n", "3"])
    assert parse(["--adaptive-values"]).values == DEFAULT_BUDGET.values  # the pilot's
    assert parse(["--adaptive-values", "--compare-to", sys.executable]).adaptive_values  # each side has its pilot


def test_worker_list_requires_worker():
    with pytest.raises(UsageError, match=re.escape("--worker-list requires --worker")):
        parse(["--worker-list"])
    assert parse(["--worker", "--worker-list"]).worker_list


def test_worker_arguments_with_chosen_values():
    args = parse(["-n", "3"])
    assert worker_arguments(args, 0, 5, 100)[5:7] == ["--values", "3"]
    assert worker_arguments(args, 0, 5, 100, 7)[5:7] == ["--values", "7"]


# -- --clock ------------------------------------------------------------------------


def test_clock_is_wall_by_default_and_left_out_of_worker_command_lines():
    args = parse([])
    assert args.clock == "wall"
    assert "--clock" not in worker_arguments(args, 0, 7, 0)


@pytest.mark.parametrize("command", [None, "timeit"])
def test_cpu_clock_reaches_the_workers(command):
    parent = parse(["--clock", "cpu"], command=command)
    arguments = worker_arguments(parent, 1, 4, 16)
    assert arguments[-2:] == ["--clock", "cpu"]
    assert parse(arguments, command=command).clock == "cpu"


def test_unknown_clock_is_a_usage_error():
    with pytest.raises(UsageError) as info:
        make_parser().parse_args(["--clock", "process"])
    assert str(info.value) == "argument --clock: invalid choice: 'process' (choose from 'wall', 'cpu')"


def test_cpu_clock_with_command():
    with pytest.raises(UsageError) as info:
        parse(["--clock", "cpu"], command="command")
    assert str(info.value) == (
        "--clock cpu cannot be used with python -m perf command: the program runs in another process, whose CPU "
        "time the worker's thread clock does not count"
    )
    assert parse(["--clock", "wall"], command="command").clock == "wall"


@pytest.mark.parametrize("option", ["--track-memory", "--tracemalloc"])
def test_cpu_clock_with_memory_values(option):
    with pytest.raises(UsageError) as info:
        parse(["--clock", "cpu", option])
    assert str(info.value) == f"--clock cpu cannot be used with {option}: the values are memory peaks, not times"


def test_cpu_clock_missing_here(monkeypatch):
    from perf.measure.child import clock

    monkeypatch.delitem(clock.CLOCKS, "cpu")
    with pytest.raises(UsageError) as info:
        parse(["--clock", "cpu"])
    assert str(info.value) == "--clock cpu: this Python has no time.thread_time()"


# -- RunOptions.create: the options without a command line --------------------------------


@pytest.mark.parametrize(
    ("keywords", "argv"),
    [
        ({}, []),
        ({"fast": True}, ["--fast"]),
        ({"rigorous": True, "values": 4}, ["--rigorous", "-n", "4"]),
        ({"debug_single_value": True}, ["--debug-single-value"]),
        ({"target_precision": 0.02, "max_processes": 40}, ["--target-precision", "2", "--max-processes", "40"]),
        (
            {"warmups": "auto", "loops": 8, "clock": "cpu", "quiet": True},
            ["-w", "auto", "-l", "8", "--clock", "cpu", "-q"],
        ),
        ({"inherit_environ": ["A", "B"], "processes": None}, ["--inherit-environ", "A,B"]),
    ],
)
def test_create_applies_the_defaults_presets_and_checks_of_the_command_line(keywords, argv):
    from perf.collect.python import python_has_jit
    from perf.measure.options import check_options

    given = RunOptions.parsed(vars(make_parser().parse_args(argv)))
    expected = check_options(given, "script", options.GivenBudget(), jit=python_has_jit())
    assert RunOptions.create(**keywords) == expected


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"procs": 3}, "unknown runner option 'procs' (did you mean processes?)"),
        ({"processes": 0}, "runner option processes: must be >= 1, got 0"),
        ({"target_precision": 0.01, "processes": 4}, "--target-precision replaces -p/--processes"),
        ({"python_names": ("a", "b")}, "--python-names requires --compare-to"),
        ({"output": "a.json", "append": "b.json"}, "--output and --append are mutually exclusive"),
        ({"hook": ["no_such_hook"]}, "--hook: unknown hook 'no_such_hook'"),
    ],
)
def test_create_errors_are_one_line_usage_errors(keywords, message):
    with pytest.raises(UsageError) as info:
        RunOptions.create(**keywords)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_create_with_the_mode_of_command():
    if importlib.util.find_spec("_tracemalloc") is None:
        pytest.skip("no tracemalloc on this Python (PyPy)")
    with pytest.raises(UsageError, match="--tracemalloc cannot be used with python -m perf command"):
        RunOptions.create(mode="command", tracemalloc=True)
    assert RunOptions.create(mode="timeit", tracemalloc=True).tracemalloc
