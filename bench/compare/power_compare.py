"""Power of perf's comparison: how often a real 2 % / 5 % slowdown is detected.

Records (or reuses) pools of worker processes of a benchmark whose work is
scaled by a factor -- ``python -m perf timeit "sum(range(N))"`` with N = base
x 1.00 (A), x 1.02 (B2), x 1.05 (B5) -- interleaving the recordings in
chunks (one perf invocation of ``--chunk`` processes per variant per round,
the variant order shuffled every round) so that machine drift hits every
pool alike. Then draws many comparisons of a default budget, A against B,
and prints (doc/design.rst, R4, R5):

* the real work ratio: timed in one process, interleaved (no process-level
  noise), and the ratio of the whole pools with perf's CI;
* perf's comparison (``compare_process_means`` on process means): detection
  rate (verdict slower; 95 % CI entirely above 1), the verdict mix, the
  median ratio, the median CI half-width and the median minimum detectable
  effect, MDE = 2.8 x SE of the log ratio (80 % power, two-sided 5 %);
* pyperf's ``compare_to`` significance test on all pooled values beside it,
  and perf's rank tests (``--robust``, ``perf.analysis.ranks``);
* an A vs A row (two disjoint sets of A processes) as the false-positive
  control, and "same round" comparisons: the A and B perf invocations of one
  round against each other, as two consecutive real runs would be compared.

Draws reuse processes of finite pools, so they are not independent: treat
the Monte-Carlo standard errors (binomial) as lower bounds.

Usage::

    python bench/compare/power_compare.py [--processes 288] [--draws 400] [--seed N] [--pool DIR | --keep]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shlex
import shutil
import sys
import tempfile
import time
from typing import NamedTuple, Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from aa_compare import (
    BUDGETS,
    OPTIONAL,
    Evaluator,
    Pool,
    count_processes,
    load_pool,
    record_chunk,
    timeit_command,
)
from kit import ROOT
from kit.results import Parser, print_table
from kit.run import perf_env, stdout_of
from kit.stats import icc
from kit.stats import mc_rate as rate
from kit.tools import shuffled_rounds

from perf.analysis import compare
from perf.analysis.statistics import mean, median, stdev

BASE = 20_000
FACTORS = (1.02, 1.05)
Z_POWER = 2.8  # z(0.975) + z(0.80): 80 % power, two-sided 5 %

CHECK_SCRIPT = """
import statistics, sys, timeit
statements = sys.argv[2:]
rounds = int(sys.argv[1])
times = [[] for _ in statements]
for _ in range(rounds):
    for index, statement in enumerate(statements):
        times[index].append(timeit.timeit(statement, number=20))
for index in range(1, len(statements)):
    ratios = [b / a for a, b in zip(times[0], times[index])]
    print(statistics.median(ratios))
"""


def label(factor: float) -> str:
    return "A" if factor == 1 else f"B{100 * (factor - 1):g}"


def statement(base: int, factor: float) -> str:
    return f"sum(range({round(base * factor)}))"


# --- recording -----------------------------------------------------------


def record_pools(paths: dict[float, str], commands: dict[float, list[str]], args: argparse.Namespace) -> None:
    have = min(count_processes(path) for path in paths.values())
    rounds = max(0, math.ceil((args.processes - have) / args.chunk))
    start = time.perf_counter()
    for index, order in enumerate(shuffled_rounds(list(paths), rounds, random.Random(args.seed))):
        for factor in order:
            record_chunk(commands[factor])
        elapsed = time.perf_counter() - start
        names = " ".join(label(factor) for factor in order)
        print(f"  round {index + 1}/{rounds} recorded ({names}; {elapsed:.0f} s)", file=sys.stderr)
    if rounds:
        print(f"  recording: {rounds} rounds took {time.perf_counter() - start:.0f} s")


def in_process_ratios(python: str, statements: Sequence[str], rounds: int) -> list[float]:
    """Median ratio of each statement to the first, timed alternately in one process."""
    output = stdout_of([python, "-c", CHECK_SCRIPT, str(rounds), *statements], env=perf_env(inherit_path=True))
    return [float(line) for line in output.split()]


# --- analysis ------------------------------------------------------------


class Draw(NamedTuple):
    verdict: str
    ratio: float
    low: float
    high: float
    #: standard error of the log ratio (Welch)
    se: float
    pyperf: bool
    pyperf_slower: bool
    optional: dict[str, bool]


def draw(side_a: Sequence[Sequence[float]], side_b: Sequence[Sequence[float]], evaluator: Evaluator) -> Draw:
    means_a = [mean(values) for values in side_a]
    means_b = [mean(values) for values in side_b]
    result = compare.compare_process_means(means_a, means_b)
    pooled_a = [value for values in side_a for value in values]
    pooled_b = [value for values in side_b for value in values]
    significant = bool(evaluator.pyperf_test(pooled_a, pooled_b)[0])
    optional = {}
    for method in evaluator.optional:
        if method.label in evaluator.failed or "win_rate" in method.label:
            continue
        try:
            optional[method.label] = method.function(means_a, means_b).low > 1
        except Exception as error:  # an optional API of unknown shape
            evaluator.failed[method.label] = f"{type(error).__name__}: {error}"
    return Draw(
        result.verdict,
        result.ratio,
        result.low,
        result.high,
        result.standard_error,
        significant,
        significant and mean(pooled_b) > mean(pooled_a),
        optional,
    )


def chunks_of(pool: Pool, n: int, k: int) -> list[list[tuple[float, ...]]]:
    by_chunk: dict[int, list[tuple[float, ...]]] = {}
    for chunk, values in zip(pool.chunks, pool.values):
        if len(values) >= k:
            by_chunk.setdefault(chunk, []).append(values[:k])
    return [group[:n] for _, group in sorted(by_chunk.items()) if len(group) >= n]


def summarize(name: str, draws: Sequence[Draw]) -> list[str]:
    total = len(draws)
    count = {verdict: sum(d.verdict == verdict for d in draws) for verdict in compare.VERDICTS}
    above = sum(d.low > 1 for d in draws)
    half = median([math.sqrt(d.high / d.low) - 1 for d in draws])
    mde = median([math.exp(Z_POWER * d.se) - 1 for d in draws])
    mix = " ".join(f"{100 * count[v] / total:.0f}" for v in compare.VERDICTS)
    return [
        name,
        str(total),
        rate(count[compare.SLOWER], total),
        rate(above, total),
        f"{median([d.ratio for d in draws]):.4f}",
        f"+-{100 * half:.2f} %",
        f"{100 * mde:.2f} %",
        mix,
    ]


def summarize_others(name: str, draws: Sequence[Draw], optional: Sequence[str]) -> list[str]:
    total = len(draws)
    cells = [
        name,
        str(total),
        rate(sum(d.pyperf for d in draws), total),
        rate(sum(d.pyperf_slower for d in draws), total),
    ]
    cells += [rate(sum(d.optional.get(method, False) for d in draws), total) for method in optional]
    return cells


def describe(pools: dict[float, Pool], paths: dict[float, str], true_ratios: dict[float, float]) -> None:
    reference = pools[1.0]
    print()
    header = ["pool", "file", "processes", "mean", "CV proc. means", "ICC", "in-process ratio", "pool ratio [95 % CI]"]
    rows = []
    for factor, pool in pools.items():
        groups = [values[:2] for values in pool.values]
        means = [mean(group) for group in groups]
        centre = mean(means)
        pool_ratio = "(reference)"
        if factor != 1.0:
            result = compare.compare_process_means([mean(v[:2]) for v in reference.values], means)
            pool_ratio = f"{result.ratio:.4f} [{result.low:.4f} .. {result.high:.4f}]"
        rows.append(
            [
                f"{label(factor)} (x{factor:.2f})",
                paths[factor],
                str(len(pool.values)),
                f"{centre * 1e6:.1f} us",
                f"{100 * stdev(means) / centre:.2f} %",
                f"{icc(groups)[2]:.2f}",
                f"{true_ratios.get(factor, 1.0):.4f}",
                pool_ratio,
            ]
        )
    print("Pools (first 2 values of each process):")
    print_table(header, rows)


def analyse(pools: dict[float, Pool], args: argparse.Namespace, evaluator: Evaluator) -> None:
    rng = random.Random(args.seed)
    reference = pools[1.0]
    for budget, n, k in BUDGETS:
        if any(min(len(v) for v in pool.values) < k or len(pool.values) < n for pool in pools.values()):
            print(f"\n{budget}: skipped (pools of fewer than {n} processes or {k} values per process)")
            continue
        rows, others = [], []
        results: dict[str, list[Draw]] = {}
        if len(reference.values) >= 2 * n:
            control = []
            for _ in range(args.draws):
                chosen = rng.sample(range(len(reference.values)), 2 * n)
                side_a = [reference.values[i][:k] for i in chosen[:n]]
                control.append(draw(side_a, [reference.values[i][:k] for i in chosen[n:]], evaluator))
            results["A vs A (control), random"] = control
        for factor, pool in pools.items():
            if factor == 1.0:
                continue
            name = f"A vs {label(factor)}"
            results[f"{name}, random"] = [
                draw(
                    [reference.values[i][:k] for i in rng.sample(range(len(reference.values)), n)],
                    [pool.values[i][:k] for i in rng.sample(range(len(pool.values)), n)],
                    evaluator,
                )
                for _ in range(args.draws)
            ]
            same_round = list(zip(chunks_of(reference, n, k), chunks_of(pool, n, k)))
            results[f"{name}, same round"] = [draw(a, b, evaluator) for a, b in same_round]
        optional = sorted({key for draws in results.values() for d in draws for key in d.optional})
        for name, draws in results.items():
            if draws:
                rows.append(summarize(name, draws))
                others.append(summarize_others(name, draws, optional))
        print()
        print(f"== {budget}: {n} vs {n} processes, {k} values each ==")
        print("perf (compare_process_means on process means):")
        mix = "% " + "/".join(
            v.replace("small change", "small").replace("no change", "none")[:6] for v in compare.VERDICTS
        )
        header = ["comparison", "draws", "verdict slower", "CI above 1", "med. ratio", "med. CI", "med. MDE", mix]
        print_table(header, rows)
        print()
        print("Other tests on the same draws (rate of 'significant' at alpha = 0.05):")
        header = ["comparison", "draws", "pyperf pooled t", "pyperf, B slower"]
        print_table([*header, *(method.split(":")[0] + " (CI above 1)" for method in optional)], others)


def parse_args() -> argparse.Namespace:
    parser = Parser(__doc__)
    parser.add_argument("--processes", type=int, default=288, help="processes per pool (default: 288)")
    parser.add_argument("--chunk", type=int, default=24, help="processes per perf invocation (default: 24)")
    parser.add_argument("--values", type=int, default=3, help="values per process (default: 3)")
    parser.add_argument("--warmups", type=int, default=1, help="warmup values per process (default: 1)")
    parser.add_argument("--base", type=int, default=BASE, help=f"N of sum(range(N)) for A (default: {BASE})")
    parser.add_argument(
        "--factors", default=",".join(map(str, FACTORS)), help="work factors of the B pools (default: 1.02,1.05)"
    )
    parser.add_argument("--draws", type=int, default=400, help="comparisons per pair and budget (default: 400)")
    parser.add_argument("--check-rounds", type=int, default=200, help="rounds of the in-process work check")
    seed = random.SystemRandom().randrange(2**32)
    parser.add_argument("--seed", type=int, default=seed, help="random seed (default: chosen and printed)")
    parser.add_argument("--python", default=sys.executable, help="interpreter running perf (default: this one)")
    parser.add_argument("--pool", metavar="DIR", help="directory of the pools: reused (topped up) or recorded there")
    parser.add_argument("--keep", action="store_true", help="keep pools recorded in a temporary directory")
    parser.add_argument("--no-record", action="store_true", help="analyse the pools in --pool as they are")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    factors = [1.0, *(float(factor) for factor in args.factors.split(","))]
    temporary = None
    directory = args.pool
    if directory is None:
        directory = temporary = tempfile.mkdtemp(prefix="power_compare_")
    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    paths = {factor: os.path.join(directory, f"{label(factor)}.json") for factor in factors}
    commands = {
        factor: timeit_command(
            args.python,
            paths[factor],
            chunk=args.chunk,
            values=args.values,
            warmups=args.warmups,
            statement=statement(args.base, factor),
            name=f"sum_range_x{factor:.2f}",
        )
        for factor in factors
    }
    print(f"Power of the comparison; seed {args.seed}")
    have = min(count_processes(path) for path in paths.values())
    if have >= args.processes or args.no_record:
        print(f"Reusing the pools in {directory} ({have}+ processes each); they were recorded, in {ROOT}, by")
    else:
        print(f"Recording the pools in {directory}: in {ROOT}, rounds of (in a shuffled order per round)")
    for factor in factors:
        print(f"  PYTHONPATH={ROOT} {shlex.join(commands[factor])}")
    if have < args.processes and not args.no_record:
        record_pools(paths, commands, args)

    statements = [statement(args.base, factor) for factor in factors]
    ratios = in_process_ratios(args.python, statements, args.check_rounds)
    true_ratios = dict(zip(factors[1:], ratios))
    print(
        f"In-process work check: {args.check_rounds} rounds alternating the statements in one process "
        "(timeit, number=20), median ratio to A per round"
    )
    pools = {factor: load_pool(paths[factor], args.chunk) for factor in factors}
    describe(pools, paths, true_ratios)
    evaluator = Evaluator([method for method in OPTIONAL if "win_rate" not in method.label])
    print()
    print(f"pyperf's test: {evaluator.pyperf_label}")
    analyse(pools, args, evaluator)
    for name, error in evaluator.failed.items():
        print(f"Note: {name} skipped: calling it with two lists of process means failed ({error})")
    print()
    print(
        "verdict slower = whole 95 % CI above 1.01; CI above 1 = slower or small change; med. CI = median "
        "half-width of the ratio's 95 % CI; MDE = exp(2.8 x SE of the log ratio) - 1. Verdict mix in % of draws: "
        + ", ".join(compare.VERDICTS)
        + ". MC SE binomial (draws share processes: a lower bound)."
    )
    if temporary is not None:
        if args.keep:
            print(f"Pools kept in {directory}")
        else:
            shutil.rmtree(temporary)


if __name__ == "__main__":
    main()
