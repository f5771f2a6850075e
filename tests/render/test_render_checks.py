"""perf.render.checks: pyperf's warning block with perf's names.

tests/data/X.check.txt holds pyperf 2.10.0's ``pyperf check X`` output.
perf prints the same lines for pyperf's checks once the tool names are
replaced ("python -m pyperf" -> "python -m perf", "pyperf stats" ->
"python -m perf stats"); perf's own checks add bullets, tested on
constructed benchmarks.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest
from golden import DATA, fixtures_with

from perf.analysis.checks import PYPERF_CODES, Check, check_benchmark
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.render.checks import (
    WARNING_TITLE,
    format_check,
    format_warning_summary,
    format_warnings,
    incomplete_benchmarks_notice,
    incomplete_notice,
    warning_summary_line,
)
from perf.storage import files

FIXTURES = fixtures_with("check")
STABLE = ("The benchmark seems to be stable", "All benchmarks seem to be stable")
FOOTER = [
    "",
    "Try to rerun the benchmark with more runs, values and/or loops.",
    "Run 'python -m perf system tune' command to reduce the system jitter.",
    "Use python -m perf stats, python -m perf dump and python -m perf hist to analyze results.",
    "Use --quiet option to hide these warnings.",
]


def make_run(values: Any, warmups: Any = None, **metadata: Any) -> Run:
    metadata.setdefault("name", "bench")
    return Run(values, warmups=warmups, metadata=metadata, collect_metadata=False)


def perf_names(text: str, python: str = "python") -> str:
    """pyperf's text with perf's names: pyperf has a ``pyperf`` script, perf
    is run as ``python -m perf`` with the interpreter's name; perf fixes
    pyperf's typo "95% certainly"."""
    text = text.replace("(95% certainly of", "(95% certainty of")
    return text.replace("-m pyperf system tune", "-m perf system tune").replace(
        "Use pyperf stats, pyperf dump and pyperf hist",
        f"Use {python} -m perf stats, {python} -m perf dump and {python} -m perf hist",
    )


def expected_sections(text: str) -> dict[str | None, list[str]]:
    """Check lines per benchmark title (None: a file with one benchmark)."""
    lines = text.splitlines()
    assert lines[-1].startswith("# exit status: 0")
    lines = [line for line in lines[:-1] if line not in STABLE]
    sections: dict[str | None, list[str]] = {None: []}
    current = sections[None]
    index = 0
    while index < len(lines):
        line = lines[index]
        underline = lines[index + 1] if index + 1 < len(lines) else ""
        if line and underline == "-" * len(line):
            current = sections[line] = []
            index += 2
            continue
        current.append(line)
        index += 1
    for section in sections.values():
        while section and not section[0]:
            del section[0]
        while section and not section[-1]:
            del section[-1]
    return sections


def format_checks(benchmark: Benchmark, check_too_many_processes: bool = False, python: str | None = None) -> list[str]:
    """The checks of *benchmark* run, then formatted (render no longer runs
    them: the command does, once)."""
    checks = check_benchmark(benchmark, check_too_many_processes=check_too_many_processes)
    return format_warnings(checks, benchmark, python=python)


def pyperf_checks_only(benchmark: Benchmark, check_too_many_processes: bool = True) -> list[Check]:
    checks = check_benchmark(benchmark, check_too_many_processes=check_too_many_processes)
    return [check for check in checks if check.code in PYPERF_CODES]


# --- pyperf's fixtures ----------------------------------------------------------


def test_every_fixture_is_covered() -> None:
    assert "timeit.json" in FIXTURES
    assert "track_memory.json" in FIXTURES
    assert len(FIXTURES) >= 10


@pytest.mark.parametrize("name", FIXTURES)
def test_pyperf_checks_match_pyperf_check(name: str) -> None:
    expected = expected_sections(perf_names((DATA / f"{name}.check.txt").read_text()))
    suite = BenchmarkSuite.load(str(DATA / name))
    benchmarks = suite.get_benchmarks()
    for benchmark in benchmarks:
        key = benchmark.get_name() if len(benchmarks) > 1 else None
        lines = format_warnings(pyperf_checks_only(benchmark), benchmark, python="python")
        assert lines == expected[key], benchmark.get_name()


def test_timeit_fixture() -> None:
    benchmark = Benchmark.load(str(DATA / "timeit.json"))
    assert format_checks(benchmark, check_too_many_processes=True, python="python") == [
        WARNING_TITLE,
        "* Not enough samples to get a stable result (95% certainty of less than 1% variation)",
        *FOOTER,
        "",
        "precision: the 95% confidence interval of the mean is +-1.4% with 4 processes; "
        "about 6 processes would make it +-1%",
    ]


def test_inner_loops_fixture_with_perf_checks() -> None:
    # pyperf reports the std dev; perf also sees one severe outlier (4.72 ns
    # among values of 3.44 .. 3.80 ns)
    benchmark = Benchmark.load(str(DATA / "timeit_inner_loops.json"))
    assert format_checks(benchmark, python="python") == [
        WARNING_TITLE,
        "* the standard deviation (0.39 ns) is 10% of the mean (3.73 ns)",
        "* 1 of 9 values (11%) is a severe outlier (more than 3 IQR beyond the quartiles)",
        *FOOTER,
    ]


def test_track_memory_fixture_is_advice_only() -> None:
    benchmark = Benchmark.load(str(DATA / "track_memory.json"))
    assert format_checks(benchmark, check_too_many_processes=True, python="python") == [
        "Benchmark was run more times than necessary to get a stable result.",
        "Consider passing processes=1 to the Runner constructor to save time.",
        "",
        "precision: the 95% confidence interval of the mean is +-2.3% with 2 processes; "
        "about 3 processes would make it +-1%",
    ]
    assert format_checks(benchmark, python="python") == []


def test_calibration_only_fixture() -> None:
    benchmark = Benchmark.load(str(DATA / "calibration_only.json"))
    assert format_checks(benchmark, check_too_many_processes=True) == []


# --- live pyperf on constructed benchmarks ------------------------------------------


def constructed() -> list[Benchmark]:
    return [
        Benchmark([make_run((1.0, 1.3)), make_run((0.8, 1.1))]),
        Benchmark([make_run((1.0, 1.0)), make_run((1.05, 1.05))]),
        Benchmark([make_run((0.5, 1.0, 1.0, 1.0, 1.0, 1.5))]),
        Benchmark([make_run((1.0, 1.0, 1.0, 1.0, 1.0, 4.0))]),
        Benchmark([make_run((2e-4, 2e-4), loops=4), make_run((2e-4, 2.1e-4), loops=8)]),
        Benchmark([make_run((1.0, 1.0)), make_run((1.004, 1.004)), make_run((0.997, 0.997))]),
        Benchmark([make_run((100.0, 300.0), unit="byte"), make_run((200.0, 200.0), unit="byte")]),
        Benchmark([make_run((0.5,))]),
        Benchmark([make_run((1.0, 1.001 + 0.001 * index)) for index in range(12)]),
    ]


@pytest.mark.pyperf
@pytest.mark.parametrize("index", range(len(constructed())))
def test_constructed_benchmarks_match_pyperf(index: int) -> None:
    pyperf = pytest.importorskip("pyperf")
    from pyperf import _cli

    benchmark = constructed()[index]
    theirs = pyperf.Benchmark.loads(files.dumps(benchmark))
    python = os.path.basename(sys.executable)
    for too_many in (False, True):
        pyperf_lines = _cli.format_checks(theirs, check_too_many_processes=too_many)
        expected = [perf_names(line, python) for line in pyperf_lines]
        checks = pyperf_checks_only(benchmark, check_too_many_processes=too_many)
        assert format_warnings(checks, benchmark) == expected
        assert format_warnings(checks, benchmark, python=python) == expected


# --- one line per check -----------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "unit", "expected"),
    [
        (
            Check("stdev", (0.0023, 10.4, 0.0221)),
            "second",
            "the standard deviation (2.30 ms) is 10% of the mean (22.1 ms)",
        ),
        (
            Check("sample_size", (13, 4)),
            "second",
            "Not enough samples to get a stable result (95% certainty of less than 1% variation)",
        ),
        (Check("min", (0.5, -50.0, 1.0)), "second", "the minimum (500 ms) is 50% smaller than the mean (1.00 sec)"),
        (Check("max", (4.0, 166.7, 1.5)), "second", "the maximum (4.00 sec) is 167% greater than the mean (1.50 sec)"),
        (
            Check("max", (3072.0, 50.0, 2048.0)),
            "byte",
            "the maximum (3072 bytes) is 50% greater than the mean (2048 bytes)",
        ),
        (Check("short_raw", (8e-4,)), "second", "the shortest raw value is only 800 us"),
        (
            Check("too_many_runs", (1, 20)),
            "second",
            "Benchmark was run more times than necessary to get a stable result.\n"
            "Consider passing processes=1 to the Runner constructor to save time.",
        ),
        (
            Check("value_outliers", (3, 60)),
            "second",
            "3 of 60 values (5%) are severe outliers (more than 3 IQR beyond the quartiles)",
        ),
        (
            Check("value_outliers", (1, 9)),
            "second",
            "1 of 9 values (11%) is a severe outlier (more than 3 IQR beyond the quartiles)",
        ),
        (
            Check("process_outlier", (7, 35.2, 1.352, 1.0)),
            "second",
            "process 7 was 35% slower than the median of process means (noisy neighbour?)",
        ),
        (
            Check("process_outlier", (3, -40.0, 0.6, 1.0)),
            "second",
            "process 3 was 40% faster than the median of process means",
        ),
        (
            Check("process_outlier", (2, 25.0, 1250.0, 1000.0)),
            "byte",
            "the mean of process 2 was 25% greater than the median of process means",
        ),
        (
            Check("process_outlier", (2, -25.0, 750.0, 1000.0)),
            "integer",
            "the mean of process 2 was 25% smaller than the median of process means",
        ),
        (
            Check("first_value_outlier", (8, 20, 2)),
            "second",
            "the first value of a process is an outlier in 8 of 20 processes: consider --warmups 2 or more",
        ),
        (
            Check("no_steady_state", (3, 6)),
            "second",
            "3 of 6 processes found no steady state: their values were still changing at the end of the "
            "process (run more values per process, or look for a slowdown)",
        ),
        (
            Check("steady_state_mix", (("warmup", 4), ("flat", 1), ("no steady state", 1))),
            "second",
            "steady state: 4 warmup, 1 flat, 1 no steady state",
        ),
        (
            Check("incomplete", (8, 8, ("interrupted after 8 of 24 processes",))),
            "second",
            "incomplete: all processes come from a run that stopped early (interrupted after 8 of 24 "
            "processes): fewer processes than planned",
        ),
        (
            Check("incomplete", (2, 5, ("failed after 1 of 3 processes", "interrupted after 1 of 2 processes"))),
            "second",
            "incomplete: 2 of 5 processes come from a run that stopped early (failed after 1 of 3 processes; "
            "interrupted after 1 of 2 processes): fewer processes than planned",
        ),
    ],
)
def test_format_check(check: Check, unit: str, expected: str) -> None:
    benchmark = Benchmark([make_run((1.0,), unit=unit)])
    assert format_check(check, benchmark) == expected


def test_unknown_code() -> None:
    benchmark = Benchmark([make_run((1.0,))])
    with pytest.raises(ValueError, match="unknown check code: 'nope'"):
        format_check(Check("nope", ()), benchmark)


# --- layout --------------------------------------------------------------------------


def test_no_check_no_line() -> None:
    benchmark = Benchmark([make_run((1.0,))])
    assert format_warnings([], benchmark) == []


def test_default_interpreter_name_is_the_running_one() -> None:
    benchmark = Benchmark([make_run((1.0,))])
    lines = format_warnings([Check("sample_size", (13, 4))], benchmark)
    python = os.path.basename(sys.executable)
    assert lines[4] == f"Run '{python} -m perf system tune' command to reduce the system jitter."
    assert (
        lines[5] == f"Use {python} -m perf stats, {python} -m perf dump and {python} -m perf hist to analyze results."
    )


def test_warnings_then_advice_then_information() -> None:
    benchmark = Benchmark([make_run((1.0,))])
    checks = [
        Check("max", (4.0, 166.7, 1.5)),
        Check("process_outlier", (7, 35.2, 1.352, 1.0)),
        Check("no_steady_state", (1, 6)),
        Check("too_many_runs", (2, 6)),
        Check("steady_state_mix", (("warmup", 5), ("no steady state", 1))),
    ]
    assert format_warnings(checks, benchmark, python="python") == [
        WARNING_TITLE,
        "* the maximum (4.00 sec) is 167% greater than the mean (1.50 sec)",
        "* process 7 was 35% slower than the median of process means (noisy neighbour?)",
        "* 1 of 6 processes found no steady state: their values were still changing at the end of the process "
        "(run more values per process, or look for a slowdown)",
        *FOOTER,
        # like pyperf, the advice follows the block directly
        "Benchmark was run more times than necessary to get a stable result.",
        "Consider passing processes=2 to the Runner constructor to save time.",
        "",
        "steady state: 5 warmup, 1 no steady state",
    ]


def test_information_alone() -> None:
    runs = [make_run((1.0, 1.0001, 1.0002), steady_state="flat") for _ in range(4)]
    benchmark = Benchmark(runs)
    assert format_checks(benchmark) == ["steady state: 4 flat"]


def test_constructed_benchmark_with_every_perf_check() -> None:
    runs = [make_run((), warmups=[(1, 0.5)], calibrate_loops=1)]
    for process in range(20):
        # 8 processes start slow; 3 never settle
        first = 1.05 if process < 8 else 1.0 + 0.001 * (process % 4)
        kind = "no steady state" if process < 3 else "warmup"
        values = (first, 1.0 + 0.002 * (process % 5), 1.0 + 0.001 * (process % 3))
        runs.append(make_run(values, warmups=[(1, 1.5)], steady_state=kind))
    # the 5th process is 20 % slower than the others
    runs.insert(5, make_run((1.2, 1.2, 1.2), warmups=[(1, 1.5)], steady_state="warmup"))
    lines = format_checks(Benchmark(runs), check_too_many_processes=True, python="python")
    assert lines == [
        WARNING_TITLE,
        "* Not enough samples to get a stable result (95% certainty of less than 1% variation)",
        # the 8 slow first values and the 3 values of the slow process
        "* 11 of 63 values (17%) are severe outliers (more than 3 IQR beyond the quartiles)",
        "* process 5 was 20% slower than the median of process means (noisy neighbour?)",
        # the slow process's first value counts too
        "* the first value of a process is an outlier in 9 of 21 processes: consider --warmups 2 or more",
        "* 3 of 21 processes found no steady state: their values were still changing at the end of the process "
        "(run more values per process, or look for a slowdown)",
        *FOOTER,
        "",
        "steady state: 18 warmup, 3 no steady state",
        "precision: the 95% confidence interval of the mean is +-1.9% with 21 processes; "
        "about 70 processes would make it +-1%",
    ]


# --- one line for the commands that show a file -----------------------------------


def test_warning_summary_line() -> None:
    assert warning_summary_line(1, "bench.json", python="python3") == (
        'WARNING: the benchmark result may be unstable (1 warning): run "python3 -m perf check bench.json" for details'
    )
    assert warning_summary_line(3, "out/my bench.json", "sort list", python="pypy3") == (
        "WARNING: the benchmark result may be unstable (3 warnings): "
        "run \"pypy3 -m perf check -b 'sort list' 'out/my bench.json'\" for details"
    )
    for filename in (None, "-", "<stdin>"):
        assert warning_summary_line(2, filename, python="python") == (
            'WARNING: the benchmark result may be unstable (2 warnings): run "python -m perf check FILE" for details'
        )


def test_warning_summary_keeps_advice_and_information() -> None:
    benchmark = Benchmark.load(str(DATA / "timeit_inner_loops.json"))
    checks = check_benchmark(benchmark, check_too_many_processes=True)
    assert format_warning_summary(checks, benchmark, "x.json", python="python") == [
        'WARNING: the benchmark result may be unstable (2 warnings): run "python -m perf check x.json" for details',
        "",
        "precision: the 95% confidence interval of the mean is +-21.0% with 3 processes; "
        "about 278 processes would make it +-1%",
    ]
    stable = Benchmark.load(str(DATA / "track_memory.json"))
    assert format_warning_summary(check_benchmark(stable), stable, "x.json") == []


def test_the_incomplete_notice_names_the_file_after_its_word() -> None:
    check = Check("incomplete", (3, 5, ("interrupted after 3 of 24 processes",)))
    assert incomplete_notice(check, "bench") == (
        "incomplete: bench: 3 of 5 processes come from a run that stopped early "
        "(interrupted after 3 of 24 processes): fewer processes than planned"
    )
    assert incomplete_notice(check) == format_check(check, Benchmark([make_run((1.0,))]))


@pytest.mark.parametrize(
    ("names", "shown", "where", "expected"),
    [
        (["b"], 3, None, "incomplete: 1 of 3 benchmarks comes from a run that stopped early: b"),
        (["a", "b"], 2, "suite", "incomplete: suite: all 2 benchmarks come from a run that stopped early: a, b"),
        (
            [f"bm{index}" for index in range(8)],
            50,
            None,
            "incomplete: 8 of 50 benchmarks come from a run that stopped early: bm0, bm1, bm2, bm3, bm4 and 3 more",
        ),
    ],
)
def test_the_incomplete_notice_of_a_suite(names: list[str], shown: int, where: str | None, expected: str) -> None:
    assert incomplete_benchmarks_notice(names, shown, where) == expected
