"""Drift-injection A/A test of perf's comparison: interleaved pairs against block order.

doc/design.rst, R6; doc/design.rst, bench checks (issue 5): the very same code on both
sides (A/A: ``--compare-to`` this Python executable) while a background load
RAMPS UP during each comparison, so that the machine gets slower as the
comparison goes on.  Each repetition starts a fresh ramp and runs one design:

1. *interleaved*: ``python -m perf timeit --compare-to PYTHON -p 24 -n 2 -o X.json STMT``
   (the workers of the two sides interleaved in 24 pairs, the order in each
   pair from a recorded seed), analysed with perf's paired comparison
   (``perf.analysis.benchmarks.compare_benchmarks`` on X-ref.json and
   X-changed.json, which must pick the method "paired") and, for reference,
   with the unpaired Welch test on the same process means;
2. *block order*: ``timeit -p 24 -n 2 -o A.json STMT`` then
   ``timeit -p 24 -n 2 -o B.json STMT`` one after the other during one ramp
   (what pyperf's ``--compare-to`` does, and what two separate recordings
   do), analysed with perf's unpaired comparison
   (``compare_process_means`` on process means) and pyperf's pooled Student t
   on all values (``pyperf._utils.is_significant``) for reference;
3. *target precision*: ``timeit --compare-to PYTHON --target-precision 2%
   --min-processes 6 --max-processes 40 -o T.json STMT`` (interleaved,
   paired), with the number of pairs it used.

The injected load (defaults; ``--base``, ``--peak``, ``--delay``, ``--ramp``):
two helper processes per repetition, started with it and killed at its end,
helper 0 pinned to CPU 1 (the "other core"), helper 1 to CPU 0; time runs in
100 ms slots aligned on the start of the repetition.  The load level is
``--base`` = 1 CPU for ``--delay`` = 1 s, then grows linearly to ``--peak``
= 1.5 CPUs over ``--ramp`` = 20 s and stays there until the repetition ends.
Helper k spins on the monotonic clock during the first
``clamp(level - k, 0, 1)`` of each slot and sleeps for the rest: helper 0
keeps the other core busy from the start, helper 1 is idle, then busy for a
growing fraction of each slot (0 -> 50 %) on the core the benchmark worker
is left with.  Why not the other core alone: these 2 vCPUs are not SMT
siblings, and a busy other core changes the statement's speed by < 2 %
(the speed probe printed first: one process timing the statement under a
constant load of N CPUs); the spill-over onto the worker's core gives a
slowdown growing from x1.0 to about x1.35, a drift of the size that
doc/design.rst, R6 saw on this machine (22-24 % between the two halves of
a collection).  Unpinned helpers would not give a steady drift: with 3
runnable processes on 2 CPUs the scheduler keeps the placement, so a worker
is either alone on a CPU (no slowdown) or shares one (x2).  Helpers exit on
their own when this script dies (parent-death signal, a check of the parent
pid every slot, and a 900 s lifetime); this script kills them in a finally
block, at exit and on SIGTERM/SIGHUP (turned into SystemExit).  The
target-precision runs see the same ramp, but most stop after 10-20 s.

For each design and method it prints the false-positive rate (claims of a
difference: the 95 % CI of the ratio excludes 1; verdict slower/faster beyond
the 1 % margin) with its binomial Monte-Carlo SE and exact (Clopper-Pearson)
95 % interval, the number of repetitions, the median measured ratio, the
median CI half-width, and the mean and SD over repetitions of the t-score
log(ratio) / SE (an honest SE gives mean 0 and SD 1; that is a sharper check
than an FPR counted over a few dozen repetitions).

Usage::

    python bench/compare/drift_compare.py [--repetitions 30] [--precision-repetitions 10] [--seed N] [--keep DIR]
                                          [--no-load]

About 25 minutes with the defaults on a 2-vCPU VM (each interleaved or block
repetition about 22 s, a target-precision one 8-40 s).  With R = 30 the
binomial SE of an FPR near 5 % is about 4 points: the figures say "near the
nominal level" or "far from it", not 4 % against 6 %.
"""

from __future__ import annotations

import argparse
import atexit
import math
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from typing import Any, NamedTuple, Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit import ROOT
from kit.results import Parser, print_table
from kit.run import add_study_options, repeat, run_retried, stdout_of, work_folder
from kit.stats import Claim, claims_cells, clopper_pearson, fpr_cell, from_comparison, pyperf_test

from perf.analysis import compare
from perf.analysis.benchmarks import compare_benchmarks, paired_process_means
from perf.analysis.statistics import mean, median, stdev
from perf.analysis.student_t_quantile import student_t_ppf
from perf.measure.parent.stopping import StoppingRule
from perf.storage.files import load_benchmark

STATEMENT = "sorted(range(1000))"
INTERLEAVED = "interleaved"
BLOCK = "block order"
PRECISION = "target precision"
BEYOND_MARGIN = (compare.SLOWER, compare.FASTER)
TARGET_FPR = 0.065
SLOT = 0.1
#: the default ramp (CPUs, seconds): see the module docstring
BASE, PEAK, DELAY, RAMP = 1.0, 1.5, 1.0, 20.0
#: a helper exits on its own after this many seconds whatever happens
HELPER_LIFETIME = 900.0

LOAD_SCRIPT = r"""
import ctypes, math, os, signal, sys, time
parent, index, cpu = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
start, base, peak, delay, ramp, slot, lifetime = map(float, sys.argv[4:11])
if cpu >= 0:
    os.sched_setaffinity(0, {cpu})
try:  # die with the parent: prctl(PR_SET_PDEATHSIG, SIGKILL)
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
except Exception:
    pass
while os.getppid() == parent:
    now = time.monotonic()
    elapsed = now - start
    if elapsed > lifetime:
        break
    progress = min(1.0, max(0.0, (elapsed - delay) / ramp)) if ramp > 0 else float(elapsed >= delay)
    level = base + (peak - base) * progress
    duty = min(1.0, max(0.0, level - index))
    slot_start = start + slot * math.floor(elapsed / slot)
    busy_until = slot_start + duty * slot
    while time.monotonic() < busy_until:
        pass
    pause = slot_start + slot - time.monotonic()
    if pause > 0:
        time.sleep(pause)
"""

PROBE_SCRIPT = """
import sys, timeit
statement, seconds = sys.argv[1], float(sys.argv[2])
number = 1
while timeit.timeit(statement, number=number) < 0.01:
    number *= 2
total = loops = 0
deadline = timeit.default_timer() + seconds
while timeit.default_timer() < deadline:
    total += timeit.timeit(statement, number=number)
    loops += number
print(total / loops)
"""


# --- the injected load ---------------------------------------------------------

_ACTIVE: set[Load] = set()


def helper_cpu(index: int) -> int:
    """The CPU of helper *index*: the last CPU first (the "other core"
    when the benchmark runs on CPU 0), then downwards; -1: unpinned."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if not cpus:
        return -1
    return cpus[-1 - index % len(cpus)]


class Ramp(NamedTuple):
    """The load level in CPUs: *base* for *delay* seconds, then linear to
    *peak* over *ramp* seconds, then held."""

    base: float
    peak: float
    delay: float
    ramp: float

    def helpers(self) -> int:
        return math.ceil(max(self.base, self.peak))


NO_LOAD = Ramp(0.0, 0.0, 0.0, 0.0)


class Load:
    """The helper processes of one repetition (none when the ramp is 0)."""

    def __init__(self, python: str, ramp: Ramp) -> None:
        self.python = python
        self.ramp = ramp
        self.processes: list[subprocess.Popen[bytes]] = []

    def command(self, index: int, start: float) -> list[str]:
        numbers = (start, *self.ramp, SLOT, HELPER_LIFETIME)
        return [
            self.python,
            "-c",
            LOAD_SCRIPT,
            str(os.getpid()),
            str(index),
            str(helper_cpu(index)),
            *map(str, numbers),
        ]

    def __enter__(self) -> Load:
        _ACTIVE.add(self)
        start = time.monotonic()
        for index in range(self.ramp.helpers()):
            self.processes.append(subprocess.Popen(self.command(index, start), stdin=subprocess.DEVNULL))
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
        for process in self.processes:
            process.wait()
        self.processes = []
        _ACTIVE.discard(self)


def stop_all_loads() -> None:
    for load in list(_ACTIVE):
        load.stop()


def exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def probe_speed(args: argparse.Namespace, level: float, seconds: float) -> float:
    """Mean time of the statement in one process (10 ms chunks for
    *seconds*) while a constant load of *level* CPUs runs."""
    with Load(args.python, Ramp(level, level, 0.0, 0.0)):
        time.sleep(0.3)
        output = stdout_of([args.python, "-c", PROBE_SCRIPT, args.statement, str(seconds)])
    return float(output)


# --- one repetition -----------------------------------------------------------


def perf_command(args: argparse.Namespace, output: str, *, compare_to: bool, precision: bool = False) -> list[str]:
    command = [args.python, "-m", "perf", "timeit", "-q"]
    if compare_to:
        command += ["--compare-to", args.python]
    if precision:
        command += [
            "--target-precision",
            args.target_precision,
            "--min-processes",
            str(args.min_processes),
            "--max-processes",
            str(args.max_processes),
        ]
    else:
        command += ["-p", str(args.pairs)]
    return [*command, "-n", str(args.values), "-o", output, args.statement]


def design_commands(args: argparse.Namespace, design: str, folder: str) -> list[list[str]]:
    if design == INTERLEAVED:
        return [perf_command(args, os.path.join(folder, "X.json"), compare_to=True)]
    if design == BLOCK:
        return [
            perf_command(args, os.path.join(folder, "A.json"), compare_to=False),
            perf_command(args, os.path.join(folder, "B.json"), compare_to=False),
        ]
    return [perf_command(args, os.path.join(folder, "T.json"), compare_to=True, precision=True)]


def result_files(design: str, folder: str) -> tuple[str, str]:
    names = {INTERLEAVED: ("X-ref", "X-changed"), BLOCK: ("A", "B"), PRECISION: ("T-ref", "T-changed")}[design]
    return tuple(os.path.join(folder, f"{name}.json") for name in names)  # type: ignore[return-value]


def run_design(args: argparse.Namespace, design: str, folder: str) -> float | None:
    """Run the perf commands of one repetition during a fresh ramp; retry
    (with a new ramp) when perf fails: the source tree may be mid-edit.
    Return the wall time, or None after the last failed attempt."""
    log = os.path.join(folder, "perf.log")
    commands = design_commands(args, design, folder)
    return run_retried(commands, log, args.attempts, folder=folder, during=lambda: Load(args.python, args.load))


# --- analysis -------------------------------------------------------------------


class Outcome(NamedTuple):
    design: str
    repetition: int
    wall: float
    claims: dict[str, Claim]
    #: mean of the process means in the last third of the run / first third
    drift: float
    #: pairs (or processes per side) used
    pairs: int
    method: str
    #: paired designs: SD of the per-pair log ratios (None: block order)
    pair_sd: float | None
    #: target precision: perf said the target was not reached
    unreached: bool


def pooled_claim(values_a: Sequence[float], values_b: Sequence[float], test: Any) -> Claim:
    significant, t_score = test(list(values_a), list(values_b))
    # pyperf's t is (mean a - mean b) / SE: flip it to the sign of log(b / a)
    return Claim(mean(values_b) / mean(values_a), None, None, None, bool(significant), -float(t_score))


def third_drift(means: Sequence[float]) -> float:
    third = max(1, len(means) // 3)
    return mean(means[-third:]) / mean(means[:third])


def analyse(design: str, repetition: int, wall: float, folder: str, test: Any) -> Outcome:
    reference, changed = (load_benchmark(path) for path in result_files(design, folder))
    ref_means, new_means = reference.get_process_means(), changed.get_process_means()
    claims: dict[str, Claim] = {}
    chosen = compare_benchmarks(reference, changed)
    welch = compare.compare_process_means(ref_means, new_means)
    pooled = pooled_claim(reference.get_values(), changed.get_values(), test)
    pair_sd = None
    if design == BLOCK:
        claims["perf Welch on process means"] = from_comparison(welch)
        claims["pyperf pooled t on all values"] = pooled
        in_time_order = ref_means + new_means
    else:
        claims[f"perf compare_benchmarks ({chosen.method})"] = from_comparison(chosen)
        if design == INTERLEAVED:
            claims["perf Welch on the same process means"] = from_comparison(welch)
            claims["pyperf pooled t on all values"] = pooled
        paired = paired_process_means(reference, changed)
        if paired:
            in_time_order = [(a + b) / 2 for a, b in zip(*paired)]
            pair_sd = stdev([math.log(b / a) for a, b in zip(*paired)])
        else:
            in_time_order, pair_sd = ref_means, None
    with open(os.path.join(folder, "perf.log")) as log:
        unreached = "Target precision not reached" in log.read()
    drift = third_drift(in_time_order)
    return Outcome(design, repetition, wall, claims, drift, len(ref_means), chosen.method, pair_sd, unreached)


# --- summary --------------------------------------------------------------------


def summary_row(design: str, label: str, claims: Sequence[Claim]) -> list[str]:
    total = len(claims)
    different = sum(claim.different for claim in claims)
    has_verdict = claims[0].verdict is not None
    beyond = sum(claim.verdict in BEYOND_MARGIN for claim in claims)
    return [
        design,
        label,
        fpr_cell(different, total),
        fpr_cell(beyond, total) if has_verdict else "n/a",
        *claims_cells(claims),
    ]


def describe_designs(args: argparse.Namespace, outcomes: Sequence[Outcome]) -> None:
    print("Designs (medians over repetitions; drift = mean of the last third of the processes / first third):")
    for design in (INTERLEAVED, BLOCK, PRECISION):
        chosen = [outcome for outcome in outcomes if outcome.design == design]
        if not chosen:
            continue
        walls = [outcome.wall for outcome in chosen]
        drifts = [outcome.drift for outcome in chosen]
        methods = sorted({outcome.method for outcome in chosen})
        print(
            f"  {design}: {len(chosen)} repetitions; wall time median {median(walls):.1f} s "
            f"(range {min(walls):.1f}..{max(walls):.1f}); drift median {median(drifts):.3f} "
            f"(range {min(drifts):.3f}..{max(drifts):.3f}); compare_benchmarks method: {', '.join(methods)}"
        )
    precision = [outcome.pairs for outcome in outcomes if outcome.design == PRECISION]
    if precision:
        counts = {pairs: precision.count(pairs) for pairs in sorted(set(precision))}
        print(
            f"  target precision, pairs used: median {median(precision):g}, mean {mean(precision):.1f}, "
            f"range {min(precision)}..{max(precision)}; distribution (pairs: runs) "
            + ", ".join(f"{pairs}: {count}" for pairs, count in counts.items())
        )
        unreached = [outcome.pairs for outcome in outcomes if outcome.design == PRECISION and outcome.unreached]
        if unreached:
            print(
                f"  target precision not reached (perf's note) in {len(unreached)} runs, which stopped after "
                f"{', '.join(map(str, sorted(unreached)))} pairs (--max-processes {args.max_processes})"
            )


def summarize(outcomes: Sequence[Outcome]) -> dict[tuple[str, str], list[Claim]]:
    by_method: dict[tuple[str, str], list[Claim]] = {}
    for outcome in outcomes:
        for label, claim in outcome.claims.items():
            by_method.setdefault((outcome.design, label), []).append(claim)
    order = (INTERLEAVED, BLOCK, PRECISION)
    by_method = dict(sorted(by_method.items(), key=lambda item: order.index(item[0][0])))
    rows = [summary_row(design, label, claims) for (design, label), claims in by_method.items()]
    print()
    header = [
        "design",
        "method",
        "CI excludes 1 (FPR +- SE [95 % CI])",
        "slower/faster beyond 1 %",
        "med. ratio",
        "med. CI half",
        "mean t",
        "SD t",
    ]
    print_table(header, rows, left=2)
    return by_method


def target_lines(by_method: dict[tuple[str, str], list[Claim]], drift: bool) -> None:
    print()
    for (design, label), claims in by_method.items():
        if not label.startswith("perf ") or (design != BLOCK and "paired" not in label):
            continue
        total = len(claims)
        count = sum(claim.different for claim in claims)
        low, high = clopper_pearson(count, total)
        fpr = count / total
        verdict = "PASS" if fpr <= TARGET_FPR else "FAIL"
        expectation = "target" if design != BLOCK else "expected to fail" if drift else "control, no injected drift"
        consistent = "consistent with" if low <= TARGET_FPR else "excludes"
        print(
            f"{design}, {label}: FPR {100 * fpr:.1f} % ({count}/{total}) vs <= {100 * TARGET_FPR:.1f} % "
            f"({expectation}): {verdict}; the exact 95 % interval [{100 * low:.1f} .. {100 * high:.1f}] % "
            f"{consistent} <= {100 * TARGET_FPR:.1f} %"
        )


def precision_target(text: str) -> float:
    return float(text.strip().rstrip("%")) / 100


def simulate_rule(rule: StoppingRule, sd: float, runs: int, rng: random.Random) -> tuple[float, float]:
    """(FPR, mean pairs) of perf's stopping rule applied to i.i.d. normal
    per-pair log ratios of SD *sd* and mean 0, with the paired t interval."""
    quantiles = {n: student_t_ppf(1 - (1 - rule.confidence) / 2, n - 1) for n in range(2, rule.maximum + 1)}
    claims = used = 0
    for _ in range(runs):
        total = squares = 0.0
        count = 0
        while True:
            value = rng.gauss(0.0, sd)
            count += 1
            total += value
            squares += value * value
            if count < 2:
                continue
            centre = total / count
            spread = math.sqrt(max(0.0, (squares - count * centre * centre) / (count - 1)))
            half = quantiles[count] * spread / math.sqrt(count)
            if rule.done(count, math.expm1(half)):
                break
        claims += abs(centre) > half
        used += count
    return claims / runs, used / runs


def model_precision_rule(args: argparse.Namespace, outcomes: Sequence[Outcome], runs: int = 20_000) -> None:
    """[model] The false-positive rate of the --target-precision stopping
    rule itself, on simulated pairs with the within-run spread measured
    here: stopping when the interval happens to be narrow selects runs
    whose SD is underestimated."""
    spreads = [outcome.pair_sd for outcome in outcomes if outcome.design == INTERLEAVED and outcome.pair_sd]
    if not spreads or not any(outcome.design == PRECISION for outcome in outcomes):
        return
    sd = median(spreads)
    rng = random.Random(args.seed)
    target = precision_target(args.target_precision)
    cells = []
    for minimum in sorted({args.min_processes, 10, 20}):
        if minimum > args.max_processes:
            continue
        fpr, pairs = simulate_rule(StoppingRule(target, minimum, args.max_processes), sd, runs, rng)
        cells.append(f"min {minimum}: FPR {100 * fpr:.1f} % (mean {pairs:.1f} pairs)")
    se = 100 * math.sqrt(0.05 * 0.95 / runs)
    print()
    print(
        f"[model] perf's StoppingRule (target {args.target_precision}, max {args.max_processes}) on i.i.d. normal "
        f"pair log ratios, SD {100 * sd:.2f} % (the median within-run SD of the interleaved runs), {runs} "
        f"simulated A/A runs (MC SE ~{se:.1f}): " + "; ".join(cells)
    )


# --- main -------------------------------------------------------------------------


def schedule(args: argparse.Namespace) -> list[tuple[str, int]]:
    """Rounds of (interleaved, block) in a random order per round, the
    target-precision repetitions spread evenly over the rounds."""
    rng = random.Random(args.seed)
    rounds = max(args.repetitions, args.precision_repetitions)
    spread = {math.floor(i * rounds / args.precision_repetitions) for i in range(args.precision_repetitions)}
    tasks: list[tuple[str, int]] = []
    precision = 0
    for index in range(rounds):
        pair = [INTERLEAVED, BLOCK] if index < args.repetitions else []
        if index in spread:
            pair.append(PRECISION)
        rng.shuffle(pair)
        for design in pair:
            if design == PRECISION:
                tasks.append((design, precision))
                precision += 1
            else:
                tasks.append((design, index))
    return tasks


def print_setup(args: argparse.Namespace, folder: str, test_label: str) -> None:
    print(f"Drift-injection A/A test (doc/design.rst, R6, issue 5); seed {args.seed}")
    print(
        f"Repetitions: R = {args.repetitions} per design (interleaved, block order), "
        f"R' = {args.precision_repetitions} target-precision runs; statement {args.statement!r}"
    )
    print(f"Commands (in {ROOT}, with PYTHONPATH={ROOT}; one folder per repetition under {folder}):")
    for design, label in ((INTERLEAVED, "interleaved"), (BLOCK, "block order"), (PRECISION, "target precision")):
        for command in design_commands(args, design, "REP"):
            print(f"  {label}: {shlex.join(command)}")
    ramp = args.load
    if ramp == NO_LOAD:
        print("Load: none (--no-load control run)")
    else:
        cpus = ", ".join(f"helper {index} on CPU {helper_cpu(index)}" for index in range(ramp.helpers()))
        print(
            f"Load: {ramp.helpers()} helper processes started with each repetition and killed at its end ({cpus}); "
            f"100 ms slots; load level {ramp.base:g} CPU for {ramp.delay:g} s, then linear to {ramp.peak:g} CPUs "
            f"over {ramp.ramp:g} s, then held; helper k spins for clamp(level - k, 0, 1) of each slot, sleeps the rest."
        )
        helper = Load(args.python, ramp).command(0, 0.0)
        print(f"  helper k: {shlex.join([helper[0], '-c', 'LOAD_SCRIPT', 'PPID', 'k', 'CPU', 'START', *helper[7:]])}")
    print(f"pyperf's test: {test_label}")


def probe(args: argparse.Namespace) -> None:
    """What a constant load of 0, 1, base and peak CPUs does to the
    statement: levels up then down (2 s each), the mean of both passes."""
    ramp = args.load
    levels = sorted({0.0, 1.0, ramp.base, ramp.peak})
    times: dict[float, list[float]] = {level: [] for level in levels}
    for level in [*levels, *reversed(levels)]:
        times[level].append(probe_speed(args, level, 2.0))
    none = mean(times[0.0])
    cells = ", ".join(f"{level:g} CPU x{mean(times[level]) / none:.3f}" for level in levels)
    print(
        f"Speed probe (mean time of the statement in one process under a constant load / no load; other jobs on "
        f"the machine add noise): {cells}"
    )


def run_all(args: argparse.Namespace, folder: str, test: Any) -> list[Outcome]:
    def run_one(task: tuple[str, int]) -> tuple[Outcome, str] | None:
        design, repetition = task
        name = f"{design.replace(' ', '-')}-{repetition:03d}"
        wall = run_design(args, design, os.path.join(folder, name))
        if wall is None:
            return None
        outcome = analyse(design, repetition, wall, os.path.join(folder, name), test)
        claim = next(iter(outcome.claims.values()))
        return outcome, (
            f"{name:20} {wall:5.1f} s  {outcome.method:6} {claim.ratio:.4f} [{claim.low:.4f} .. {claim.high:.4f}] "
            f"{claim.verdict:13} {outcome.pairs:2} per side, drift {outcome.drift:.3f}"
        )

    return repeat(schedule(args), run_one, args.pause, "repetitions", width=2)


def describe_ramp(args: argparse.Namespace) -> str | None:
    if args.no_load:
        return None
    return f"{args.base:g} CPU for {args.delay:g} s, then up to {args.peak:g} over {args.ramp:g} s, each repetition"


def parse_args() -> argparse.Namespace:
    parser = Parser(__doc__, load=describe_ramp)
    parser.add_argument("--repetitions", type=int, default=30, help="R, repetitions per design (default: 30)")
    parser.add_argument(
        "--precision-repetitions", type=int, default=10, help="R', target-precision repetitions (default: 10)"
    )
    add_study_options(parser, python="the Python of both sides")
    parser.add_argument("--no-load", action="store_true", help="control run: no injected load")
    parser.add_argument("--statement", default=STATEMENT, help=f"timeit statement (default: {STATEMENT!r})")
    parser.add_argument("--pairs", type=int, default=24, help="pairs (processes per side) of the fixed designs")
    parser.add_argument("--values", type=int, default=2, help="values per process (default: 2)")
    parser.add_argument("--target-precision", default="2%", help="--target-precision of design 3 (default: 2%%)")
    parser.add_argument("--min-processes", type=int, default=6, help="--min-processes of design 3 (default: 6)")
    parser.add_argument("--max-processes", type=int, default=40, help="--max-processes of design 3 (default: 40)")
    parser.add_argument("--base", type=float, default=BASE, help=f"load at the start, in CPUs (default: {BASE:g})")
    parser.add_argument("--peak", type=float, default=PEAK, help=f"load at the end of the ramp (default: {PEAK:g})")
    parser.add_argument("--delay", type=float, default=DELAY, help=f"seconds at the base load (default: {DELAY:g})")
    parser.add_argument("--ramp", type=float, default=RAMP, help=f"seconds from base to peak (default: {RAMP:g})")
    args = parser.parse_args()
    args.load = NO_LOAD if args.no_load else Ramp(args.base, args.peak, args.delay, args.ramp)
    return args


def main() -> None:
    args = parse_args()
    atexit.register(stop_all_loads)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, exit_on_signal)
    # Ctrl-C summarises the repetitions done, even when started in the background
    signal.signal(signal.SIGINT, signal.default_int_handler)
    test, test_label = pyperf_test()
    with work_folder(args.keep, "drift_compare_") as folder:  # the loads stop with their blocks, and at exit
        print_setup(args, folder, test_label)
        if args.load != NO_LOAD:
            probe(args)
        outcomes = run_all(args, folder, test)
        if outcomes:
            print()
            describe_designs(args, outcomes)
            target_lines(summarize(outcomes), drift=args.load != NO_LOAD)
            model_precision_rule(args, outcomes)
            print()
            print(
                "FPR = share of repetitions claiming a difference; SE = sqrt(p(1-p)/R), binomial; [..] = exact "
                "(Clopper-Pearson) 95 % interval. med. CI half = median of sqrt(high/low) - 1. t = log(ratio)/SE of "
                "the method: mean 0 and SD 1 when its SE is honest. pyperf's test has no CI: its column 1 is "
                "'significant', its ratio the ratio of the means of all values."
            )


if __name__ == "__main__":
    main()
