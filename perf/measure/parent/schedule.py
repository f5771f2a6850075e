"""The schedule: which worker runs next, and when a benchmark is done.

A :class:`Recorder` runs the workers of one benchmark on one side, one at
a time: the first calibrates the loops and keeps its values; the others
reuse its loop count.  A :class:`ScheduledBenchmark` is one benchmark of a
schedule: one recorder, or two (reference, changed) run as interleaved
pairs in a seeded order, or more (the commits of ``history record``) run
in rounds of one worker each, in an order drawn from the seed for every
round.  :func:`run_schedule` runs them in rounds, shuffled for a suite,
until each has its processes or is precise enough.

Must not: print (progress goes to a callback), spawn processes itself
(:mod:`perf.measure.parent.workers` does), or exit.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

from perf.analysis.benchmarks import PAIR_KEY, SEED_KEY
from perf.errors import WorkerError
from perf.measure.parent.allocation import PILOT_PROCESSES
from perf.measure.parent.allocation import pilot_values as choose_values
from perf.measure.parent.launcher import NextWorker, Standby, WorkerLauncher
from perf.measure.parent.workers import WorkerOutput
from perf.model.benchmark import Benchmark

if TYPE_CHECKING:
    from perf.measure.parent.stopping import StoppingRule


class Progress(NamedTuple):
    """One finished worker, for progress displays."""

    name: str
    done: int
    total: int
    output: WorkerOutput
    #: wall time since the first worker of this benchmark started
    elapsed: float


class Recorder:
    """The workers of one benchmark, run one at a time: the first
    calibrates the loops (unless ``--loops``), the next ones reuse them.
    With ``--adaptive-values``, the values per process after a pilot of
    :data:`PILOT_PROCESSES` come from what the pilot measured."""

    def __init__(self, launcher: WorkerLauncher, task: int, name: str, total: int | None = None) -> None:
        self.launcher = launcher
        self.task = task
        self.name = name
        options = launcher.options
        self.total = options.processes if total is None else total
        self.loops: int = options.loops
        self.values: int = options.values
        self.count = 0
        self.benchmark: Benchmark | None = None
        #: wall time of each worker (the cost the adaptive values weigh)
        self.elapsed: list[float] = []

    def next_worker(self) -> NextWorker | None:
        """The worker this recorder runs next, once its loops are known
        (None: they are not yet)."""
        return (self.launcher, self.task, self.loops, self.values) if self.loops else None

    def run_worker(
        self,
        metadata: dict[str, Any] | None = None,
        standby: Standby | None = None,
        following: Recorder | None = None,
    ) -> WorkerOutput:
        """Run the next worker; add *metadata* to the runs it sent.  With a
        *standby*: the worker it holds for this one, if any, and meanwhile
        the next worker of the *following* recorder starts there."""
        what = f"worker {self.count + 1}/{self.total} of {self.name!r}"
        label = self.launcher.side.label
        if label:  # which side: an interpreter of --compare-to, a commit of history record
            what += f" ({label})"
        after = None if following is None else following.next_worker()
        output = self.launcher.run_worker(
            self.task, self.loops, self.values, what, self.count + 1, standby=standby, following=after
        )
        sent = output.benchmark.get_name()
        if sent != self.name:
            raise WorkerError(
                f"{what} measured {sent!r} instead: does the script run the same benchmarks, in the same "
                "order, in every process (custom options must reach workers through add_cmdline_args)?"
            )
        if metadata:
            output.benchmark.update_metadata(metadata)
        if self.benchmark is None:
            self.benchmark = output.benchmark
        else:
            self.benchmark.add_runs(output.benchmark)
        if not self.loops:
            self.loops = output.benchmark.get_runs()[-1].get_loops()
        self.count += 1
        self.elapsed.append(output.elapsed)
        if self.launcher.options.adaptive_values and self.count == PILOT_PROCESSES:
            self.values = choose_values(self.result(), self.elapsed) or self.values
        return output

    def result(self) -> Benchmark:
        assert self.benchmark is not None
        return self.benchmark


#: metadata of the runs of an interleaved comparison: the pair (1-based),
#: the seed that decided the order in each pair (perf.analysis.benchmarks
#: pairs runs by them), the position in the pair
POSITION_KEY = "ab_position"
#: metadata of the runs of a shuffled suite: the seed of the benchmark
#: order and the round (1-based) the worker ran in
SCHEDULE_SEED_KEY = "schedule_seed"
ROUND_KEY = "schedule_round"


def _first_side(rng: random.Random) -> tuple[int, int]:
    return (0, 1) if rng.random() < 0.5 else (1, 0)


def pair_order(seed: int, pairs: int) -> list[tuple[int, int]]:
    """The order of the two sides in each pair: ``(0, 1)`` (reference
    first) or ``(1, 0)``, drawn from *seed* (so a run can be replayed)."""
    rng = random.Random(seed)
    return [_first_side(rng) for _ in range(pairs)]


class ScheduledBenchmark:
    """One benchmark of a schedule: its recorder, or the recorders of the
    sides of an interleaved comparison: two (reference, changed) run as
    pairs in the order :func:`pair_order` draws from *pair_seed*; more run
    as rounds of one worker each, in an order drawn from *pair_seed* too.
    Every run of an interleaved one records its pair (round), the seed and
    its position, so that any two of its sides pair again.

    *shared_loops*: the loops the first worker calibrates are every
    side's (the commits of a timeline are timed alike); otherwise each
    side calibrates its own (two interpreters)."""

    def __init__(self, recorders: Sequence[Recorder], total: int, pair_seed: int, shared_loops: bool = False) -> None:
        self.recorders = list(recorders)
        self.name = self.recorders[0].name
        #: the most workers (pairs, rounds) it may run
        self.total = total
        self.pair_seed = pair_seed
        self.shared_loops = shared_loops
        self.count = 0
        self.finished = False
        #: why it stopped early (a worker failed), in a run that keeps going
        self.error: WorkerError | None = None
        self._orders = random.Random(pair_seed)
        #: the order of the sides in the next pair (round)
        self._next_order = self._order()

    def _order(self) -> Sequence[int]:
        if len(self.recorders) == 2:
            return _first_side(self._orders)  # the draws of pair_order(): a run can be replayed
        return self._orders.sample(range(len(self.recorders)), len(self.recorders))

    def first(self) -> Recorder:
        """The recorder of the first worker of the next pair (round)."""
        return self.recorders[self._next_order[0]]

    def step(
        self,
        metadata: dict[str, Any],
        rule: StoppingRule | None,
        on_output: Callable[[int, WorkerOutput], None],
        standby: Standby | None = None,
        following: ScheduledBenchmark | None = None,
    ) -> None:
        """Run one worker (one pair, one round), then decide whether it is
        finished.  With a *standby*, the next worker starts while one
        measures: the next of this pair (round), then the first of
        *following*'s next one (the next benchmark of the round, or this
        one again)."""
        self.count += 1
        order, self._next_order = self._next_order, self._order()
        last = None
        if following is not None and (following is not self or self.count < self.total):
            last = following.first()
        nexts = [*(self.recorders[side] for side in order[1:]), last]
        if len(self.recorders) == 1:
            on_output(0, self.recorders[0].run_worker(metadata, standby, nexts[0]))
        else:
            for position, side in enumerate(order, 1):
                pair = {PAIR_KEY: self.count, SEED_KEY: self.pair_seed, POSITION_KEY: position}
                recorder = self.recorders[side]
                on_output(side, recorder.run_worker({**metadata, **pair}, standby, nexts[position - 1]))
                if self.shared_loops:
                    for other in self.recorders:
                        other.loops = other.loops or recorder.loops
        if self.count >= self.total:
            self.finished = True
        elif rule is not None and len(self.recorders) <= 2:
            means = [recorder.result().get_process_means() for recorder in self.recorders]
            precision = rule.precision(means[0]) if len(means) == 1 else rule.paired_precision(*means)
            elapsed = sum(sum(recorder.elapsed) for recorder in self.recorders)
            self.finished = rule.done(self.count, precision, elapsed)

    def results(self) -> list[Benchmark]:
        return [recorder.result() for recorder in self.recorders]

    def measured(self) -> list[Benchmark | None]:
        """The runs of each side so far (None: no worker finished); with
        several sides, only the pairs (rounds) every side finished: a pair
        is the unit of an interleaved comparison."""
        if len(self.recorders) == 1:
            return [self.recorders[0].benchmark]
        return [_first_pairs(recorder.benchmark, self.processes()) for recorder in self.recorders]

    def processes(self) -> int:
        """How many workers (pairs, rounds) every side finished."""
        return min(recorder.count for recorder in self.recorders)


def _first_pairs(benchmark: Benchmark | None, pairs: int) -> Benchmark | None:
    """The runs of *benchmark* from its first *pairs* pairs (None: none)."""
    if benchmark is None or not pairs:
        return None
    runs = [run for run in benchmark.get_runs() if run._get(PAIR_KEY, 0) <= pairs]
    return Benchmark(runs)


def run_schedule(
    entries: Sequence[ScheduledBenchmark],
    seed: int,
    *,
    shuffle: bool = False,
    rule: StoppingRule | None = None,
    on_progress: Callable[[int, Progress], None] | None = None,
    keep_going: bool = False,
) -> None:
    """Run the workers of *entries* (benchmarks) in rounds: each round runs
    one worker (one pair) of every unfinished benchmark.  With *shuffle* (a
    suite), the order of the entries in each round is drawn from *seed*
    (doc/design.rst, R6: slow drift then spreads over all benchmarks
    instead of hitting the last ones), and every run records the seed and
    its round (:data:`SCHEDULE_SEED_KEY`, :data:`ROUND_KEY`).  A benchmark stops
    after its *total* workers, or earlier when *rule* (--target-precision)
    finds its interval precise enough.  *on_progress* gets the side and
    the progress: of the benchmark alone, or of all workers when there are
    several benchmarks.  *keep_going*: a benchmark whose worker fails
    stops (its :attr:`ScheduledBenchmark.error`) and the others go on;
    otherwise the WorkerError stops them all."""
    order = random.Random(f"order:{seed}")
    done = 0
    start = time.monotonic()
    active = list(entries)
    round_ = 0
    standby = Standby()
    try:
        while active:
            round_ += 1
            metadata = {SCHEDULE_SEED_KEY: seed, ROUND_KEY: round_} if shuffle else {}
            ordered = order.sample(active, len(active)) if shuffle else active
            for index, entry in enumerate(ordered):

                def on_output(side: int, output: WorkerOutput, entry: ScheduledBenchmark = entry) -> None:
                    nonlocal done
                    done += 1
                    if on_progress is None:
                        return
                    elapsed = time.monotonic() - start
                    if len(entries) == 1:
                        on_progress(side, Progress(entry.name, entry.count, entry.total, output, elapsed))
                    else:
                        progress = Progress(f"{len(entries)} benchmarks", done, _planned(entries), output, elapsed)
                        on_progress(side, progress)

                # the next worker: of the next benchmark of the round, or of this one when it is alone
                following = ordered[index + 1] if index + 1 < len(ordered) else None
                try:
                    entry.step(metadata, rule, on_output, standby, entry if len(ordered) == 1 else following)
                except WorkerError as exc:
                    if not keep_going:
                        raise
                    entry.error = exc
                    entry.finished = True
            active = [entry for entry in active if not entry.finished]
    finally:
        standby.cancel()


def _planned(entries: Sequence[ScheduledBenchmark]) -> int:
    """The workers *entries* will run: all planned, except those a failed
    benchmark will not run."""
    return sum(
        entry.total * len(entry.recorders) if entry.error is None else sum(rec.count for rec in entry.recorders)
        for entry in entries
    )


def plan_benchmarks(
    launchers: Sequence[WorkerLauncher],
    benchmarks: Sequence[tuple[int, str]],
    seed: int,
    shared_loops: bool = False,
) -> list[ScheduledBenchmark]:
    """The schedule of *benchmarks* (task number, name), for :func:`run_schedule`.

    One launcher (side): each benchmark's workers.  Two (reference, changed):
    interleaved pairs (doc/design.rst, R6), machine drift hitting both
    sides of a pair alike so that it cancels in the paired comparison; each
    side calibrates its own loops in its first worker (with
    *shared_loops*: the first worker's loops are every side's), and the
    order in the pairs of benchmark *i* is drawn from ``seed + i``
    (recorded as :data:`SEED_KEY`, with :data:`PAIR_KEY` and
    :data:`POSITION_KEY`).  More: rounds of one worker per side.  Each
    benchmark gets the largest process budget of the sides (its pairs);
    --target-precision may stop it earlier (two sides at most)."""
    total = max(launcher.options.processes for launcher in launchers)
    return [
        ScheduledBenchmark(
            [Recorder(launcher, task, name, total) for launcher in launchers],
            total,
            (seed + index) % 2**31,
            shared_loops,
        )
        for index, (task, name) in enumerate(benchmarks)
    ]
