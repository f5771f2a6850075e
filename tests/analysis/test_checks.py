"""perf.analysis.checks: pyperf's stability checks and perf's process-level
checks, as Check values, on constructed benchmarks.

The texts are tested in tests/render/test_render_checks.py, which also
compares the whole output with pyperf 2.10.0 (fixtures and live pyperf).
"""

from __future__ import annotations

import math
import time
from typing import Any

import pytest

from perf.analysis.checks import (
    ADVICE_CODES,
    CODES,
    INFO_CODES,
    PYPERF_CODES,
    Check,
    Level,
    check_benchmark,
)
from perf.model.benchmark import Benchmark
from perf.model.run import Run


def make_run(values: Any, warmups: Any = None, **metadata: Any) -> Run:
    metadata.setdefault("name", "bench")
    return Run(values, warmups=warmups, metadata=metadata, collect_metadata=False)


def calibration_run(**metadata: Any) -> Run:
    return make_run((), warmups=[(1, 0.5)], calibrate_loops=1, **metadata)


def codes(checks: list[Check]) -> list[str]:
    return [check.code for check in checks]


def steady(process: int, spread: float = 0.002) -> tuple[float, ...]:
    """Three values of about 1.0, different for every process."""
    offset = ((process * 7919) % 13 - 6) * spread / 6
    return (1.0 + offset, 1.0 + offset / 2, 1.0 - offset / 3)


def stable_benchmark(nprocesses: int = 20, **metadata: Any) -> Benchmark:
    return Benchmark([make_run(steady(process), warmups=[(1, 1.0)], **metadata) for process in range(nprocesses)])


def test_codes_are_classified() -> None:
    assert set(PYPERF_CODES) < set(CODES)
    assert set(ADVICE_CODES) == {"too_many_runs"}
    assert set(INFO_CODES) == {"steady_state_mix", "loop_overhead", "precision"}
    assert Check("precision", (2.0, 4, 20)).level is not Level.WARNING
    assert Check("stdev", (1.0, 10.0, 10.0)).level is Level.WARNING
    assert Check("too_many_runs", (1, 4)).level is not Level.WARNING
    assert Check("steady_state_mix", (("flat", 3),)).level is not Level.WARNING


def test_no_values_no_checks() -> None:
    assert check_benchmark(Benchmark([calibration_run()])) == []
    assert check_benchmark(Benchmark([calibration_run()]), check_too_many_processes=True) == []


def test_stable_benchmark_has_no_warning() -> None:
    benchmark = stable_benchmark()
    assert check_benchmark(benchmark) == []
    # 20 processes of about 1.0 +- 0.1 %: 1 would have been enough
    checks = check_benchmark(benchmark, check_too_many_processes=True)
    assert checks[0] == Check("too_many_runs", (1, 20))
    # and the precision reached: +-0.02 %, 2 processes would give +-1 %
    assert codes(checks) == ["too_many_runs", "precision"]
    assert checks[1].values[0] == pytest.approx(0.0239, abs=1e-4)
    assert checks[1].values[1:] == (20, 2)


# --- pyperf's checks -----------------------------------------------------------


def test_stdev_check_replaces_the_sample_size_check() -> None:
    benchmark = Benchmark([make_run((1.0, 1.3)), make_run((0.8, 1.1))])
    checks = check_benchmark(benchmark)
    assert codes(checks) == ["stdev"]
    stdev, percent, mean = checks[0].values
    assert mean == benchmark.mean() == pytest.approx(1.05)
    assert stdev == benchmark.stdev()
    assert percent == pytest.approx(stdev * 100 / mean)
    assert percent >= 10


def test_sample_size() -> None:
    # process means 1.0 and 1.05: std dev of the values 2.9 % of the mean
    benchmark = Benchmark([make_run((1.0, 1.0)), make_run((1.05, 1.05))])
    required = benchmark.required_nprocesses()
    assert required is not None and required > 2
    assert check_benchmark(benchmark) == [Check("sample_size", (required, 2))]


def test_sample_size_counts_processes_not_calibration_runs() -> None:
    # required_nprocesses() == 3 with 2 processes: pyperf would compare 3 with
    # its 3 runs (the calibration run included) and say nothing
    benchmark = Benchmark([calibration_run(), make_run((1.0, 1.0)), make_run((1.0055, 1.0055))])
    assert benchmark.required_nprocesses() == 3
    assert check_benchmark(benchmark) == [Check("sample_size", (3, 2))]


def test_too_many_runs_counts_processes_not_calibration_runs() -> None:
    # required 2 with 2 processes: pyperf (3 runs with calibration) would
    # advise "processes=2" although 2 were run
    benchmark = Benchmark([calibration_run(), make_run((1.0, 1.0)), make_run((1.004, 1.004))])
    assert benchmark.required_nprocesses() == 2
    assert codes(check_benchmark(benchmark, check_too_many_processes=True)) == ["precision"]
    # 3 processes when 2 are enough: 2 < 0.75 x 3
    benchmark.add_run(make_run((0.997, 0.997)))
    required = benchmark.required_nprocesses()
    assert required == 2
    assert check_benchmark(benchmark, check_too_many_processes=True)[:-1] == [Check("too_many_runs", (2, 3))]


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        # mean 1.0: the minimum is 50 % smaller, the maximum 50 % greater
        ((0.5, 1.0, 1.0, 1.0, 1.0, 1.5), [("min", 0.5, -50.0), ("max", 1.5, 50.0)]),
        ((0.6, 1.0, 1.0, 1.0, 1.0, 1.4), []),
        # one huge value: mean 1.5, maximum 200 % greater
        ((1.0, 1.0, 1.0, 1.0, 1.0, 4.0), [("max", 4.0, pytest.approx(166.66666666666666))]),
    ],
)
def test_min_max(values: tuple[float, ...], expected: list[tuple[str, float, float]]) -> None:
    benchmark = Benchmark([make_run(values)])
    checks = [check for check in check_benchmark(benchmark) if check.code in ("min", "max")]
    assert [(check.code, check.values[0], check.values[1]) for check in checks] == expected
    for check in checks:
        assert check.values[2] == benchmark.mean()


def test_short_raw_value_uses_loops() -> None:
    # 0.2 ms per iteration x 4 loops = 0.8 ms raw, x 8 loops = 1.6 ms
    short = Benchmark([make_run((2e-4, 2e-4), loops=4), make_run((2e-4, 2e-4), loops=8)])
    assert Check("short_raw", (8e-4,)) in check_benchmark(short)
    long_enough = Benchmark([make_run((2e-4, 2e-4), loops=8, inner_loops=1)])
    assert "short_raw" not in codes(check_benchmark(long_enough))
    inner = Benchmark([make_run((2e-5, 2e-5), loops=8, inner_loops=10)])
    assert "short_raw" not in codes(check_benchmark(inner))


def test_short_raw_value_only_for_seconds() -> None:
    benchmark = Benchmark([make_run((100.0, 100.0), unit="byte")])
    assert check_benchmark(benchmark) == []


def test_single_value() -> None:
    benchmark = Benchmark([make_run((0.5,))])
    assert check_benchmark(benchmark, check_too_many_processes=True) == []


# --- perf's checks: outliers (R9) ------------------------------------------------


def test_severe_value_outliers_above_two_percent() -> None:
    runs = [make_run(steady(process)) for process in range(20)]  # 60 values
    spiky = Benchmark([*runs, make_run((1.0, 5.0, 1.0)), make_run((1.0, 1.0, 5.0))])
    assert Check("value_outliers", (2, 66)) in check_benchmark(spiky)
    # one spike in 63 values is 1.6 %: no warning
    one_spike = Benchmark([*runs, make_run((1.0, 5.0, 1.0))])
    assert "value_outliers" not in codes(check_benchmark(one_spike))


def test_mild_value_outliers_are_not_reported() -> None:
    runs = [make_run(steady(process)) for process in range(20)]
    # 1.004 is above Q3 + 1.5 IQR but below Q3 + 3 IQR
    benchmark = Benchmark([*runs, make_run((1.0, 1.004, 1.004))])
    assert "value_outliers" not in codes(check_benchmark(benchmark))


def test_process_outlier() -> None:
    runs: list[Run] = [calibration_run()]
    runs.extend(make_run(steady(process)) for process in range(10))
    runs.insert(7, make_run((1.35, 1.34, 1.36)))  # the 7th run with values
    benchmark = Benchmark(runs)
    outliers = [check for check in check_benchmark(benchmark) if check.code == "process_outlier"]
    assert len(outliers) == 1
    process, percent, mean, median = outliers[0].values
    assert process == 7
    assert mean == pytest.approx(1.35)
    means = benchmark.get_process_means()
    assert median == sorted(means)[5]  # 11 processes
    assert percent == pytest.approx((1.35 - median) * 100 / median)
    assert 34 < percent < 36


def test_fast_process_outlier() -> None:
    runs = [make_run(steady(process)) for process in range(10)]
    runs.append(make_run((0.6, 0.6, 0.6)))
    outliers = [check for check in check_benchmark(Benchmark(runs)) if check.code == "process_outlier"]
    assert [check.values[0] for check in outliers] == [11]
    assert outliers[0].values[1] == pytest.approx(-40, abs=0.5)


def test_process_outliers_need_four_processes() -> None:
    three = Benchmark([make_run((1.0, 1.0)), make_run((1.001, 1.001)), make_run((3.0, 3.0))])
    assert "process_outlier" not in codes(check_benchmark(three))


def test_no_spread_no_outlier() -> None:
    # identical values (a memory benchmark, say): the IQR is 0
    benchmark = Benchmark(
        [make_run((1000.0, 1000.0), unit="byte") for _ in range(9)] + [make_run((1001.0, 1001.0), unit="byte")]
    )
    assert check_benchmark(benchmark) == []


# --- perf's checks: warmup (R8) ------------------------------------------------------


def warmup_benchmark(slow_first: int, nprocesses: int = 20, nwarmup: int = 1) -> Benchmark:
    runs = []
    for process in range(nprocesses):
        values = list(steady(process))
        if process < slow_first:
            values[0] = 1.3
        runs.append(make_run(values, warmups=[(1, 1.5)] * nwarmup))
    return Benchmark(runs)


def test_first_value_outlier() -> None:
    checks = check_benchmark(warmup_benchmark(slow_first=8))
    assert Check("first_value_outlier", (8, 20, 2)) in checks


def test_first_value_outlier_suggests_more_than_the_current_warmups() -> None:
    checks = check_benchmark(warmup_benchmark(slow_first=8, nwarmup=3))
    assert Check("first_value_outlier", (8, 20, 4)) in checks


def test_first_value_outlier_in_a_quarter_of_processes_is_fine() -> None:
    checks = check_benchmark(warmup_benchmark(slow_first=5))  # 25 %, not more
    assert "first_value_outlier" not in codes(checks)
    checks = check_benchmark(warmup_benchmark(slow_first=6))
    assert Check("first_value_outlier", (6, 20, 2)) in checks


def test_first_value_ignores_single_value_processes() -> None:
    runs = [make_run(steady(process)) for process in range(12)]
    runs += [make_run((1.3,)) for _ in range(4)]  # a slow process, not a warmup issue
    assert "first_value_outlier" not in codes(check_benchmark(Benchmark(runs)))


# --- perf's checks: JIT steady state (R8) ------------------------------------------------


def test_loop_overhead_over_ten_percent_of_the_median_value() -> None:
    # values of about 1.0 s; an empty loop of 0.2 s per iteration is 20 %
    benchmark = stable_benchmark(loop_overhead=0.2)
    assert check_benchmark(benchmark) == [Check("loop_overhead", (0.2, pytest.approx(20.0, rel=0.01)))]
    assert Check("loop_overhead", (0.2, 20.0)).level is not Level.WARNING


def test_loop_overhead_under_ten_percent_or_unmeasured_says_nothing() -> None:
    assert check_benchmark(stable_benchmark(loop_overhead=0.09)) == []
    assert check_benchmark(stable_benchmark()) == []


def test_loop_overhead_is_the_median_of_the_runs() -> None:
    runs = [make_run(steady(process), loop_overhead=overhead) for process, overhead in enumerate((0.05, 0.3, 0.4))]
    checks = check_benchmark(Benchmark(runs))
    assert checks == [Check("loop_overhead", (0.3, pytest.approx(30.0, rel=0.01)))]


def test_steady_state_mix_and_no_steady_state() -> None:
    kinds = ["warmup", "flat", "warmup", "no steady state", "warmup", "warmup"]
    runs = [calibration_run()]
    runs += [make_run(steady(process), steady_state=kind) for process, kind in enumerate(kinds)]
    checks = check_benchmark(Benchmark(runs), check_too_many_processes=True)
    assert Check("no_steady_state", (1, 6)) in checks
    assert checks[-2] == Check("steady_state_mix", (("warmup", 4), ("flat", 1), ("no steady state", 1)))
    # the information comes after the advice
    assert codes(checks)[-3:] == ["too_many_runs", "steady_state_mix", "precision"]


def test_steady_state_ties_follow_the_canonical_order() -> None:
    kinds = ["slowdown", "no steady state", "flat", "warmup"]
    runs = [make_run(steady(process), steady_state=kind) for process, kind in enumerate(kinds)]
    mix = check_benchmark(Benchmark(runs))[-1]
    assert mix == Check("steady_state_mix", (("flat", 1), ("warmup", 1), ("slowdown", 1), ("no steady state", 1)))


def test_all_flat_is_information_only() -> None:
    benchmark = stable_benchmark(6, steady_state="flat")
    assert check_benchmark(benchmark) == [Check("steady_state_mix", (("flat", 6),))]


def test_steady_state_counts_only_runs_with_the_key() -> None:
    runs = [make_run(steady(0), steady_state="no steady state"), make_run(steady(1)), make_run(steady(2))]
    checks = check_benchmark(Benchmark(runs))
    assert Check("no_steady_state", (1, 1)) in checks


# --- order and cost -----------------------------------------------------------------


def test_checks_follow_the_documented_order() -> None:
    runs = [calibration_run()]
    for process in range(20):
        values = [0.0005 * value for value in steady(process)]
        if process < 8:
            values[0] = 0.0009
        runs.append(make_run(values, warmups=[(1, 0.001)], steady_state="warmup" if process else "no steady state"))
    runs.append(make_run((0.0005, 0.002, 0.0005), steady_state="warmup"))
    checks = check_benchmark(Benchmark(runs), check_too_many_processes=True)
    found = codes(checks)
    assert found == sorted(found, key=CODES.index)
    assert {"stdev", "max", "short_raw", "first_value_outlier", "no_steady_state", "steady_state_mix"} <= set(found)


def test_a_suite_of_200_benchmarks_is_cheap() -> None:
    benchmarks = [stable_benchmark(20) for _ in range(200)]
    start = time.perf_counter()
    for benchmark in benchmarks:
        check_benchmark(benchmark, check_too_many_processes=True)
    elapsed = time.perf_counter() - start
    # about 20 ms on a laptop; generous for slow CI machines and PyPy warmup
    assert elapsed < 2.0
    assert math.isfinite(elapsed)


# --- how the result was recorded ---------------------------------------------------


def test_runs_saved_from_a_stopped_run_are_reported_first() -> None:
    note = "interrupted after 6 of 20 processes"
    benchmark = Benchmark([make_run(steady(process), incomplete=note) for process in range(6)])
    assert check_benchmark(benchmark)[0] == Check("incomplete", (6, 6, (note,)))
    assert check_benchmark(benchmark)[0].level is Level.WARNING
    # runs appended later, complete, dilute it: each note once, in order
    runs = [make_run((1.0,), incomplete="failed after 1 of 3 processes"), *benchmark.get_runs()]
    runs += [make_run(steady(process)) for process in range(4)]
    assert check_benchmark(Benchmark(runs))[0] == Check("incomplete", (7, 11, ("failed after 1 of 3 processes", note)))


def test_a_complete_run_has_no_incomplete_check() -> None:
    assert "incomplete" not in codes(check_benchmark(stable_benchmark(), check_too_many_processes=True))


def test_a_check_carries_its_level():
    assert Check("stdev", (1.0, 10.0, 10.0)).level is Level.WARNING
    assert Check("incomplete", (1, 2, ())).level is Level.WARNING
    assert Check("too_many_runs", (1, 4)).level is Level.ADVICE
    assert {Check(code, ()).level for code in INFO_CODES} == {Level.INFORMATION}
    assert Check("nope", ()).level is Level.WARNING  # unknown: never hidden
