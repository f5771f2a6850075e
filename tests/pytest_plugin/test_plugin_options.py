"""perf.pytest_plugin.options: pytest-benchmark's option syntax, mark checks and compare-fail checks."""

from __future__ import annotations

import argparse
import time

import pytest

from perf.errors import UsageError
from perf.pytest_plugin import options as opts
from perf.pytest_plugin.options import FailCheck, parse_fail_expression


def settings(**changes):
    base = opts.Settings(
        group=None,
        min_time=0.000005,
        max_time=1.0,
        min_rounds=5,
        timer=time.perf_counter,
        disable_gc=False,
        warmup=None,
        warmup_iterations=100000,
    )
    return base._replace(**changes)


@pytest.mark.parametrize(("text", "seconds"), [("0.000005", 0.000005), ("1", 1.0), ("1e-3", 0.001), ("0", 0.0)])
def test_seconds(text, seconds):
    assert opts.parse_seconds(text) == seconds


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bogus", "Invalid decimal value 'bogus'"),
        ("-1", "Invalid decimal value '-1': must be a number of seconds >= 0"),
        ("nan", "Invalid decimal value 'nan': must be a number of seconds >= 0"),
        ("inf", "Invalid decimal value 'inf': must be a number of seconds >= 0"),
    ],
)
def test_bad_seconds(text, message):
    with pytest.raises(argparse.ArgumentTypeError) as error:
        opts.parse_seconds(text)
    assert str(error.value) == message


def test_positive_int():
    assert opts.parse_positive_int("3") == 3
    for text, message in (
        ("0", "'0' must be at least 1"),
        ("-2", "'-2' must be at least 1"),
        ("x", "Invalid integer 'x'"),
    ):
        with pytest.raises(argparse.ArgumentTypeError) as error:
            opts.parse_positive_int(text)
        assert str(error.value) == message


def test_timer_is_imported_from_its_dotted_name():
    assert opts.parse_timer("time.process_time") is time.process_time
    assert opts.parse_timer("pep418.perf_counter") is time.perf_counter  # pytest-benchmark's old alias
    with pytest.raises(argparse.ArgumentTypeError, match="dotted form"):
        opts.parse_timer("perf_counter")
    with pytest.raises(argparse.ArgumentTypeError, match="cannot import"):
        opts.parse_timer("time.no_such_clock")
    with pytest.raises(argparse.ArgumentTypeError, match="not callable"):
        opts.parse_timer("time.timezone")


@pytest.mark.parametrize(("text", "value"), [("auto", None), ("on", True), ("yes", True), ("off", False), ("0", False)])
def test_warmup(text, value):
    assert opts.parse_warmup(text) is value


def test_bad_warmup():
    with pytest.raises(argparse.ArgumentTypeError, match="auto, on or off"):
        opts.parse_warmup("sometimes")


def test_percent():
    assert opts.parse_percent("5") == 5.0
    assert opts.parse_percent("2.5%") == 2.5
    assert opts.parse_percent("0") == 0.0
    for text, message in (
        ("-1", "'-1': the percentage must be between 0 and 1000"),
        ("x%", "'x%' is not a percentage"),
        ("1000", "'1000': the percentage must be between 0 and 1000"),
    ):
        with pytest.raises(argparse.ArgumentTypeError) as error:
            opts.parse_percent(text)
        assert str(error.value) == message


def test_budgets_grow_from_fast_to_rigorous():
    fast, default, rigorous = (opts.BUDGETS[name] for name in ("fast", "default", "rigorous"))
    assert 3 <= fast.processes < default.processes < rigorous.processes


def test_mark_keywords_replace_the_session_settings():
    marked = settings().with_mark({"group": "g", "min_rounds": 2, "timer": time.time, "max_time": 0.01})
    assert marked.group == "g"
    assert marked.min_rounds == 2
    assert marked.timer is time.time
    assert marked.max_time == 0.01
    # pytest-benchmark keywords perf has no use for are accepted
    assert settings().with_mark({"calibration_precision": 3, "cprofile": True}) == settings()


def test_mark_refuses_what_pytest_benchmark_refuses():
    with pytest.raises(ValueError, match="can't have 'name' keyword argument"):
        opts.check_mark((), {"name": 1})
    with pytest.raises(ValueError, match="can't have positional arguments"):
        opts.check_mark((1,), {})
    with pytest.raises(ValueError, match="timer must be a callable"):
        settings().with_mark({"timer": "time.time"})
    opts.check_mark((), {name: None for name in opts.MARK_KEYWORDS})


def test_options_of_the_json_entries():
    assert settings(warmup=True).as_pytest_benchmark() == {
        "disable_gc": False,
        "timer": "perf_counter",
        "min_rounds": 5,
        "max_time": 1.0,
        "min_time": 0.000005,
        "warmup": 100000,
    }
    assert settings(warmup=None).as_pytest_benchmark()["warmup"] is False


# --- --benchmark-compare-fail -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "check"),
    [
        ("min:5%", FailCheck("min", 5, percentage=True)),
        ("max:150%", FailCheck("max", 150, percentage=True)),
        ("mean:0%", FailCheck("mean", 0, percentage=True)),
        ("mean:0.001", FailCheck("mean", 0.001, percentage=False)),
        ("median:1e-6", FailCheck("median", 1e-6, percentage=False)),
        ("stddev:.5", FailCheck("stddev", 0.5, percentage=False)),
        ("iqr:2E+1", FailCheck("iqr", 20.0, percentage=False)),
        ("mean:3", FailCheck("mean", 3.0, percentage=False)),
    ],
)
def test_parse_fail_expression(text: str, check: FailCheck) -> None:
    parsed = parse_fail_expression(text)
    assert parsed == check
    assert type(parsed.threshold) is type(check.threshold)


@pytest.mark.parametrize(
    "text",
    [
        "ops:5%",
        "rounds:1",
        "mean:5.5%",
        "mean:",
        "mean",
        "mean:-1",
        "mean:5%%",
        "MEAN:5%",
        "mean: 5%",
        "mean:5.",
        "mean:5%\n",
        "",
    ],
)
def test_parse_fail_expression_refuses(text: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_fail_expression(text)
    assert str(info.value) == f"Could not parse value: {text!r}."


def test_percentage_check() -> None:
    check = parse_fail_expression("mean:5%")
    assert check.failure(1.123, 1.0) == "Field 'mean' has failed PercentageRegressionCheck: 12.300000000 > 5.000000000"
    assert check.failure(0.9, 1.0) is None
    # strictly above: 3 over 2 is exactly 50%
    assert parse_fail_expression("mean:50%").failure(3.0, 2.0) is None
    assert parse_fail_expression("mean:49%").failure(3.0, 2.0) is not None
    # a previous value of 0 is an infinite growth
    assert check.failure(1.0, 0.0) == "Field 'mean' has failed PercentageRegressionCheck: inf > 5.000000000"


def test_difference_check() -> None:
    check = parse_fail_expression("min:0.001")
    assert check.failure(0.003, 0.001) == "Field 'min' has failed DifferenceRegressionCheck: 0.002000000 > 0.001000000"
    assert check.failure(0.001, 0.003) is None
    assert parse_fail_expression("min:0.25").failure(0.5, 0.25) is None
    assert check.kind == "DifferenceRegressionCheck"
