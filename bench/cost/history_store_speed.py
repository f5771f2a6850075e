"""Time of ``history changes`` on a big store, and of ``history add`` of a big file.

Usage: python bench/cost/history_store_speed.py [-n 9] [--commits 300] [--benchmarks 50]
       [--add-benchmarks 200] [--processes 20]

Builds a store of a synthetic history (``kit.synthetic.make_history``: one
file per commit, 50 benchmarks x 20 processes x 3 values, 300 commits a
day apart, 2 % noise between processes and 1 % within, a drift per
recording, 5 % of the recordings hit by a load spike, steps of 3 % and
5 % up and down), added through the API.  Then times whole commands in
fresh interpreters, as a user pays them (start-up, imports, opening the
store and bringing its index in sync, the work, output to /dev/null):

* ``python -m perf history changes STORE`` (target: at most 2 s);
* ``python -m perf history add STORE FILE --commit SHA --date DATE`` of a
  200-benchmark x 20-process x 3-value file as a real run writes it
  (``bench/cost/load_time.py``: metadata, warmups and a calibration run per
  benchmark; 1.35 MB), into that same 300-recording store (target: at
  most 0.5 s); each repetition adds another file.

The figures are medians of N repetitions; one untimed run of each command
comes first (page cache, ``.pyc`` files).  Below them: what the commands
pay before they open the store (``python -c pass``), and the in-process
time of the index queries behind ``changes`` (``points()`` of every
benchmark and machine) and of ``timelines()``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.results import Parser
from kit.run import perf_env, timed
from kit.synthetic import Step, build_suite, commit_id, make_history

ADD_TARGET = 0.5
CHANGES_TARGET = 2.0


def build_store(path: str, commits: int, benchmarks: int, processes: int) -> float:
    """The synthetic history in a new store at *path*; returns the seconds
    the adds took (in process)."""
    from perf.history.store import HistoryStore
    from perf.storage import files

    steps = [Step(3, commits // 4, 1.03), Step(11, commits // 3, 0.95), Step(17, commits // 2, 1.05)]
    steps.append(Step(29, 2 * commits // 3, 0.97))
    history = make_history(1, commits=commits, benchmarks=benchmarks, processes=processes, spike_rate=0.05, steps=steps)
    elapsed = 0.0
    with tempfile.TemporaryDirectory() as tmp, HistoryStore.open_or_create(path) as store:
        for number, recording in enumerate(history):
            filename = os.path.join(tmp, f"{number}.json")
            files.dump(recording.suite, filename)
            start = time.perf_counter()
            store.add([filename], commit=recording.commit, date=recording.date)
            elapsed += time.perf_counter() - start
    return elapsed


def in_process(path: str, repeat: int) -> tuple[float, float, float]:
    """Medians of the CPU time of: opening the store (in sync), points()
    of everything, timelines() of everything (CPU time: the machines these
    figures come from are shared)."""
    from perf.history.store import HistoryStore
    from perf.history.timelines import timelines

    opening, points, found = [], [], []
    for _ in range(repeat):
        start = time.process_time()
        store = HistoryStore(path)
        opening.append(time.process_time() - start)
        with store:
            start = time.process_time()
            store.points()
            points.append(time.process_time() - start)
            start = time.process_time()
            timelines(store)
            found.append(time.process_time() - start)
    return statistics.median(opening), statistics.median(points), statistics.median(found)


def verdict(seconds: float, target: float) -> str:
    return f"{seconds * 1000:6.0f} ms  target <= {target:.1f} s: {'met' if seconds <= target else 'NOT MET'}"


def main() -> None:
    parser = Parser(__doc__)
    parser.add_argument("-n", type=int, default=9, help="repetitions (default: 9)")
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--benchmarks", type=int, default=50, help="benchmarks of the history (default: 50)")
    parser.add_argument("--add-benchmarks", type=int, default=200, help="benchmarks of the added file (default: 200)")
    parser.add_argument("--processes", type=int, default=20)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    env = perf_env(bytecode=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, "store")
        start = time.perf_counter()
        adds = build_store(store, args.commits, args.benchmarks, args.processes)
        built = time.perf_counter() - start
        print(
            f"store: {args.commits} commits x {args.benchmarks} benchmarks x {args.processes} processes x 3 values "
            f"(built in {built:.0f} s, of which the {args.commits} adds in process: {adds:.1f} s)"
        )
        changes = [args.python, "-m", "perf", "history", "changes", store]
        timed(changes, env)
        changes_times = [timed(changes, env) for _ in range(args.n)]

        sources = []
        for number in range(args.n + 1):
            source = os.path.join(tmp, f"add-{number}.json")
            build_suite(args.add_benchmarks, args.processes, seed=100 + number).dump(source)
            sources.append(source)
        size = os.path.getsize(sources[0])
        add_times = []
        for number, source in enumerate(sources):
            date = f"2027-01-{1 + number % 28:02d}T12:00:00+00:00"
            argv = [args.python, "-m", "perf", "history", "add", store, source]
            argv += ["--commit", commit_id(10_000 + number, 7), "--date", date, "--machine", "add-machine"]
            figures = timed(argv, env)
            if number:  # the first one is untimed
                add_times.append(figures)
        start_up = statistics.median(timed([args.python, "-c", "pass"], env)[0] for _ in range(args.n))
        opening, points, found = in_process(store, args.n)

    print(f"medians of {args.n} runs, wall clock (CPU user + system)")
    changes_wall = statistics.median(usage.wall for usage in changes_times)
    changes_cpu = statistics.median(usage.cpu for usage in changes_times)
    add_wall = statistics.median(usage.wall for usage in add_times)
    add_cpu = statistics.median(usage.cpu for usage in add_times)
    print(f"history changes ({args.benchmarks} x {args.commits}):   {verdict(changes_wall, CHANGES_TARGET)}")
    print(f"                                       (CPU {changes_cpu * 1000:.0f} ms)")
    print(f"history add ({args.add_benchmarks} benchmarks, {size / 1e6:.2f} MB): {verdict(add_wall, ADD_TARGET)}")
    print(f"                                       (CPU {add_cpu * 1000:.0f} ms)")
    print(
        f"python -c pass: {start_up * 1000:.0f} ms; "
        f"load average at the end: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)"
    )
    print(
        f"in process (CPU time), the {args.commits}-recording store: open (index in sync) {opening * 1000:.1f} ms, "
        f"points() of everything {points * 1000:.1f} ms, timelines() {found * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
