"""The worker side: one task measured into a Benchmark of one or two runs."""

from __future__ import annotations

import datetime
import os
import pstats
import re
import time
from types import SimpleNamespace

import pytest
from helpers import FakeClock, parse_options

from perf.collect.python import python_has_jit
from perf.errors import UsageError, WorkerError
from perf.measure.child import worker
from perf.measure.child.sampling import Samples, SamplingPlan
from perf.measure.child.steady import SteadyState
from perf.measure.child.tasks import Task, func_time_function
from perf.measure.child.worker import run_task
from perf.measure.environment import PADDING_VARIABLE
from perf.measure.hooks import HookBase
from perf.measure.protocol import send_benchmark as send
from perf.storage.files import loads_benchmark

WORKER = ["--worker", "--loops", "0", "-n", "3", "-w", "1", "--min-time", "0.01"]


def worker_args(*extra, argv=WORKER, hooks=()):
    return parse_options([*argv, *extra], plan=False, hooks=hooks)


class Work:
    """Benchmarked code on a fake clock: each call takes *per_call* seconds
    (*slow* seconds for its first *slow_calls* calls)."""

    def __init__(self, clock, per_call=1e-3, slow_calls=0, slow=2e-3):
        self.clock = clock
        self.per_call = per_call
        self.slow_calls = slow_calls
        self.slow = slow
        self.calls = 0

    def __call__(self):
        self.calls += 1
        self.clock.now += self.slow if self.calls <= self.slow_calls else self.per_call


def make_task(name="bench", inner_loops=None, metadata=None, **work_options):
    clock = FakeClock(step=1e-9)
    work = Work(clock, **work_options)
    task = Task(name, func_time_function(work, (), clock), inner_loops, metadata)
    return task, clock, work


@pytest.fixture(autouse=True)
def no_padding(monkeypatch):
    monkeypatch.delenv(PADDING_VARIABLE, raising=False)


# -- calibration run, then the value run ---------------------------------------------


def test_calibrating_worker_returns_a_calibration_run_then_a_value_run():
    task, clock, work = make_task()
    benchmark = run_task(task, worker_args(), clock=clock)
    calibration, run = benchmark.get_runs()
    # loops: 1 (1 ms, below the 10 ms target) -> 10 (10 ms, accepted)
    assert calibration.values == ()
    assert [loops for loops, _ in calibration.warmups] == [1, 10]
    assert [value for _, value in calibration.warmups] == pytest.approx([1e-3, 1e-3])
    assert calibration.is_calibration_loops()
    assert calibration.get_metadata()["calibrate_loops"] == 10
    assert calibration.get_calibration_loops() == 10
    assert run.values == pytest.approx((1e-3, 1e-3, 1e-3))
    assert [loops for loops, _ in run.warmups] == [10]
    assert run.get_loops() == 10
    assert "calibrate_loops" not in run.get_metadata()
    assert work.calls == 1 + 10 + 10 + 3 * 10
    assert benchmark.get_name() == "bench"


def test_later_worker_returns_one_value_run():
    task, clock, work = make_task()
    benchmark = run_task(task, worker_args(argv=["--worker", "-l", "4", "-n", "2", "-w", "0"]), clock=clock)
    (run,) = benchmark.get_runs()
    assert run.values == pytest.approx((1e-3, 1e-3))
    assert run.warmups == ()
    assert run.get_loops() == 4
    assert work.calls == 8


def test_value_run_metadata():
    task, clock, _ = make_task("my bench", inner_loops=5, metadata={"task_key": "t", "shared": "task"})
    benchmark = run_task(task, worker_args(), {"runner_key": 1, "shared": "runner"}, clock=clock)
    metadata = benchmark.get_runs()[-1].get_metadata()
    assert metadata["name"] == "my bench"
    assert metadata["loops"] == 10
    assert metadata["inner_loops"] == 5
    assert metadata["runner_key"] == 1
    assert metadata["task_key"] == "t"
    assert metadata["shared"] == "task"  # the task's metadata wins over the runner's
    # the fake clock moves 1 ns per call
    assert metadata["timer_call_cost"] == pytest.approx(1e-9, rel=1e-3)
    assert metadata["timer_effective_resolution"] == pytest.approx(1e-9, rel=1e-3)
    assert metadata["python_implementation"]  # collected metadata
    assert metadata["unit"] == "second"  # as pyperf writes it
    assert "env_padding" not in metadata
    assert "steady_state" not in metadata
    # values are per inner loop
    assert benchmark.get_runs()[-1].values == pytest.approx((2e-4,) * 3)


def test_cpu_clock_is_recorded_in_every_run():
    task, clock, _ = make_task()
    benchmark = run_task(task, worker_args("--clock", "cpu"), {"clock": "wall"}, clock=clock)
    calibration, run = benchmark.get_runs()
    for metadata in (calibration.get_metadata(), run.get_metadata()):
        assert metadata["clock"] == "cpu"
        assert metadata["timer"].startswith(time.get_clock_info("thread_time").implementation + ", resolution: ")
    # the probe read the clock the task reads: calibration sizes the loops for it
    assert run.get_metadata()["timer_effective_resolution"] == pytest.approx(1e-9, rel=1e-3)


def test_wall_clock_runs_have_no_clock_key():
    task, clock, _ = make_task()
    benchmark = run_task(task, worker_args(), {"clock": "cpu"}, clock=clock)
    assert all("clock" not in run.get_metadata() for run in benchmark.get_runs())
    assert benchmark.get_clock() == "wall"


def test_a_unit_declared_by_the_script_is_kept():
    task, clock, _ = make_task(metadata={"unit": "integer"})
    benchmark = run_task(task, worker_args(), clock=clock)
    assert benchmark.get_metadata()["unit"] == "integer"


@pytest.mark.skipif(python_has_jit(), reason="no empty loop is timed on a JIT runtime")
def test_loop_overhead_is_timed_once_after_the_values_and_recorded():
    task, clock, work = make_task(inner_loops=5)
    timed = []

    def empty_loop(loops):
        timed.append((loops, work.calls))
        clock.now += loops * 2e-5
        return loops * 2e-5

    task.overhead_function = empty_loop
    benchmark = run_task(task, worker_args(), clock=clock)
    _calibration, run = benchmark.get_runs()
    calls_for_values = work.calls
    # once, after every sample, with a tenth of the 10 value loops
    assert timed == [(1, calls_for_values)]
    # per statement, as the values: 2e-5 s per iteration / 5 inner loops
    assert run.get_metadata()["loop_overhead"] == pytest.approx(4e-6)
    assert benchmark.get_metadata()["loop_overhead"] == pytest.approx(4e-6)


def test_no_loop_overhead_without_an_empty_loop():
    task, clock, _ = make_task()
    assert "loop_overhead" not in run_task(task, worker_args(), clock=clock).get_metadata()


def test_env_padding_metadata(monkeypatch):
    monkeypatch.setenv(PADDING_VARIABLE, "x" * 17)
    task, clock, _ = make_task()
    benchmark = run_task(task, worker_args(), clock=clock)
    assert [run.get_metadata()["env_padding"] for run in benchmark.get_runs()] == [17, 17]


def test_empty_env_padding_is_recorded(monkeypatch):
    monkeypatch.setenv(PADDING_VARIABLE, "")
    task, clock, _ = make_task()
    benchmark = run_task(task, worker_args("-l", "10", argv=["--worker", "-n", "1", "-w", "0"]), clock=clock)
    assert benchmark.get_runs()[0].get_metadata()["env_padding"] == 0


class FixedDatetime(datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return cls(2024, 5, 1, 10, 0, 0, 123456)


def test_date_and_duration(monkeypatch):
    readings = iter([100.0, 102.5])
    monkeypatch.setattr(worker, "time", SimpleNamespace(monotonic=lambda: next(readings)))
    monkeypatch.setattr(worker, "datetime", SimpleNamespace(datetime=FixedDatetime))
    task, clock, _ = make_task()
    benchmark = run_task(task, worker_args(), clock=clock)
    run = benchmark.get_runs()[-1]
    assert run.get_metadata()["date"] == "2024-05-01 10:00:00.123456"
    assert run.get_date() == "2024-05-01 10:00:00.123456"
    # the calibration steps' time belongs to the calibration run
    calibration = benchmark.get_runs()[0]
    assert run.get_metadata()["duration"] + calibration.get_metadata()["duration"] == pytest.approx(2.5)
    assert 0 < calibration.get_duration() < run.get_duration() < 2.5


def test_calibrating_worker_duration_is_counted_once(monkeypatch):
    readings = iter([100.0, 102.5])
    monkeypatch.setattr(worker, "time", SimpleNamespace(monotonic=lambda: next(readings)))
    task, clock, _ = make_task()
    benchmark = run_task(task, worker_args(), clock=clock)
    assert benchmark.get_total_duration() == pytest.approx(2.5)


def test_real_date_is_now():
    task, clock, _ = make_task()
    before = datetime.datetime.now()
    run = run_task(task, worker_args(), clock=clock).get_runs()[-1]
    date = datetime.datetime.fromisoformat(run.get_metadata()["date"])
    assert before <= date <= datetime.datetime.now()
    assert run.get_metadata()["duration"] >= 0


def test_on_sample_sees_every_sample():
    task, clock, _ = make_task()
    seen = []
    run_task(task, worker_args(), clock=clock, on_sample=lambda kind, loops, raw: seen.append((kind, loops)))
    assert seen == [
        ("calibration", 1),
        ("calibration", 10),
        ("warmup", 10),
        ("value", 10),
        ("value", 10),
        ("value", 10),
    ]


def test_collect_callback_adds_metadata():
    task, clock, _ = make_task()
    task.collect = lambda metadata: metadata.update(command_max_rss=4096, loops_seen=metadata["loops"])
    benchmark = run_task(task, worker_args(), clock=clock)
    for run in benchmark.get_runs():
        assert run.get_metadata()["command_max_rss"] == 4096
        assert run.get_metadata()["loops_seen"] == 10


def test_errors_of_the_benchmark_propagate():
    def broken(loops):
        raise ZeroDivisionError("in the benchmark")

    with pytest.raises(ZeroDivisionError, match="in the benchmark"):
        run_task(Task("bench", broken), worker_args(), clock=FakeClock(step=1e-9))


# -- steady state ------------------------------------------------------------------


def test_auto_warmups_flat():
    task, clock, _ = make_task()
    args = worker_args(argv=["--worker", "-l", "10", "-n", "3", "-w", "auto", "--min-time", "0.01"])
    assert args.warmups == "auto"
    (run,) = run_task(task, args, clock=clock).get_runs()
    metadata = run.get_metadata()
    assert metadata["steady_state"] == "flat"
    assert metadata["steady_state_warmups"] == 0
    assert len(run.warmups) == 20  # two windows of 10
    assert run.values == pytest.approx((1e-3,) * 3)


def test_auto_warmups_end_to_end_warmup():
    # 5 slow warmups of 10 loops (50 calls), then fast
    task, clock, _ = make_task(slow_calls=50)
    args = worker_args(argv=["--worker", "-l", "10", "-n", "2", "-w", "auto", "--min-time", "0.01"])
    (run,) = run_task(task, args, clock=clock).get_runs()
    metadata = run.get_metadata()
    assert metadata["steady_state"] == "warmup"
    assert 5 <= metadata["steady_state_warmups"] <= 10
    assert len(run.warmups) >= 20
    assert [value for _, value in run.warmups[:5]] == pytest.approx([2e-3] * 5)
    assert run.values == pytest.approx((1e-3, 1e-3))


def fake_measure(monkeypatch, samples):
    """Replace the sampling by *samples*; returns the plans it was given."""
    plans = []

    def measure(time_function, plan, timer, on_sample=None, on_values=None):
        plans.append(plan)
        return samples

    monkeypatch.setattr(worker, "measure", measure)
    return plans


def test_auto_warmups_records_the_steady_state(monkeypatch):
    warmups = ((10, 2e-3),) * 7 + ((10, 1e-3),) * 23
    samples = Samples(
        values=(1e-3, 1e-3), warmups=warmups, loops=10, calibration_steps=0, steady=SteadyState("warmup", 7, (7,))
    )
    plans = fake_measure(monkeypatch, samples)
    task, clock, _ = make_task()
    args = worker_args(argv=["--worker", "-l", "10", "-n", "2", "-w", "auto", "--min-time", "0.01"])
    (run,) = run_task(task, args, clock=clock).get_runs()
    assert plans == [SamplingPlan(values=2, warmups=None, loops=10, min_time=0.01, inner_loops=1)]
    metadata = run.get_metadata()
    assert metadata["steady_state"] == "warmup"
    assert metadata["steady_state_warmups"] == 7
    assert run.warmups == warmups
    assert run.values == (1e-3, 1e-3)


def test_steady_state_is_left_out_of_the_calibration_run(monkeypatch):
    warmups = ((1, 1e-3), (10, 1e-3)) + ((10, 1e-3),) * 20
    samples = Samples(
        values=(1e-3,), warmups=warmups, loops=10, calibration_steps=2, steady=SteadyState("no steady state", 4, (4,))
    )
    fake_measure(monkeypatch, samples)
    task, clock, _ = make_task()
    calibration, run = run_task(task, worker_args(argv=["--worker", "-n", "1", "-w", "auto"]), clock=clock).get_runs()
    assert calibration.warmups == warmups[:2]
    assert calibration.get_metadata()["calibrate_loops"] == 10
    assert "steady_state" not in calibration.get_metadata()
    assert "steady_state_warmups" not in calibration.get_metadata()
    assert run.warmups == warmups[2:]
    assert run.get_metadata()["steady_state"] == "no steady state"
    assert run.get_metadata()["steady_state_warmups"] == 4


def test_plan_of_a_memory_worker_and_inner_loops(monkeypatch):
    plans = fake_measure(monkeypatch, Samples(values=(5.0,), warmups=(), loops=1, calibration_steps=0))
    task, clock, _ = make_task(inner_loops=3)
    run_task(task, worker_args("--tracemalloc", argv=["--worker", "-l", "100", "-n", "1", "-w", "2"]), clock=clock)
    # a peak of memory is the peak of the whole sample: not divided by the
    # inner loops (pyperf stores the peak as it is too)
    assert plans == [SamplingPlan(values=1, warmups=2, loops=1, min_time=0.1, inner_loops=1)]


def test_auto_warmups_with_calibration():
    task, clock, _ = make_task()
    args = worker_args(argv=["--worker", "-l", "0", "-n", "2", "-w", "auto", "--min-time", "0.01"])
    calibration, run = run_task(task, args, clock=clock).get_runs()
    assert calibration.get_metadata()["calibrate_loops"] == run.get_loops()
    assert "steady_state" not in calibration.get_metadata()
    assert "steady_state_warmups" not in calibration.get_metadata()
    assert run.get_metadata()["steady_state"] == "flat"
    assert len(run.warmups) == 20
    assert all(loops == run.get_loops() for loops, _ in run.warmups)


# -- memory ------------------------------------------------------------------------


def test_tracemalloc_values_are_bytes():
    pytest.importorskip("tracemalloc")
    kept = []

    def allocate(loops):
        kept.append(bytearray(200_000))
        return 1e-3

    args = worker_args("--tracemalloc")
    benchmark = run_task(Task("mem", allocate), args, clock=FakeClock(step=1e-9))
    (run,) = benchmark.get_runs()  # no loop calibration: one loop per value
    assert benchmark.get_unit() == "byte"
    assert run.get_metadata()["unit"] == "byte"
    assert run.get_loops() == 1
    assert len(run.values) == 3
    assert all(value >= 200_000 for value in run.values)
    assert all(type(value) is int for value in run.values)  # bytes are integers, as pyperf stores them
    assert all(type(value) is int for _loops, value in run.warmups)
    assert len(kept) == 4  # 1 warmup + 3 values
    # the sample counts behind the peaks, as pyperf records them
    assert (run.get_metadata()["warmups"], run.get_metadata()["values"]) == (1, 3)
    assert "loop_overhead" not in run.get_metadata()


def test_track_memory_uses_the_memory_function():
    calls = []

    def peak(loops):
        calls.append(loops)
        return 4096.0

    task = Task("cmd", lambda loops: 1.0, memory_function=peak)
    (run,) = run_task(task, worker_args("--track-memory"), clock=FakeClock(step=1e-9)).get_runs()
    assert run.values == (4096, 4096, 4096)
    assert all(type(value) is int for value in run.values)
    assert run.get_metadata()["unit"] == "byte"
    assert calls == [1, 1, 1, 1]


# -- affinity, hooks, profile ----------------------------------------------------------


def test_affinity_unavailable(monkeypatch):
    import perf.platform.cpus

    pinned = []

    def refuse(cpus):
        pinned.append(list(cpus))
        return False

    monkeypatch.setattr(perf.platform.cpus, "set_cpu_affinity", refuse)
    task, clock, _ = make_task()
    with pytest.raises(UsageError, match=re.escape("--affinity: CPU affinity is not available here (install psutil)")):
        run_task(task, worker_args("--affinity", "0-1,3"), clock=clock)
    assert pinned == [[0, 1, 3]]


def test_affinity_is_set(monkeypatch):
    import perf.platform.cpus

    pinned = []
    monkeypatch.setattr(perf.platform.cpus, "set_cpu_affinity", lambda cpus: pinned.append(list(cpus)) or True)
    task, clock, _ = make_task()
    run_task(task, worker_args("--affinity", "2"), clock=clock)
    assert pinned == [[2]]


class Descriptor:
    def __init__(self, name, factory):
        self.name = name
        self.factory = factory

    def load(self):
        return self.factory


def test_hooks_wrap_every_sample_and_add_metadata():
    log = []

    class Counting(HookBase):
        def __enter__(self):
            log.append("enter")

        def __exit__(self, *exc):
            log.append("exit")

        def teardown(self, metadata):
            metadata["counting_samples"] = log.count("enter")

    task, clock, _ = make_task()
    hooks = [Descriptor("counting", Counting)]
    benchmark = run_task(task, worker_args("--hook", "counting", hooks=hooks), clock=clock, hook_descriptors=hooks)
    assert log == ["enter", "exit"] * 6  # 2 calibration steps, 1 warmup, 3 values
    metadata = benchmark.get_runs()[-1].get_metadata()
    assert metadata["counting_samples"] == 6
    assert metadata["hooks"] == "counting"


def test_hook_that_refuses_to_start():
    from perf.measure.hooks import HookError

    class Refusing(HookBase):
        def __init__(self):
            raise HookError("not here")

    task, clock, _ = make_task()
    hooks = [Descriptor("refusing", Refusing)]
    with pytest.raises(WorkerError, match=re.escape("hook 'refusing' cannot be set up: not here")):
        run_task(task, worker_args("--hook", "refusing", hooks=hooks), clock=clock, hook_descriptors=hooks)


def profiled_work_calls(path):
    """Calls of Work.__call__ (not FakeClock.__call__, defined in helpers.py)."""
    stats = pstats.Stats(str(path)).stats
    return sum(
        calls
        for (filename, _, name), (_, calls, *_rest) in stats.items()
        if name == "__call__" and os.path.basename(filename) == "test_worker.py"
    )


def test_profile_is_saved_and_merged(tmp_path):
    path = tmp_path / "profile.out"
    task, clock, work = make_task()
    run_task(task, worker_args("--profile", str(path)), clock=clock)
    assert profiled_work_calls(path) == work.calls == 51
    task2, clock2, work2 = make_task()
    run_task(task2, worker_args("--profile", str(path)), clock=clock2)
    assert profiled_work_calls(path) == 51 + work2.calls
    assert sorted(os.listdir(tmp_path)) == ["profile.out"]


# -- send --------------------------------------------------------------------------


def read_all(fd):
    os.set_blocking(fd, False)  # a writer left open fails the test instead of hanging it
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def test_send_writes_the_benchmark_as_json_and_closes_the_pipe():
    task, clock, _ = make_task("sent")
    benchmark = run_task(task, worker_args(), {"runner_key": "r"}, clock=clock)
    read_fd, write_fd = os.pipe()
    try:
        send(benchmark, write_fd)
        data = read_all(read_fd)
    finally:
        os.close(read_fd)
    with pytest.raises(OSError):
        os.fstat(write_fd)
    received = loads_benchmark(data)
    assert received.get_name() == "sent"
    assert received.get_nrun() == 2
    assert received.get_values() == benchmark.get_values()
    assert received.get_runs()[0].get_metadata()["calibrate_loops"] == 10
    assert received.get_runs()[1].get_metadata() == benchmark.get_runs()[1].get_metadata()
    assert received.get_runs()[1].get_metadata()["runner_key"] == "r"
    assert data.endswith(b"\n")


def test_value_runs_record_cpu_share_switches_and_the_speed_probe():
    task, clock, _ = make_task()
    calibration, run = run_task(task, worker_args(), clock=clock).get_runs()
    metadata = run.get_metadata()
    assert 0 <= metadata["cpu_share"] <= 1.0
    import resource

    if hasattr(resource, "RUSAGE_THREAD"):  # Linux CPython; not PyPy's resource module
        assert metadata["involuntary_switches"] >= 0
    else:
        assert "involuntary_switches" not in metadata
    assert metadata["speed_probe_before"] > 0 and metadata["speed_probe_after"] > 0
    # the calibration run keeps the probe of its worker, not the figures of the values
    assert "cpu_share" not in calibration.get_metadata()
    assert "involuntary_switches" not in calibration.get_metadata()


def test_memory_runs_have_no_interference_figures():
    task = Task("mem", lambda loops: 1.0, memory_function=lambda loops: 4096)
    (run,) = run_task(task, worker_args("--track-memory")).get_runs()
    assert not {"cpu_share", "speed_probe_before"} & set(run.get_metadata())
