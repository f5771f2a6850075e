"""A/A test of perf's comparison: false-positive rate and CI coverage on real worker processes.

Records (or reuses) a pool of worker processes of ONE benchmark with perf's
own runner -- ``python -m perf timeit`` run repeatedly with ``--append``, each
invocation a full default-size run of ``--chunk`` processes with its own loop
calibration -- then splits the pool many times into two disjoint sets of
processes of a default budget and counts how often each method claims a
difference between two sets that measured the very same code
(doc/design.rst, R1-R3; bench checks):

* perf's comparison (``perf.analysis.compare.compare_process_means``, Welch t
  on the logs of the per-process means): 95 % CI of the ratio excludes 1;
  verdict slower/faster/small change; verdict slower/faster (beyond the 1 %
  margin);
* pyperf's ``compare_to`` significance test: Student t on all pooled values
  (``pyperf._utils.is_significant``, or the same formula locally when pyperf is
  missing);
* perf's rank tests (``--robust``, ``perf.analysis.ranks``: Mann-Whitney on
  process means, Wilcoxon's signed ranks on pairs) and win rates
  (``perf.analysis.win_rate``);
* perf's paired comparison (``compare_paired_process_means``: a t test on
  the log ratios of the pairs, side A's i-th process against side B's
  i-th; doc/design.rst, R6): meant for interleaved windows, where the pairs
  are adjacent processes.

Budgets: perf's default 24 processes x 2 values (the first 2 values of each
pooled process) and pyperf's default 20 x 3 (needs ``--values 3``, the
default). Splits: *random* (two disjoint random subsets: no drift by
construction) and, to show what drift does, windows that respect time order:
*blocks* (2n consecutive processes, first half vs second half, like a
sequential ``--compare-to``), *interleaved* (2n consecutive processes, one of
each adjacent pair to each side by a coin flip) and *whole runs* (one perf
invocation against another).

The Monte-Carlo standard error printed is the binomial one, sqrt(p(1-p)/N).
Splits drawn from one pool share processes, so they are not independent: the
uncertainty about the method's true rate on this machine is larger.

Usage::

    python bench/compare/aa_compare.py [--processes 480] [--splits 1000] [--seed N] [--pool FILE | --keep]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, NamedTuple, Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit import ROOT
from kit.results import Parser
from kit.run import perf_env
from kit.stats import ALPHA, icc, pyperf_test
from kit.stats import mc_rate as rate

from perf.analysis import compare
from perf.analysis.ranks import rank_compare_process_means, signed_rank_compare_process_means
from perf.analysis.statistics import mean, stdev
from perf.analysis.win_rate import paired_win_rate, win_rate
from perf.storage.files import load_benchmark

STATEMENT = "sorted(range(1000))"
DIFFERENCE_VERDICTS = (compare.SLOWER, compare.FASTER, compare.SMALL_CHANGE)
BEYOND_MARGIN_VERDICTS = (compare.SLOWER, compare.FASTER)
COVERAGE = "coverage: 95 % CI of the ratio contains 1"
#: (label, processes per side, values per process)
BUDGETS = (("perf default 24x2", 24, 2), ("pyperf default 20x3", 20, 3))


# --- recording -----------------------------------------------------------


def timeit_command(
    python: str, pool: str, *, chunk: int, values: int, warmups: int, statement: str, name: str | None = None
) -> list[str]:
    command = [python, "-m", "perf", "timeit", "-q", "-p", str(chunk), "-n", str(values), "-w", str(warmups)]
    if name:
        command += ["--name", name]
    return [*command, "--append", pool, statement]


def count_processes(path: str) -> int:
    if not os.path.exists(path):
        return 0
    return sum(1 for run in load_benchmark(path).get_runs() if run.values)


def record_chunk(command: list[str], attempts: int = 3) -> None:
    """Run one perf invocation; retry a failed one (the source tree may be
    mid-edit when other people work in it: perf then fails to import)."""
    for attempt in range(1, attempts + 1):
        env = perf_env(inherit_path=True)
        process = subprocess.run(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False
        )
        if process.returncode == 0:
            return
        last = process.stderr.strip().splitlines()[-1:] or ["(no error output)"]
        print(f"  perf failed (exit {process.returncode}, attempt {attempt}/{attempts}): {last[0]}", file=sys.stderr)
        if attempt < attempts:
            time.sleep(10)
    raise SystemExit(f"perf failed {attempts} times: {shlex.join(command)}")


def record_pool(path: str, processes: int, command: list[str], chunk: int) -> float:
    """Append chunks of *chunk* processes to *path* until it holds *processes*."""
    start = time.perf_counter()
    have = count_processes(path)
    chunks = max(0, math.ceil((processes - have) / chunk))
    for index in range(chunks):
        record_chunk(command)
        elapsed = time.perf_counter() - start
        print(f"  chunk {index + 1}/{chunks} recorded ({elapsed:.0f} s)", file=sys.stderr)
    return time.perf_counter() - start


# --- the pool ------------------------------------------------------------


class Pool(NamedTuple):
    #: values of each process, in recording order
    values: list[tuple[float, ...]]
    #: index of the perf invocation (chunk) of each process
    chunks: list[int]
    loops: list[int]
    warmups: int
    name: str
    dates: tuple[str, str]


def load_pool(path: str, chunk: int) -> Pool:
    """Processes of *path* in order; a new chunk starts at each calibration
    run (perf calibrates loops in the first worker of every invocation),
    or every *chunk* processes when the file has no calibration runs."""
    benchmark = load_benchmark(path)
    values, chunks, loops, warmups = [], [], [], []
    current = -1
    saw_calibration = False
    for run in benchmark.get_runs():
        if run.is_calibration():
            saw_calibration = True
            current += 1
            continue
        if not run.values:
            continue
        if not saw_calibration and len(values) % chunk == 0:
            current += 1
        values.append(tuple(run.values))
        chunks.append(max(current, 0))
        loops.append(run.get_loops())
        warmups.append(len(run.warmups))
    dates = benchmark.get_dates()
    return Pool(values, chunks, loops, round(mean(warmups)), benchmark.get_name(), (str(dates[0]), str(dates[1])))


def describe_pool(pool: Pool, path: str, values_per_process: Sequence[int]) -> None:
    n = len(pool.values)
    counts = sorted({len(values) for values in pool.values})
    print(f"Pool: {path}")
    print(f"  benchmark {pool.name!r}: {n} processes in {len(set(pool.chunks))} perf invocations (chunks),")
    print(f"  values/process {counts}, warmups {pool.warmups}, loops {min(pool.loops)}..{max(pool.loops)}")
    print(f"  recorded {pool.dates[0]} .. {pool.dates[1]}")
    for k in values_per_process:
        if min(counts) < k:
            continue
        groups = [values[:k] for values in pool.values]
        means = [mean(group) for group in groups]
        centre = mean(means)
        between, within, share = icc(groups)
        print(
            f"  first {k} values: mean {centre * 1e6:.3f} us; CV of process means {100 * stdev(means) / centre:.2f} %;"
            f" within-process SD {100 * within / centre:.2f} %, between-process SD {100 * between / centre:.2f} %,"
            f" ICC {share:.2f}"
        )
    describe_drift(pool)


def describe_drift(pool: Pool) -> None:
    """How much of the spread of process means sits between perf invocations."""
    means = [mean(values[:2]) for values in pool.values]
    by_chunk: dict[int, list[float]] = {}
    for chunk, value in zip(pool.chunks, means):
        by_chunk.setdefault(chunk, []).append(value)
    groups = [group for group in by_chunk.values() if len(group) >= 2]
    centre = mean(means)
    third = len(means) // 3
    print(
        f"  drift: mean of the last third of processes / first third = {mean(means[-third:]) / mean(means[:third]):.4f}"
    )
    if len(groups) >= 2:
        chunk_means = [mean(group) for group in groups]
        between, _, share = icc(groups)
        print(
            f"  chunk means (2-value process means) range {min(chunk_means) / centre:.4f} .. "
            f"{max(chunk_means) / centre:.4f} of the pool mean; between-chunk SD {100 * between / centre:.2f} %, "
            f"share of the process-mean variance between chunks {share:.2f}"
        )


# --- tests ---------------------------------------------------------------


class OptionalMethod(NamedTuple):
    label: str
    function: Callable[..., Any]
    #: does its result claim a difference?
    interpret: Callable[[Any], bool]


def excludes(value: float) -> Callable[[Any], bool]:
    """Does a result's interval exclude *value*?"""
    return lambda result: not result.low <= value <= result.high


#: perf's robust comparisons and win rates (doc/design.rst, R11), on process means
OPTIONAL = (
    OptionalMethod(
        "perf ranks.rank_compare_process_means: difference claimed", rank_compare_process_means, excludes(1)
    ),
    OptionalMethod(
        "perf ranks.signed_rank_compare_process_means: difference claimed",
        signed_rank_compare_process_means,
        excludes(1),
    ),
    OptionalMethod("perf win_rate.paired_win_rate: CI excludes 50 %", paired_win_rate, excludes(0.5)),
    OptionalMethod("perf win_rate.win_rate: CI excludes 50 %", win_rate, excludes(0.5)),
)


# --- splits --------------------------------------------------------------


class Outcome(NamedTuple):
    claims: dict[str, bool]
    covers: bool


class Evaluator:
    def __init__(self, optional: Sequence[OptionalMethod]) -> None:
        self.pyperf_test, self.pyperf_label = pyperf_test()
        self.optional = list(optional)
        self.failed: dict[str, str] = {}

    def labels(self, with_optional: bool) -> list[str]:
        labels = [
            "perf: 95 % CI of the ratio excludes 1",
            "perf: verdict slower/faster/small change",
            "perf: verdict slower/faster (beyond 1 %)",
            "pyperf: pooled t on all values",
            "perf paired: t on log ratios of the pairs",
        ]
        if with_optional:
            labels += [method.label for method in self.optional if method.label not in self.failed]
        return labels

    def evaluate(self, side_a: Sequence[Sequence[float]], side_b: Sequence[Sequence[float]], full: bool) -> Outcome:
        means_a = [mean(values) for values in side_a]
        means_b = [mean(values) for values in side_b]
        result = compare.compare_process_means(means_a, means_b)
        covers = result.low <= 1 <= result.high
        pooled_a = [value for values in side_a for value in values]
        pooled_b = [value for values in side_b for value in values]
        claims = {
            "perf: 95 % CI of the ratio excludes 1": not covers,
            "perf: verdict slower/faster/small change": result.verdict in DIFFERENCE_VERDICTS,
            "perf: verdict slower/faster (beyond 1 %)": result.verdict in BEYOND_MARGIN_VERDICTS,
            "pyperf: pooled t on all values": bool(self.pyperf_test(pooled_a, pooled_b)[0]),
            "perf paired: t on log ratios of the pairs": excludes(1)(
                compare.compare_paired_process_means(means_a, means_b)
            ),
        }
        if full:
            for method in self.optional:
                if method.label in self.failed:
                    continue
                try:
                    claims[method.label] = method.interpret(method.function(means_a, means_b))
                except Exception as error:  # an optional API of unknown shape
                    self.failed[method.label] = f"{type(error).__name__}: {error}"
        return Outcome(claims, covers)


def random_split(rng: random.Random, count: int, n: int) -> tuple[list[int], list[int]]:
    chosen = rng.sample(range(count), 2 * n)
    return chosen[:n], chosen[n:]


def block_split(rng: random.Random, count: int, n: int) -> tuple[list[int], list[int]]:
    start = rng.randrange(count - 2 * n + 1)
    return list(range(start, start + n)), list(range(start + n, start + 2 * n))


def interleaved_split(rng: random.Random, count: int, n: int) -> tuple[list[int], list[int]]:
    start = rng.randrange(count - 2 * n + 1)
    side_a, side_b = [], []
    for pair in range(n):
        first, second = start + 2 * pair, start + 2 * pair + 1
        if rng.random() < 0.5:
            first, second = second, first
        side_a.append(first)
        side_b.append(second)
    return side_a, side_b


SCHEMES: dict[str, Callable[[random.Random, int, int], tuple[list[int], list[int]]]] = {
    "random": random_split,
    "blocks": block_split,
    "interleaved": interleaved_split,
}


class Tally:
    def __init__(self) -> None:
        self.claims: dict[str, int] = {}
        self.covers = 0
        self.total = 0

    def add(self, outcome: Outcome) -> None:
        self.total += 1
        self.covers += outcome.covers
        for label, claim in outcome.claims.items():
            self.claims[label] = self.claims.get(label, 0) + claim


def whole_run_pairs(pool: Pool, n: int, k: int) -> tuple[list[tuple[list[int], list[int]]], ...]:
    """(consecutive, every) pairs of perf invocations with >= n processes, as
    lists of process indexes (the first n of each invocation)."""
    by_chunk: dict[int, list[int]] = {}
    for index, (chunk, values) in enumerate(zip(pool.chunks, pool.values)):
        if len(values) >= k:
            by_chunk.setdefault(chunk, []).append(index)
    chunks = [indexes[:n] for _, indexes in sorted(by_chunk.items()) if len(indexes) >= n]
    consecutive = [(chunks[i], chunks[i + 1]) for i in range(len(chunks) - 1)]
    every = [(chunks[i], chunks[j]) for i in range(len(chunks)) for j in range(i + 1, len(chunks))]
    return consecutive, every


def run_splits(pool: Pool, args: argparse.Namespace, evaluator: Evaluator) -> dict[str, dict[str, Tally]]:
    counts = {len(values) for values in pool.values}
    rng = random.Random(args.seed)
    results: dict[str, dict[str, Tally]] = {}
    for budget, n, k in BUDGETS:
        if min(counts) < k:
            print(f"\n{budget}: skipped, the pool has fewer than {k} values per process")
            continue
        if len(pool.values) < 2 * n:
            print(f"\n{budget}: skipped, the pool has fewer than {2 * n} processes")
            continue
        tallies: dict[str, Tally] = {}
        for scheme, split in SCHEMES.items():
            draws = args.splits if scheme == "random" else args.windows
            tally = tallies.setdefault(scheme, Tally())
            for _ in range(draws):
                side_a, side_b = split(rng, len(pool.values), n)
                tally.add(
                    evaluator.evaluate(
                        [pool.values[i][:k] for i in side_a],
                        [pool.values[i][:k] for i in side_b],
                        full=scheme == "random",
                    )
                )
        consecutive, every = whole_run_pairs(pool, n, k)
        for scheme, chosen in (("whole runs, consecutive", consecutive), ("whole runs, any two", every)):
            tally = tallies.setdefault(scheme, Tally())
            for side_a, side_b in chosen:
                tally.add(
                    evaluator.evaluate(
                        [pool.values[i][:k] for i in side_a], [pool.values[i][:k] for i in side_b], full=False
                    )
                )
        print_budget(budget, n, k, tallies, evaluator)
        results[budget] = tallies
    return results


def print_budget(budget: str, n: int, k: int, tallies: dict[str, Tally], evaluator: Evaluator) -> None:
    print()
    print(f"== {budget}: {n} vs {n} processes, {k} values each; claims of a difference at alpha = {ALPHA} ==")
    random_tally = tallies["random"]
    w = max(len(label) for label in [*random_tally.claims, COVERAGE])
    header = f"{'method':{w}} {'FPR +- MC SE':>16} {'splits':>7}"
    print(header)
    print("-" * len(header))
    for label in evaluator.labels(with_optional=True):
        if label in random_tally.claims:
            print(f"{label:{w}} {rate(random_tally.claims[label], random_tally.total):>16} {random_tally.total:>7}")
    print(f"{COVERAGE:{w}} {rate(random_tally.covers, random_tally.total):>16} {random_tally.total:>7}")
    print()
    print("Splits that respect time order (drift between the two sides is not randomised away):")
    schemes = [scheme for scheme in tallies if scheme != "random"]
    w = max(len(label) for label in [*evaluator.labels(with_optional=False), COVERAGE])
    header = f"{'method':{w}}" + "".join(f" {scheme:>24}" for scheme in schemes)
    print(header)
    print("-" * len(header))
    for label in evaluator.labels(with_optional=False):
        cells = [f"{rate(tallies[s].claims.get(label, 0), tallies[s].total)} / {tallies[s].total}" for s in schemes]
        print(f"{label:{w}}" + "".join(f" {cell:>24}" for cell in cells))
    cells = [f"{rate(tallies[s].covers, tallies[s].total)} / {tallies[s].total}" for s in schemes]
    print(f"{COVERAGE:{w}}" + "".join(f" {cell:>24}" for cell in cells))


def verdict_line(results: dict[str, dict[str, Tally]]) -> None:
    """Pass/fail against doc/design.rst, bench checks for perf's default budget."""
    budget = BUDGETS[0][0]
    if budget not in results:
        return
    tally = results[budget]["random"]
    fpr = tally.claims["perf: 95 % CI of the ratio excludes 1"] / tally.total
    coverage = tally.covers / tally.total
    print()
    print(
        f"Target (doc/design.rst, bench checks), {budget}, random splits: FPR {100 * fpr:.1f} % in 3.5-6.5 %: "
        f"{'PASS' if 0.035 <= fpr <= 0.065 else 'FAIL'}; coverage {100 * coverage:.1f} % >= 93 %: "
        f"{'PASS' if coverage >= 0.93 else 'FAIL'}"
    )


def parse_args() -> argparse.Namespace:
    parser = Parser(__doc__)
    parser.add_argument("--processes", type=int, default=480, help="pool size to record (default: 480)")
    parser.add_argument("--chunk", type=int, default=24, help="processes per perf invocation (default: 24)")
    parser.add_argument("--values", type=int, default=3, help="values per process (default: 3)")
    parser.add_argument("--warmups", type=int, default=1, help="warmup values per process (default: 1)")
    parser.add_argument("--statement", default=STATEMENT, help=f"timeit statement (default: {STATEMENT!r})")
    parser.add_argument("--splits", type=int, default=1000, help="random splits per budget (default: 1000)")
    parser.add_argument("--windows", type=int, default=400, help="time-ordered windows per scheme (default: 400)")
    seed = random.SystemRandom().randrange(2**32)
    parser.add_argument("--seed", type=int, default=seed, help="random seed (default: chosen and printed)")
    parser.add_argument("--python", default=sys.executable, help="interpreter running perf (default: this one)")
    parser.add_argument(
        "--pool", metavar="FILE", help="pool file: reused if it exists (topped up to --processes), else recorded"
    )
    parser.add_argument("--keep", action="store_true", help="keep the pool recorded in a temporary file")
    parser.add_argument("--no-record", action="store_true", help="analyse --pool as it is, never record")
    return parser.parse_args()


def main() -> None:
    args = parse_args()

    path = args.pool
    temporary = None
    if path is None:
        temporary = tempfile.mkdtemp(prefix="aa_compare_")
        path = os.path.join(temporary, "pool.json")
    path = os.path.abspath(path)
    command = timeit_command(
        args.python, path, chunk=args.chunk, values=args.values, warmups=args.warmups, statement=args.statement
    )
    print(f"A/A comparison test; seed {args.seed}")
    have = count_processes(path)
    if have >= args.processes or args.no_record:
        print(f"Reusing the pool {path} ({have} processes); it was recorded by repeating, in {ROOT}:")
    else:
        print(f"Recording {args.processes - have} processes in chunks of {args.chunk}: in {ROOT}, repeat:")
    print(f"  PYTHONPATH={ROOT} {shlex.join(command)}")
    if have < args.processes and not args.no_record:
        elapsed = record_pool(path, args.processes, command, args.chunk)
        print(f"  recording took {elapsed:.0f} s")

    pool = load_pool(path, args.chunk)
    print()
    describe_pool(pool, path, [k for _, _, k in BUDGETS])
    evaluator = Evaluator(OPTIONAL)
    print()
    print(f"pyperf's test: {evaluator.pyperf_label}")
    results = run_splits(pool, args, evaluator)
    for label, error in evaluator.failed.items():
        print(f"Note: {label} skipped: calling it with two lists of process means failed ({error})")
    verdict_line(results)
    print()
    print(
        "MC SE = sqrt(p(1-p)/N), binomial; splits from one pool overlap, so the true uncertainty is larger. "
        "'whole runs, any two' reuses each run in many pairs."
    )
    if temporary is not None:
        if args.keep:
            print(f"Pool kept: {path}")
        else:
            os.unlink(path)
            os.rmdir(temporary)


if __name__ == "__main__":
    main()
