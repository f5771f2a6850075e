"""perf.measure.parent.batches: batch workers run one after another, with tiny real worker processes."""

from __future__ import annotations

import json
import os
import sys
import textwrap

import pytest

from perf.errors import WorkerError
from perf.measure.parent import batches
from perf.measure.parent.batches import Outcomes, Progress, count_batches, list_tests, run_batches
from perf.measure.protocol import DONE, ERROR, PARENT, START, Event
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.storage.files import dumps

#: a batch worker: argv[1] is its mode; its spec is its last argument
WORKER = """
    import json, os, sys, time
    from perf.measure.protocol import DONE, ERROR, LISTED, PARENT, START, BatchSpec, EventPipe
    from perf.model.benchmark import Benchmark
    from perf.model.run import Run
    from perf.storage.files import dumps

    mode = sys.argv[1]
    spec = BatchSpec.load(sys.argv[-1].split("=", 1)[1])
    with open(os.environ["WORKER_LOG"], "a") as log:
        seed = os.environ.get("PYTHONHASHSEED")
        log.write(json.dumps([sys.argv[2:-1], spec.tests, spec.loops, spec.files, spec.metric, seed]) + "\\n")
    pipe = EventPipe(spec.pipe)
    print("started", flush=True)
    if mode == "fail":
        print("boom", file=sys.stderr)
        sys.exit(2)
    if spec.list_only:
        for test in ("a", "b"):
            pipe.send(LISTED, test, test + ".py")
        sys.exit(0)
    for test in spec.tests:
        pipe.send(START, test)
        if spec.metric == "instructions" and mode != "measure":
            if mode == "count-crash":
                os._exit(3)
            pipe.send(ERROR, test, "it failed under valgrind")
            continue
        if mode == "crash" and test == "b":
            print("dying", flush=True)
            os._exit(3)
        if test == "p":
            pipe.send(PARENT, test)
            continue
        if test == "e":
            pipe.send(ERROR, test, "it failed")
            continue
        if mode == "slow":
            time.sleep(0.6)
        metadata = {"name": test, "loops": spec.loops.get(test, {"d": 5, "f": 3}.get(test, 8))}
        pipe.send(DONE, test, dumps(Benchmark([Run((1.0, 2.0), metadata=metadata, collect_metadata=False)])))
"""


@pytest.fixture
def worker(tmp_path, monkeypatch):
    """(the command of a batch worker in *mode*, what each worker was given)"""
    script = tmp_path / "worker.py"
    script.write_text(textwrap.dedent(WORKER))
    log = tmp_path / "log"

    def command(mode):
        return lambda prefix: [sys.executable, str(script), mode, os.path.basename(prefix)]

    def given():
        return [json.loads(line) for line in log.read_text().splitlines()]

    monkeypatch.setenv("WORKER_LOG", str(log))
    return command, given


def run(command, tests, processes=3, progress=None):
    seen = [] if progress is None else progress
    outcomes = run_batches(
        tests,
        ["a.py"],
        processes,
        command=command,
        cwd=os.getcwd(),
        on_progress=seen.append,
        on_lock_wait=lambda holders: None,
    )
    return outcomes, seen


def test_each_process_measures_every_test_with_the_loops_of_the_first(worker):
    command, given = worker
    outcomes, seen = run(command("measure"), ["a", "p", "e", "c"])
    assert outcomes.get("a").get_nrun() == 3
    assert outcomes.get("a").get_values() == (1.0, 2.0) * 3
    assert outcomes.loops == {"a": 8, "c": 8}
    assert outcomes.get("e") == "it failed"
    assert outcomes.in_parent == {"p"}
    calls = given()
    assert [call[0] for call in calls] == [["process1-1"], ["process2-1"], ["process3-1"]]
    assert [call[1] for call in calls] == [["a", "p", "e", "c"], ["a", "c"], ["a", "c"]]
    assert [call[2] for call in calls] == [{}, {"a": 8, "c": 8}, {"a": 8, "c": 8}]
    assert all(call[3] == ["a.py"] for call in calls)
    assert [(progress.process, progress.processes, progress.measured, progress.ended) for progress in seen] == [
        (1, 3, 2, True),
        (2, 3, 2, True),
        (3, 3, 2, True),
    ]


def test_the_test_a_worker_dies_on_fails_and_a_new_worker_measures_the_next(worker):
    command, given = worker
    outcomes, seen = run(command("crash"), ["a", "b", "c"], processes=2)
    assert outcomes.get("b") == (
        "a worker process died while measuring it (exit status 3); its last output:\nstarted\ndying"
    )
    assert outcomes.get("a").get_nrun() == outcomes.get("c").get_nrun() == 2
    assert [call[1] for call in given()] == [["a", "b", "c"], ["c"], ["a", "c"]]
    assert [call[0] for call in given()] == [["process1-1"], ["process1-2"], ["process2-1"]]
    assert [progress.measured for progress in seen] == [2, 2]


def test_a_worker_that_fails_before_measuring_fails_every_test(worker):
    command, given = worker
    outcomes, seen = run(command("fail"), ["a", "b"])
    assert (
        outcomes.get("a")
        == outcomes.get("b")
        == (
            "a worker process (pytest) failed before measuring anything (exit status 2); its last output:\nstarted\nboom"
        )
    )
    assert len(given()) == 1  # nothing left to measure for the other processes
    assert seen == [Progress(1, 3, 0, seen[0].seconds, True)]


def test_a_long_worker_says_how_far_it_is(worker, monkeypatch):
    monkeypatch.setattr(batches, "PROGRESS_EVERY", 0.5)
    command, _ = worker
    _, seen = run(command("slow"), ["a", "b"], processes=1)
    ongoing = [progress for progress in seen if not progress.ended]
    assert ongoing, seen
    assert all(progress.process == 1 and progress.measured <= 2 for progress in ongoing)
    assert seen[-1].ended and seen[-1].measured == 2


def test_listing(worker):
    command, given = worker
    assert list_tests(command("measure"), os.getcwd()) == {"a": "a.py", "b": "b.py"}
    assert given()[0][:2] == [["list"], []]
    with pytest.raises(WorkerError, match="the worker that lists the benchmark tests failed \\(exit status 2\\)"):
        list_tests(command("fail"), os.getcwd())


def count(command, tests, samples=2):
    seen = []
    outcomes = count_batches(tests, samples, command=command, cwd=os.getcwd(), on_progress=seen.append)
    return outcomes, seen


def test_counts_calibrate_once_then_count_each_test_alone_in_pairs(worker, fake_valgrind, monkeypatch, tmp_path):
    monkeypatch.setattr(batches, "_cpus", lambda: 3)  # one pair at a time
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    command, given = worker
    outcomes, seen = count(command("measure"), {"a": "a.py", "p": "a.py", "e": "a.py", "c": "c.py"})
    for test in ("a", "c"):
        runs = outcomes.get(test).get_runs()
        assert [run.values for run in runs] == [(fake_valgrind.IR_PER_LOOP,)] * 2
        assert [run.get_metadata()["hash_seed"] for run in runs] == [1, 2]
        assert all(run.get_metadata()["unit"] == "integer" and run.get_loops() == 8 for run in runs)
    assert outcomes.get("e") == "it failed"
    assert outcomes.in_parent == {"p"}
    calls = given()
    assert calls[0] == [["process1-1"], ["a", "p", "e", "c"], {}, ["a.py", "c.py"], "time", None]
    pairs = sorted(calls[1:])  # the two workers of a pair start together
    assert [call[0] for call in pairs] == [
        [f"count{sample}-{index}{half}"] for sample in (1, 2) for index in (0, 1) for half in "ab"
    ]
    assert pairs[2][1:] == [["c"], {"c": 8}, ["c.py"], "instructions", "1"]
    assert pairs[3][1:] == [["c"], {"c": 16}, ["c.py"], "instructions", "1"]
    assert {call[5] for call in pairs[4:]} == {"2"}
    assert [(progress.stage, progress.process, progress.measured, progress.ended) for progress in seen] == [
        (batches.CALIBRATION, 1, 2, True),
        (batches.SAMPLE, 1, 2, True),
        (batches.SAMPLE, 2, 2, True),
    ]
    outcomes.save(str(tmp_path / "outcomes"))  # for xdist's workers
    assert Outcomes.load(str(tmp_path / "outcomes")).get("a").get_values() == (fake_valgrind.IR_PER_LOOP,) * 2


def test_pairs_run_at_once_on_more_cpus_each_counted_from_its_own_files(worker, fake_valgrind, monkeypatch):
    monkeypatch.setattr(batches, "_cpus", lambda: 6)  # three pairs at once
    command, given = worker
    outcomes, _ = count(command("measure"), {"a": "a.py", "d": "a.py", "f": "a.py"}, samples=1)
    # loops 8, 5 and 3: a low process of one pair against the high one of another would not give 1000
    assert [outcomes.get(test).get_values() for test in "adf"] == [(fake_valgrind.IR_PER_LOOP,)] * 3
    assert [outcomes.get(test).get_runs()[0].get_loops() for test in "adf"] == [8, 5, 3]
    assert len(given()) == 7


@pytest.mark.parametrize(
    ("mode", "error"),
    [
        ("count-error", "it failed under valgrind"),
        ("count-crash", "a worker process under valgrind did not count it (exit status 3); its last output:\nstarted"),
    ],
)
def test_a_test_that_fails_under_valgrind_fails_with_its_error(worker, fake_valgrind, mode, error):
    command, _ = worker

    def calibrated_then(prefix):  # the worker without valgrind measures; the counting ones fail
        return command("measure" if "process" in prefix else mode)(prefix)

    outcomes, seen = count(calibrated_then, {"a": "a.py"})
    assert outcomes.get("a") == error
    assert [progress.measured for progress in seen] == [1, 0, 0]


def benchmark(name, values, loops=10):
    return Benchmark([Run(values, metadata={"name": name, "loops": loops}, collect_metadata=False)])


def test_events_of_a_worker():
    outcomes = Outcomes()
    events = [
        Event(START, "a"),
        Event(DONE, "a", dumps(benchmark("a", (1.0, 2.0), loops=12))),
        Event(START, "b"),
        Event(ERROR, "b", "tail"),
        Event(PARENT, "c"),
        Event(START, "d"),
    ]
    assert outcomes.apply(events) == ({"a", "b", "c"}, "d")
    assert outcomes.get("a").get_values() == (1.0, 2.0)
    assert outcomes.loops == {"a": 12}
    assert outcomes.get("b") == "tail"
    assert outcomes.in_parent == {"c"}
    assert outcomes.get("c") is None


def test_runs_of_later_processes_join_the_first_and_outcomes_round_trip(tmp_path):
    outcomes = Outcomes()
    outcomes.apply([Event(DONE, "a", dumps(benchmark("a", (1.0, 2.0), loops=5))), Event(PARENT, "c")])
    outcomes.apply([Event(DONE, "a", dumps(benchmark("a", (3.0, 4.0), loops=5)))])
    outcomes.fail(["b"], "tail")
    assert outcomes.get("a").get_nrun() == 2
    assert outcomes.loops == {"a": 5}
    outcomes.save(str(tmp_path / "outcomes"))
    loaded = Outcomes.load(str(tmp_path / "outcomes"))
    assert loaded.get("a").get_values() == (1.0, 2.0, 3.0, 4.0)
    assert (loaded.errors, loaded.in_parent, loaded.loops) == ({"b": "tail"}, {"c"}, {"a": 5})
