"""Change detection on synthetic histories: false changes, and how soon a
step is found (issue 16's targets).

Histories come from bench/kit/synthetic.py (perf's own API: one suite
per commit, 20 processes x 3 values, about 2 % noise between processes and
1 % within, a drift shared by every benchmark of a recording).  Each
timeline goes through perf.history.timelines exactly as ``history changes``
runs it on a store (the drift shared by a recording's benchmarks, then each
benchmark's segmentation); only the files and the index are skipped.

Scenarios (a "series" is one benchmark's timeline):

* ``noise``: no change at all, 60-100 commits: the share of series with a
  false change (target <= 1 %);
* ``spikes``: the same with 5 % of recordings hit by a load spike (<= 2 %);
* ``steps``: 10 of the 50 benchmarks get one step of 3 % or 5 %, up or
  down, at a random commit: found (a change whose first commit after is the
  step's commit or at most 2 later, in the step's direction), and false
  changes in the 40 other benchmarks;
* ``latency``: a step of 3 % (or 5 %) with only k commits after it, at the
  end of the history: the share found within those k commits (target: 95 %
  at k = 2; asv needs about 10 commits, Perfherder 12);
* ``global``: every benchmark steps by 3 % at once (an interpreter-wide
  change), which the drift correction must not take for drift.

A busy machine (issue 22): ``--slow-runs RATE`` adds runs of slow time
(bench/kit/synthetic.py's :class:`Load`: busy runs of ``--run-length``
slots on average, 5-40 % slower, ``--off-cpu`` of it time off the CPU that
the workers' CPU share records) to every scenario; a slot is a recording,
or with ``--interleaved`` a round of one session that records every
commit (``history record``).

Usage::

    python bench/history/history_detection.py [--histories 40] [--seed 1] [--drift 0.01] [--only SCENARIO]
        [--slow-runs 0.1 [--run-length 3] [--off-cpu 0.8]] [--interleaved]
"""

from __future__ import annotations

import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit import synthetic
from kit.results import Parser

from perf.history.sidecar import points as index_points
from perf.history.timelines import Entry, build_timeline, machine_drift, prepare

BENCHMARKS = 50
STEPPED = 10
#: the generator's options of this run (--slow-runs, --interleaved...)
HISTORY = {}


def timelines_of(rng, commits, **options):
    """The timelines of a new history of *commits* commits (its seed from *rng*)."""
    return analyse(synthetic.make_history(rng.randrange(2**32), commits=commits, **HISTORY, **options))


def analyse(recordings):
    """The timelines of one synthetic history, as history changes finds
    them: each suite read as the store's index reads a file, each
    benchmark's entries prepared (time off the CPU, speed probe, sessions),
    the drift shared by a recording's benchmarks, then segmentation."""
    table = {}
    for recording in recordings:
        for point in index_points(recording.suite):
            entry = Entry(
                recording.commit,
                recording.date,
                recording.commit,
                point.means,
                point.probes,
                probe_source=point.probe_source,
                session=point.session,
                rounds=point.rounds,
                shares=point.shares,
            )
            table.setdefault(point.benchmark, []).append(entry)
    table = {name: prepare(entries) for name, entries in table.items()}
    order = [recording.commit for recording in recordings]
    drift = machine_drift(table, order)
    return {name: build_timeline(name, "m", "second", entries, drift) for name, entries in table.items()}


def rate(count, total):
    share = count / total if total else 0.0
    error = (share * (1 - share) / total) ** 0.5 if total else 0.0
    return f"{count}/{total} = {share * 100:.2f} % (+- {error * 100:.2f})"


def noise(args, spike_rate):
    rng = random.Random(args.seed)
    flagged = total = spikes = 0
    for _h in range(args.histories):
        commits = rng.randint(60, 100)
        timelines = timelines_of(rng, commits, spike_rate=spike_rate)
        for timeline in timelines.values():
            total += 1
            flagged += bool(timeline.changes)
            spikes += len(timeline.spikes)
    label = "spikes" if spike_rate else "noise"
    print(f"{label:8} false changes: series with one {rate(flagged, total)}; spikes reported: {spikes}")


def steps(args):
    rng = random.Random(args.seed + 1)
    found = {0.03: [0, 0], 0.05: [0, 0]}
    false = total_clean = 0
    for _h in range(args.histories):
        commits = rng.randint(60, 100)
        planted = {}
        for bench in rng.sample(range(BENCHMARKS), STEPPED):
            size = rng.choice((0.03, 0.05))
            factor = 1 + size if rng.random() < 0.5 else 1 / (1 + size)
            planted[bench] = (rng.randint(10, commits - 10), factor, size)
        step_list = [synthetic.Step(bench, at, factor) for bench, (at, factor, _) in planted.items()]
        timelines = timelines_of(rng, commits, steps=step_list, spike_rate=args.spike_rate)
        for bench in range(BENCHMARKS):
            timeline = timelines[synthetic.bench_name(bench)]
            if bench not in planted:
                total_clean += 1
                false += bool(timeline.changes)
                continue
            at, factor, size = planted[bench]
            direction = "slower" if factor > 1 else "faster"
            hit = any(at <= change.index <= at + 2 and change.direction == direction for change in timeline.changes)
            found[size][0] += hit
            found[size][1] += 1
    for size, (hit, total) in found.items():
        print(f"steps    {size * 100:.0f} % step found at its commit (+2): {rate(hit, total)}")
    print(f"steps    false changes in the unstepped benchmarks: {rate(false, total_clean)}")


def latency(args):
    rng = random.Random(args.seed + 2)
    for size in (0.03, 0.05):
        for after in (1, 2, 3, 4):
            hit = total = 0
            for _h in range(max(4, args.histories // 4)):
                commits = rng.randint(60, 100)
                planted = {
                    bench: (1 + size) if rng.random() < 0.5 else 1 / (1 + size)
                    for bench in rng.sample(range(BENCHMARKS), STEPPED)
                }
                at = commits - after
                step_list = [synthetic.Step(bench, at, factor) for bench, factor in planted.items()]
                timelines = timelines_of(rng, commits, steps=step_list, spike_rate=args.spike_rate)
                for bench, factor in planted.items():
                    direction = "slower" if factor > 1 else "faster"
                    changes = timelines[synthetic.bench_name(bench)].changes
                    hit += any(change.index >= at and change.direction == direction for change in changes)
                    total += 1
            print(f"latency  {size * 100:.0f} % step, {after} commit(s) after it: found in {rate(hit, total)}")


def global_step(args):
    rng = random.Random(args.seed + 3)
    hit = total = 0
    for _h in range(max(4, args.histories // 4)):
        commits = rng.randint(60, 100)
        at = rng.randint(10, commits - 10)
        timelines = timelines_of(rng, commits, steps=[synthetic.Step(None, at, 1.03)])
        for timeline in timelines.values():
            total += 1
            hit += any(at <= change.index <= at + 2 and change.direction == "slower" for change in timeline.changes)
    print(f"global   3 % step of every benchmark found at its commit (+2): {rate(hit, total)}")


def main():
    parser = Parser(__doc__)
    parser.add_argument("--histories", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--drift", type=float, default=0.01, help="sd of the drift shared by a recording (default 1 %%)"
    )
    parser.add_argument("--spike-rate", type=float, default=0.0, help="load spikes in the steps and latency scenarios")
    parser.add_argument(
        "--benchmarks", type=int, default=50, help="benchmarks per recording (under 5: no drift correction)"
    )
    parser.add_argument("--only", choices=("noise", "spikes", "steps", "latency", "global"))
    parser.add_argument("--slow-runs", type=float, default=0.0, help="chance that a time slot starts a busy run")
    parser.add_argument("--run-length", type=float, default=3.0, help="mean slots of a busy run (default 3)")
    parser.add_argument("--off-cpu", type=float, default=0.8, help="share of a busy slowdown off the CPU (0.8)")
    parser.add_argument("--interleaved", action="store_true", help="every commit recorded in one session, in rounds")
    args = parser.parse_args()
    global BENCHMARKS, STEPPED
    BENCHMARKS = args.benchmarks
    STEPPED = min(STEPPED, BENCHMARKS)
    load = synthetic.Load(args.slow_runs, args.run_length, args.off_cpu)
    HISTORY.update(benchmarks=BENCHMARKS, drift=args.drift, load=load, interleaved=args.interleaved)
    busy = (
        f"; runs of slow time: {args.slow_runs * 100:.0f} % of slots start one, {args.run_length:g} slots long, "
        f"{args.off_cpu * 100:.0f} % of it off the CPU"
        if args.slow_runs
        else ""
    )
    mode = "interleaved (one session, a slot is a round)" if args.interleaved else "a recording per commit"
    print(
        f"# {args.histories} histories of {BENCHMARKS} benchmarks, 20 processes x 3 values, "
        f"drift {args.drift * 100:.1f} %, spike rate {args.spike_rate * 100:.0f} % (steps, latency), seed {args.seed}; "
        f"{mode}{busy}"
    )
    started = time.perf_counter()
    scenarios = {
        "noise": lambda: noise(args, 0.0),
        "spikes": lambda: noise(args, 0.05),
        "steps": lambda: steps(args),
        "latency": lambda: latency(args),
        "global": lambda: global_step(args),
    }
    for name, scenario in scenarios.items():
        if args.only in (None, name):
            scenario()
            sys.stdout.flush()
    print(f"# {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
