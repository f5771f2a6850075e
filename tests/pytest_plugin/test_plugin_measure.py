"""perf.pytest_plugin.measure: a test's function through perf's worker model."""

from __future__ import annotations

import asyncio
import functools
import time

import pytest

from perf.pytest_plugin.measure import (
    IN_WORKERS,
    MEASURED_IN,
    call_once,
    is_async,
    measure_function,
    outside_event_loop,
    worker_plan,
)
from perf.pytest_plugin.options import PytestBudget, Settings

SETTINGS = Settings(None, 0.000005, 1.0, 5, time.perf_counter, False, None, 100000)
BUDGET = PytestBudget(processes=6, values=3, warmups=1, min_time=0.02)


def test_plan_is_the_budget_by_default():
    assert worker_plan(BUDGET, SETTINGS, jit=False) == (3, 1, 0.02)


def test_plan_with_pytest_benchmark_settings():
    # min_rounds: values over all the processes
    assert worker_plan(BUDGET, SETTINGS._replace(min_rounds=30), jit=False)[0] == 5
    # max_time: the test's measuring time split over its values (6 x (3 + 1))
    assert worker_plan(BUDGET, SETTINGS._replace(max_time=0.24), jit=False)[2] == pytest.approx(0.01)
    # min_time: never shorter than asked
    assert worker_plan(BUDGET, SETTINGS._replace(max_time=0.0, min_time=0.001), jit=False)[2] == 0.001
    # a JIT warms up longer
    assert worker_plan(BUDGET, SETTINGS, jit=True)[1] == 10


async def double(x):
    await asyncio.sleep(0)
    return 2 * x


def test_async_functions_are_recognised():
    assert is_async(double)
    assert is_async(functools.partial(double, 1))
    assert not is_async(len)


def test_call_once_awaits_a_coroutine_function():
    assert call_once(double, (21,), {}) == 42
    assert call_once(divmod, (7, 2), {}) == (3, 1)
    assert call_once(dict, (), {"a": 1}) == {"a": 1}


def test_inside_a_running_loop_the_call_runs_in_a_thread():
    async def test_body():
        return call_once(double, (5,), {})

    assert asyncio.run(test_body()) == 10


def test_errors_cross_the_thread():
    async def test_body():
        return outside_event_loop(lambda: 1 / 0)

    with pytest.raises(ZeroDivisionError):
        asyncio.run(test_body())


@pytest.mark.parametrize("fn", [sorted, double], ids=["sync", "async"])
def test_a_calibrating_worker_gives_a_calibration_run_and_a_value_run(fn):
    budget = PytestBudget(processes=3, values=2, warmups=1, min_time=0.001)
    measured = measure_function(
        "t.py::test", fn, ([3, 1, 2],) if fn is sorted else (1,), {}, settings=SETTINGS, budget=budget, loops=0
    )
    calibration, values = measured.get_runs()
    assert calibration.values == ()
    assert len(values.values) == 2
    assert measured.get_name() == "t.py::test"
    assert values.get_metadata()[MEASURED_IN] == IN_WORKERS
    assert values.get_loops() >= 1


def test_later_workers_reuse_the_loops(no_jit_budget):
    budget = PytestBudget(processes=3, values=2, warmups=1, min_time=0.001)
    measured = measure_function("t.py::test", len, ("abc",), {}, settings=SETTINGS, budget=budget, loops=7)
    (run,) = measured.get_runs()
    assert run.get_loops() == 7
    assert len(run.warmups) == 1


def test_disable_gc_restores_the_gc():
    import gc

    budget = PytestBudget(processes=3, values=1, warmups=0, min_time=0.0001)
    seen = []
    measure_function(
        "t",
        lambda: seen.append(gc.isenabled()),
        (),
        {},
        settings=SETTINGS._replace(disable_gc=True),
        budget=budget,
        loops=2,
    )
    assert seen and not any(seen)
    assert gc.isenabled()


def test_timing_pauses_trace_hooks_and_puts_them_back():
    import gc
    import sys

    from perf.pytest_plugin.measure import timing

    def tracer(frame, event, arg):
        return None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        with timing(disable_gc=True):
            inside = (sys.gettrace(), gc.isenabled())
        after = (sys.gettrace(), gc.isenabled())
    finally:
        sys.settrace(previous)
    assert inside == (None, False)
    assert after == (tracer, True)
