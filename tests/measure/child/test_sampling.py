"""One worker's samples: calibration inside the worker, warmups, values."""

from __future__ import annotations

import re

import pytest

from perf.errors import CalibrationError, WorkerError
from perf.measure.child.calibration import TimerInfo
from perf.measure.child.sampling import MAX_CALIBRATION_STEPS, SamplingPlan, measure

FINE = TimerInfo(call_cost=50e-9, resolution=1e-9)


class SteadyBenchmark:
    """A time function: *per_loop* seconds per loop, recording its calls."""

    def __init__(self, per_loop, jitter=()):
        self.per_loop = per_loop
        self.jitter = list(jitter)
        self.calls = []

    def __call__(self, loops):
        self.calls.append(loops)
        factor = self.jitter.pop(0) if self.jitter else 1.0
        return loops * self.per_loop * factor


def test_first_worker_calibrates_then_keeps_its_values():
    bench = SteadyBenchmark(2e-6)
    samples = measure(bench, SamplingPlan(values=3, warmups=1, loops=0, min_time=0.1), FINE)
    assert samples.loops == 57500  # 1 -> 10 -> ... -> 10**4 -> ceil(1.15 * 0.1 / 2e-6)
    assert samples.calibration_steps == 6
    assert bench.calls == [1, 10, 100, 1000, 10000, 57500, 57500, 57500, 57500, 57500]
    assert [loops for loops, _ in samples.warmups] == [1, 10, 100, 1000, 10000, 57500, 57500]
    assert samples.values == pytest.approx((2e-6,) * 3)
    assert all(value == pytest.approx(2e-6) for _, value in samples.warmups)


class ColdFirstCall:
    """A benchmark whose first call builds something (300 ms), then takes
    0.5 ms a call."""

    def __init__(self):
        self.calls = []

    def __call__(self, loops):
        cold = 0.3 if not self.calls else 0.0
        self.calls.append(loops)
        return cold + loops * 0.5e-3


def test_a_cold_first_call_does_not_set_the_loops():
    bench = ColdFirstCall()
    samples = measure(bench, SamplingPlan(values=3, warmups=1, loops=0, min_time=0.1), FINE)
    # 1 (cold, 300 ms) -> 1 again (warm, 0.5 ms) -> 10 -> 100 -> ceil(1.15 * 0.1 / 0.5e-3)
    assert bench.calls[:5] == [1, 1, 10, 100, 230]
    assert samples.loops == 230
    assert samples.values == pytest.approx((0.5e-3,) * 3)


def test_a_long_warm_call_is_one_loop():
    bench = SteadyBenchmark(0.3)
    samples = measure(bench, SamplingPlan(values=2, warmups=1, loops=0, min_time=0.1), FINE)
    assert bench.calls == [1, 1, 1, 1, 1]  # the first call, confirmed by the second
    assert samples.loops == 1
    assert samples.calibration_steps == 2


def test_later_workers_use_the_given_loops():
    bench = SteadyBenchmark(1e-3)
    samples = measure(bench, SamplingPlan(values=2, warmups=1, loops=128, min_time=0.1), FINE)
    assert bench.calls == [128, 128, 128]
    assert samples.calibration_steps == 0
    assert samples.warmups == ((128, pytest.approx(1e-3)),)


def test_values_are_normalised_by_inner_loops():
    bench = SteadyBenchmark(1e-3)
    samples = measure(bench, SamplingPlan(values=1, warmups=0, loops=4, min_time=0.1, inner_loops=10), FINE)
    assert samples.values == (pytest.approx(1e-4),)


def test_a_coarse_clock_raises_the_target():
    bench = SteadyBenchmark(1e-3)
    coarse = TimerInfo(call_cost=50e-9, resolution=1e-4)  # target: 10**4 ticks = 1 s
    samples = measure(bench, SamplingPlan(values=1, warmups=0, loops=0, min_time=0.1), coarse)
    assert 1.0 <= samples.loops * 1e-3 <= 1.3


def test_a_noisy_benchmark_stops_calibrating():
    bench = SteadyBenchmark(1e-3, jitter=[1.0, 1.0, 0.5, 2.0] * 20)
    samples = measure(bench, SamplingPlan(values=1, warmups=0, loops=0, min_time=0.1), FINE)
    assert samples.calibration_steps <= MAX_CALIBRATION_STEPS


def test_on_sample_reports_every_sample():
    seen = []
    bench = SteadyBenchmark(0.06)
    measure(bench, SamplingPlan(values=2, warmups=1, loops=0, min_time=0.1), FINE, lambda *args: seen.append(args))
    assert [kind for kind, _, _ in seen] == ["calibration", "calibration", "warmup", "value", "value"]
    assert seen[0] == ("calibration", 1, pytest.approx(0.06))


def test_zero_value_is_an_error():
    with pytest.raises(WorkerError, match=re.escape("a value of 4 loops took 0 seconds: the clock is too coarse")):
        measure(lambda loops: 0.0, SamplingPlan(values=1, warmups=0, loops=4, min_time=0.1), FINE)


@pytest.mark.parametrize("returned", [-1.0, None, "1", float("nan"), True])
def test_bad_time_function_results_are_errors(returned):
    with pytest.raises(WorkerError, match="the time function must return seconds >= 0, got "):
        measure(lambda loops: returned, SamplingPlan(values=1, warmups=0, loops=1, min_time=0.1), FINE)


def test_empty_benchmark_cannot_be_calibrated():
    with pytest.raises(CalibrationError, match="failed to calibrate the number of loops"):
        measure(lambda loops: 0.0, SamplingPlan(values=1, warmups=0, loops=0, min_time=0.1), FINE)
