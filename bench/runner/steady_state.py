"""Accuracy and cost of perf.measure.child.steady.classify on synthetic sequences.

Usage: python bench/runner/steady_state.py [-n TRIALS] [--seed SEED]

Each kind below is generated TRIALS times (200 by default) with 200 values
of a random base duration (0.1 ms to 100 ms) and multiplicative noise of a
random level in [2 %, 5 %]: ``value = base x (1 + level x N(0, 1))``.

* flat: nothing else;
* warmup: the first 50 values are 1.2x to 3x slower (expected: warmup,
  with the warmup length within 2 values of 50);
* short warmup: the first 5 values are 10x slower (expected: warmup, the
  first segment being at least MIN_SEGMENT long);
* step up at the end: the last 15 values are 1.3x slower (expected: no
  steady state: the final segment is shorter than 2 x WINDOW);
* GC spikes: every 20th value, at a random phase, is 3x slower (expected:
  flat or warmup, not a storm of changepoints); the "quiet" variant has
  0.3 % to 1 % noise only, where PELT alone would split the sequence
  between spikes;
* noise only: skewed noise, ``base x (1 + Exp(level))`` with 5 % of the
  values up to 30 % slower (expected: flat);
* slowdown: the last 100 values are 1.2x slower (expected: slowdown).

It prints the fraction classified as expected per kind, the mean and
largest number of changepoints, and the mean time per classify() call.
Then it replays doc/design.rst R8's loop (classify every WINDOW values, stop at the
first steady one) and prints where the loop stops: note that it cannot wait
for a warm-up plateau longer than MIN_SEGMENT values that has not ended
yet (20 equally slow values are a flat, steady sequence).  No asserts: read
the figures.
"""

from __future__ import annotations

import os
import random
import sys
import time
from typing import Callable, List

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.results import Parser

from perf.measure.child.steady import (
    FLAT,
    MIN_SEGMENT,
    NO_STEADY_STATE,
    SLOWDOWN,
    WARMUP,
    WINDOW,
    SteadyState,
    classify,
    is_steady,
)

SIZE = 200
STEP = 50
TAIL = 15

Generator = Callable[[random.Random], List[float]]


def noisy(rng: random.Random, size: int = SIZE, low: float = 0.02, high: float = 0.05) -> list[float]:
    base = 10 ** rng.uniform(-4, -1)
    level = rng.uniform(low, high)
    return [base * max(1.0 + level * rng.gauss(0.0, 1.0), 0.01) for _ in range(size)]


def flat(rng: random.Random) -> list[float]:
    return noisy(rng)


def warmup(rng: random.Random) -> list[float]:
    factor = rng.uniform(1.2, 3.0)
    return [value * factor if index < STEP else value for index, value in enumerate(noisy(rng))]


def short_warmup(rng: random.Random) -> list[float]:
    return [value * 10.0 if index < 5 else value for index, value in enumerate(noisy(rng))]


def step_up_at_end(rng: random.Random) -> list[float]:
    return [value * 1.3 if index >= SIZE - TAIL else value for index, value in enumerate(noisy(rng))]


def gc_spikes(rng: random.Random) -> list[float]:
    phase = rng.randrange(20)
    return [value * 3.0 if index % 20 == phase else value for index, value in enumerate(noisy(rng))]


def quiet_gc_spikes(rng: random.Random) -> list[float]:
    phase = rng.randrange(20)
    return [value * 3.0 if index % 20 == phase else value for index, value in enumerate(noisy(rng, SIZE, 0.003, 0.01))]


def noise_only(rng: random.Random) -> list[float]:
    base = 10 ** rng.uniform(-4, -1)
    level = rng.uniform(0.02, 0.05)
    values = []
    for _ in range(SIZE):
        value = base * (1.0 + rng.expovariate(1.0 / level))
        if rng.random() < 0.05:
            value *= 1.0 + rng.uniform(0.0, 0.3)
        values.append(value)
    return values


def slowdown(rng: random.Random) -> list[float]:
    return [value * 1.2 if index >= SIZE // 2 else value for index, value in enumerate(noisy(rng))]


def expect_flat(result: SteadyState) -> bool:
    return result.kind == FLAT


def expect_warmup(result: SteadyState) -> bool:
    return result.kind == WARMUP and abs(result.warmup - STEP) <= 2


def expect_short_warmup(result: SteadyState) -> bool:
    return result.kind == WARMUP and 5 <= result.warmup <= MIN_SEGMENT


def expect_no_steady_state(result: SteadyState) -> bool:
    return result.kind == NO_STEADY_STATE


def expect_flat_or_warmup(result: SteadyState) -> bool:
    return result.kind in (FLAT, WARMUP)


def expect_slowdown(result: SteadyState) -> bool:
    return result.kind == SLOWDOWN and abs(result.warmup - SIZE // 2) <= 2


KINDS: list[tuple[str, Generator, Callable[[SteadyState], bool], str]] = [
    ("flat", flat, expect_flat, "flat"),
    ("warmup (step down at 50)", warmup, expect_warmup, "warmup, 48..52"),
    ("short warmup (5 x 10x)", short_warmup, expect_short_warmup, "warmup, 5..10"),
    ("step up at the end", step_up_at_end, expect_no_steady_state, "no steady state"),
    ("GC spikes (1/20 3x)", gc_spikes, expect_flat_or_warmup, "flat or warmup"),
    ("GC spikes, quiet (<1 %)", quiet_gc_spikes, expect_flat_or_warmup, "flat or warmup"),
    ("noise only (skewed)", noise_only, expect_flat, "flat"),
    ("slowdown (1.2x at 100)", slowdown, expect_slowdown, "slowdown, 98..102"),
]


def replay(values: list[float]) -> int:
    """Where doc/design.rst R8's loop stops warming up: the first multiple of WINDOW
    at which the values so far are steady (len(values) if never)."""
    for stop in range(2 * WINDOW, len(values) + 1, WINDOW):
        if is_steady(values[:stop]):
            return stop
    return len(values)


def main() -> None:
    parser = Parser(__doc__)
    parser.add_argument("-n", "--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2017)
    args = parser.parse_args()

    print(f"{args.trials} trials per kind, {SIZE} values each, seed {args.seed}")
    print(f"{'kind':<26} {'expected':<18} {'correct':>8} {'cpts mean/max':>14} {'ms/call':>8}  classifications")
    for name, generate, expected, expected_text in KINDS:
        rng = random.Random(f"{args.seed}-{name}")
        trials = [generate(rng) for _ in range(args.trials)]
        elapsed = 0.0
        results = []
        for values in trials:
            started = time.perf_counter()
            results.append(classify(values))
            elapsed += time.perf_counter() - started
        correct = sum(expected(result) for result in results) / len(results)
        counts: dict[str, int] = {}
        for result in results:
            counts[result.kind] = counts.get(result.kind, 0) + 1
        found = [len(result.changepoints) for result in results]
        spread = ", ".join(f"{kind}: {count}" for kind, count in sorted(counts.items()))
        print(
            f"{name:<26} {expected_text:<18} {correct:>8.1%} {sum(found) / len(found):>8.2f}/{max(found):<5}"
            f" {elapsed / len(results) * 1e3:>8.2f}  {spread}"
        )

    print()
    print("cost of one classify() call on flat noise (the worst case: nothing to prune)")
    rng = random.Random(args.seed)
    for size in (100, 300, 1000):
        values = noisy(rng, size)
        best = min(_timed(values) for _ in range(5))
        print(f"  n = {size:>4}: {best * 1e3:7.2f} ms")

    print()
    print(f"doc/design.rst R8's loop (classify every {WINDOW} values, stop at the first steady state): stop index")
    for name, generate, _, _ in KINDS:
        rng = random.Random(f"{args.seed}-{name}-replay")
        stops = sorted(replay(generate(rng)) for _ in range(min(args.trials, 50)))
        print(
            f"  {name:<26} median {stops[len(stops) // 2]:>4}, min {stops[0]:>4}, max {stops[-1]:>4}"
            f" (of {len(stops)} trials)"
        )


def _timed(values: list[float]) -> float:
    started = time.perf_counter()
    classify(values)
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
