"""``--adaptive-values`` against the fixed default budget: precision per second on real timeit runs.

The question (issue: make adaptive values the default "once bench/ shows it
never loses precision per second against the fixed budget"): for the same
statement, does ``python -m perf timeit --adaptive-values STMT`` buy at
least as much precision per second of wall time as ``python -m perf timeit
STMT`` with the default budget?

Metric, per run (one whole perf invocation):

* h = half-width of the 95 % t interval of the mean of the process means
  (``perf.analysis.intervals.mean_interval`` on
  ``Benchmark.get_process_means()``), relative to the mean;
* T = wall time of the whole ``python -m perf timeit`` command (parent
  start-up, calibration, every worker, writing the JSON file);
* efficiency = 1 / (h^2 T): the variance of a mean falls as 1 / time, so
  h^2 T is the same for a short and a long run of one design, and the
  efficiency of runs of different lengths (adaptive runs last longer when
  they choose more values) compares fairly.  It is also printed as "s for
  +-1 %" = (h / 1 %)^2 T: the seconds this design would need for a +-1 %
  interval.  Both arms use the default number of processes (the same t
  quantile), so no arm gets a degrees-of-freedom advantage.

Arms: *fixed* = the defaults (no -p / -n option: perf's DEFAULT_BUDGET,
printed at start) and *adaptive* = ``--adaptive-values`` (the same default
processes; the pilot of ``PILOT_PROCESSES`` processes runs the default
values, the rest the values chosen, k).  No third "same wall time" arm:
the efficiency already divides by the wall time, and a longer fixed run
would only narrow h by sqrt of its extra time.

Workloads span the ratio of within-process to between-process variance
(the ratio that drives k):

* ``str-set``: membership tests of 2000 strings in a set: the collisions
  depend on the hash seed of each process (between-process variance);
* ``alloc``: a list of 100 000 empty lists per loop: each loop takes ~15 ms
  and triggers many garbage collections, so a value holds few loops and
  varies from value to value (within-process variance);
* ``arith``: ``sum(i*i for i in range(1000))``, a plain arithmetic loop;
* ``random-cost`` (synthetic): 1 % of the loops run a 15 ms sum, chosen by
  ``random.random()``: a value holds a handful of them, a pure
  within-process noise by construction -- the case adaptive values are
  designed for.

Schedule: R rounds; each round runs every (workload, arm) cell once, in an
order shuffled by the seeded generator (printed with every run), so that
drift of the machine and other jobs hit both arms alike.

Per workload it prints

* the variance structure measured by the fixed runs (every one 24 x 2 or
  whatever the default is): between- and within-process SD (one-way ANOVA,
  ``variance_components``, pooled over runs as mean relative variances),
  their ratio W/B, the seconds per value c_value (mean raw value) and the
  per-process overhead c_proc = (T - time measuring) / processes (the
  parent's start-up and the calibration fall in it too), without and with
  the warmups (perf's pilot_values leaves the warmups out of c_proc);
  from these the k of the model, sqrt(c_proc / c_value x W / B), and the
  model's gain in efficiency at that k over the default values;
* [model] the adaptive / fixed pooled efficiency that this model predicts
  for the k adaptive actually chose (a cross-check far less noisy than the
  measured ratio, but only as good as the model: under a bursty external
  load the split into "between" and "within" depends on how long a process
  lasts, which the model ignores);
* the k adaptive chose in each run (values per process after the pilot,
  read from the result JSON) and the W/B of its pilot;
* per arm: median h, median T, median efficiency and s for +-1 %; the
  ratio adaptive / fixed of the median efficiencies with a percentile
  bootstrap 95 % interval (arms resampled independently), and the pooled
  ratio 1 / (mean h^2 x mean T) (the expected precision per second, steadier
  than the medians, more sensitive to outlier runs) with its own bootstrap
  interval; verdict (from the medians): "adaptive loses" (interval below 1),
  "adaptive wins" (above 1) or "no measurable difference".

What R can resolve: h^2 from 24 process means has a relative SD of about
sqrt(2 / 23) ~ 30 % even on a quiet machine, and T varies too, so with
R = 20 per cell the interval of a ratio of medians is roughly +-15-25 %
there: the run tells "adaptive loses badly / wins clearly" apart from
"about the same", not 3 % from 0 %.  On a loaded machine the efficiency of
single runs spreads over two orders of magnitude and the intervals get far
wider (results/adaptive_values-2026-11-21.txt).  The split of the adaptive
runs by the k they chose is descriptive, not causal: a pilot that ran
during a noisy spell both picks a large k and belongs to a noisy run.

About 37 minutes with the defaults on a 2-vCPU VM (a run takes 9-35 s).
``--keep DIR`` keeps the result files and ``DIR/runs.jsonl`` (one line per
run), which ``--analyse DIR`` summarises again without running anything.

Usage::

    python bench/runner/adaptive_values.py [--repetitions 20] [--workloads str-set,alloc] [--seed N] [--keep DIR]
    python bench/runner/adaptive_values.py --analyse DIR [--seed N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import subprocess
import sys
from typing import NamedTuple, Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit import ROOT
from kit.results import Parser, print_table
from kit.run import add_study_options, perf_env, repeat, run_retried, uptime, work_folder
from kit.stats import raw_time
from kit.tools import shuffled_rounds

from perf.analysis.intervals import mean_interval
from perf.analysis.statistics import mean, median, percentile, variance_components
from perf.measure.parent.allocation import MAX_VALUES, MIN_VALUES, PILOT_PROCESSES
from perf.measure.values import DEFAULT_BUDGET
from perf.storage.files import load_benchmark

FIXED = "fixed"
ADAPTIVE = "adaptive"
ARMS = {FIXED: [], ADAPTIVE: ["--adaptive-values"]}
#: one line of JSON per finished run, in the result folder (read back by --analyse)
RUNS_FILE = "runs.jsonl"


class Workload(NamedTuple):
    key: str
    #: the variance expected to dominate
    expected: str
    setup: tuple[str, ...]
    statement: str


WORKLOADS = (
    Workload(
        "str-set",
        "between (hash seed)",
        ("words = [str(i) * 3 for i in range(2000)]; s = set(words)",),
        "for w in words: w in s",
    ),
    Workload("alloc", "within (GC, few loops per value)", (), "l = [[] for _ in range(100000)]"),
    Workload("arith", "mixed (plain loop)", (), "sum(i * i for i in range(1000))"),
    Workload(
        "random-cost",
        "within (synthetic)",
        ("import random",),
        "sum(range(1000000)) if random.random() < 0.01 else None",
    ),
)


class Result(NamedTuple):
    """One perf invocation."""

    workload: str
    arm: str
    round: int
    wall: float
    #: relative half-width of the 95 % interval of the mean of process means
    half: float
    processes: int
    #: values per process after the pilot (the most common count)
    k: int
    #: W / B of the pilot processes (inf when B is 0)
    pilot_ratio: float
    #: relative between- and within-process variances (first MIN_VALUES values of each process)
    between: float
    within: float
    #: seconds per value (mean raw value)
    value_cost: float
    #: (wall - time measuring) / processes
    overhead: float
    warmups: float
    load: float

    @property
    def efficiency(self) -> float:
        return 1.0 / (self.half**2 * self.wall)

    @property
    def seconds_for_1pct(self) -> float:
        return (self.half / 0.01) ** 2 * self.wall


# --- running --------------------------------------------------------------


def perf_command(args: argparse.Namespace, workload: Workload, arm: str, output: str) -> list[str]:
    command = [args.python, "-m", "perf", "timeit", "-q", "-o", output, *ARMS[arm]]
    for setup in workload.setup:
        command += ["-s", setup]
    return [*command, workload.statement]


def check_worker_import(args: argparse.Namespace, folder: str) -> str:
    """Where the workers import perf from (a one-process timeit whose setup
    writes perf.__file__ into a file)."""
    marker = os.path.join(folder, "worker_perf_path.txt")
    setup = f"import perf; open({marker!r}, 'w').write(perf.__file__)"
    command = [args.python, "-m", "perf", "timeit", "-q", "-p", "1", "-n", "1", "-w", "0", "-l", "1", "-s", setup]
    subprocess.run([*command, "pass"], check=True, cwd=ROOT, env=perf_env(inherit_path=True), stdout=subprocess.DEVNULL)
    with open(marker) as file:
        return file.read()


def schedule(args: argparse.Namespace, workloads: Sequence[Workload]) -> list[tuple[int, Workload, str]]:
    cells = [(workload, arm) for workload in workloads for arm in ARMS]
    rounds = shuffled_rounds(cells, args.repetitions, random.Random(args.seed))
    return [(number, workload, arm) for number, order in enumerate(rounds, 1) for workload, arm in order]


# --- analysis -------------------------------------------------------------


def relative_components(groups: Sequence[Sequence[float]]) -> tuple[float, float]:
    """(between, within) variances relative to the squared grand mean."""
    between, within = variance_components(groups)
    centre = mean([value for group in groups for value in group])
    return between / centre**2, within / centre**2


def analyse(workload: Workload, arm: str, path: str, *, number: int, wall: float, load: float) -> Result:
    benchmark = load_benchmark(path)
    runs = [run for run in benchmark.get_runs() if run.values]
    means = benchmark.get_process_means()
    interval = mean_interval(means)
    counts = [len(run.values) for run in runs[PILOT_PROCESSES:]] or [len(runs[0].values)]
    k = max(set(counts), key=counts.count)
    pilot_between, pilot_within = variance_components([list(run.values) for run in runs[:PILOT_PROCESSES]])
    pilot_ratio = pilot_within / pilot_between if pilot_between > 0 else float("inf")
    between, within = relative_components([list(run.values[:MIN_VALUES]) for run in runs])
    value_cost = mean([mean(run.get_raw_values()) for run in runs])
    return Result(
        workload=workload.key,
        arm=arm,
        round=number,
        wall=wall,
        half=(interval.high - interval.estimate) / interval.estimate,
        processes=len(runs),
        k=k,
        pilot_ratio=pilot_ratio,
        between=between,
        within=within,
        value_cost=value_cost,
        overhead=(wall - raw_time(benchmark)) / len(runs),
        warmups=mean([len(run.warmups) for run in runs]),
        load=load,
    )


def bootstrap_ratio(
    fixed: Sequence[Result], adaptive: Sequence[Result], statistic: str, rng: random.Random, draws: int
) -> tuple[float, float, float]:
    """(estimate, low, high): adaptive / fixed of *statistic* ("median":
    median efficiency; "pooled": 1 / (mean h^2 x mean T)), with a
    percentile bootstrap 95 % interval, each arm resampled on its own."""

    def value(results: Sequence[Result]) -> float:
        if statistic == "median":
            return median([result.efficiency for result in results])
        return 1.0 / (mean([result.half**2 for result in results]) * mean([result.wall for result in results]))

    estimate = value(adaptive) / value(fixed)
    ratios = sorted(
        value(rng.choices(adaptive, k=len(adaptive))) / value(rng.choices(fixed, k=len(fixed))) for _ in range(draws)
    )
    return estimate, percentile(ratios, 0.025), percentile(ratios, 0.975)


def verdict(low: float, high: float) -> str:
    if high < 1:
        return "adaptive loses"
    if low > 1:
        return "adaptive wins"
    return "no measurable difference"


def model_gain(between: float, within: float, overhead: float, value_cost: float, *, k: int, k0: int) -> float:
    """Efficiency at k values per process over k0, by the model:
    variance (B + W/k) per process, cost overhead + k c_value."""
    return ((between + within / k0) * (overhead + k0 * value_cost)) / (
        (between + within / k) * (overhead + k * value_cost)
    )


def model_k(between: float, within: float, overhead: float, value_cost: float) -> float:
    if between <= 0:
        return float("inf")
    return (overhead / value_cost * within / between) ** 0.5


def model_ratio(between: float, within: float, cost: float, value_cost: float, ks: Sequence[int]) -> float:
    """Adaptive / fixed pooled efficiency predicted by the model for runs
    that chose the values *ks* after the pilot: the expected variance of a
    process mean is the average over the processes of B + W / values, the
    time is processes x *cost* (everything but the values) + the values."""
    processes, base = DEFAULT_BUDGET.processes, DEFAULT_BUDGET.values
    rest = processes - PILOT_PROCESSES

    def variance(k: int) -> float:
        return (PILOT_PROCESSES * (between + within / base) + rest * (between + within / k)) / processes

    def seconds(k: int) -> float:
        return processes * cost + value_cost * (PILOT_PROCESSES * base + rest * k)

    adaptive = mean([variance(k) for k in ks]) * mean([seconds(k) for k in ks])
    return variance(base) * seconds(base) / adaptive


def clamp(k: float) -> int:
    return max(MIN_VALUES, min(MAX_VALUES, round(k))) if k != float("inf") else MAX_VALUES


def describe_workload(workload: Workload, results: Sequence[Result]) -> None:
    fixed = [result for result in results if result.arm == FIXED]
    adaptive = [result for result in results if result.arm == ADAPTIVE]
    print(
        f"{workload.key}: {workload.statement!r}"
        + (f" (setup {'; '.join(workload.setup)!r})" if workload.setup else "")
    )
    print(f"  expected to dominate: {workload.expected}")
    if fixed:
        between = mean([result.between for result in fixed])
        within = mean([result.within for result in fixed])
        value_cost = median([result.value_cost for result in fixed])
        overhead = median([result.overhead for result in fixed])
        warmups = median([result.warmups for result in fixed])
        with_warmups = overhead + warmups * value_cost
        ratios = [result.within / result.between if result.between > 0 else float("inf") for result in fixed]
        print(
            f"  fixed runs: between-process SD {100 * between**0.5:.2f} %, within-process SD {100 * within**0.5:.2f} %"
            f" (pooled over {len(fixed)} runs); W/B pooled {within / between if between else float('inf'):.2f}, "
            f"per run median {median(ratios):.2f} (range {min(ratios):.2f}..{max(ratios):.2f})"
        )
        base = DEFAULT_BUDGET.values
        cells = []
        for label, cost in (("c_proc without warmups (perf's pilot)", overhead), ("with warmups", with_warmups)):
            k = model_k(between, within, cost, value_cost)
            gain = model_gain(between, within, with_warmups, value_cost, k=clamp(k), k0=base)
            cells.append(f"{label} {1e3 * cost:.0f} ms: k* {k:.1f} -> {clamp(k)}, model gain x{gain:.2f}")
        print(f"  c_value {1e3 * value_cost:.0f} ms; " + "; ".join(cells))
    if adaptive and fixed:
        predicted = model_ratio(between, within, with_warmups, value_cost, [result.k for result in adaptive])
        print(
            f"  [model] with these components and costs, the k adaptive chose predict an adaptive / fixed pooled "
            f"efficiency of x{predicted:.3f} (the measured pooled ratio is below)"
        )
    if adaptive:
        ks = [result.k for result in adaptive]
        distribution = ", ".join(f"{k}: {ks.count(k)}" for k in sorted(set(ks)))
        pilots = [result.pilot_ratio for result in adaptive]
        clamped = sum(ratio == float("inf") for ratio in pilots)
        print(
            f"  adaptive chose k (values per process after the {PILOT_PROCESSES}-process pilot; k: runs) "
            f"{distribution}; median k {median(ks):g}; pilot W/B median {median(pilots):.2f}, "
            f"between clamped to 0 in {clamped} runs"
        )


def summarize(workloads: Sequence[Workload], results: Sequence[Result], args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    rows = []
    verdicts = []
    for workload in workloads:
        mine = [result for result in results if result.workload == workload.key]
        by_arm = {arm: [result for result in mine if result.arm == arm] for arm in ARMS}
        if not all(len(runs) >= 2 for runs in by_arm.values()):
            continue
        for arm, runs in by_arm.items():
            ks = sorted({result.k for result in runs})
            pooled = 1.0 / (mean([result.half**2 for result in runs]) * mean([result.wall for result in runs]))
            rows.append(
                [
                    workload.key,
                    arm,
                    str(len(runs)),
                    f"{DEFAULT_BUDGET.processes} x " + ("/".join(map(str, ks))),
                    f"+-{100 * median([result.half for result in runs]):.2f} %",
                    f"{median([result.wall for result in runs]):.1f}",
                    f"{median([result.efficiency for result in runs]):.0f}",
                    f"{median([result.seconds_for_1pct for result in runs]):.1f}",
                    f"{pooled:.0f}",
                ]
            )
        fixed, adaptive = by_arm[FIXED], by_arm[ADAPTIVE]
        ratio, low, high = bootstrap_ratio(fixed, adaptive, "median", rng, args.bootstrap)
        pooled, pooled_low, pooled_high = bootstrap_ratio(fixed, adaptive, "pooled", rng, args.bootstrap)
        verdicts.append(
            (
                workload.key,
                ratio,
                low,
                high,
                pooled,
                pooled_low,
                pooled_high,
                verdict(low, high),
                verdict(pooled_low, pooled_high),
            )
        )
    print()
    header = ["workload", "arm", "runs", "p x k", "median h", "median T (s)", "median eff", "s for +-1 %", "pooled eff"]
    print_table(header, rows, left=2)
    print()
    print("Adaptive / fixed (efficiency = 1 / (h^2 T); > 1: adaptive buys more precision per second):")
    width = max(len(item[0]) for item in verdicts) if verdicts else 0
    for key, ratio, low, high, pooled, pooled_low, pooled_high, median_verdict, pooled_verdict in verdicts:
        note = "" if pooled_verdict == median_verdict else f"  (pooled says: {pooled_verdict})"
        print(
            f"  {key:{width}}  medians x{ratio:.3f} [{low:.3f} .. {high:.3f}]  pooled x{pooled:.3f} "
            f"[{pooled_low:.3f} .. {pooled_high:.3f}]  -> {median_verdict}{note}"
        )
    if verdicts:
        worst = min(verdicts, key=lambda item: item[2])
        if worst[2] < 1:
            print(
                f"  lowest lower bound (medians): {worst[2]:.3f} ({worst[0]}): these runs cannot exclude a loss of "
                f"up to {100 * (1 - worst[2]):.0f} % of precision per second there"
            )
        else:
            print(f"  every lower bound (medians) is above 1; the lowest: {worst[2]:.3f} ({worst[0]})")
    print()
    print("Adaptive runs split by the k they chose (median efficiency / the fixed arm's median efficiency):")
    for workload in workloads:
        mine = [result for result in results if result.workload == workload.key]
        fixed = [result.efficiency for result in mine if result.arm == FIXED]
        if not fixed:
            continue
        cells = []
        for label, chosen in (("k = default", True), ("k > default", False)):
            runs = [
                result.efficiency
                for result in mine
                if result.arm == ADAPTIVE and (result.k == DEFAULT_BUDGET.values) == chosen
            ]
            cells.append(f"{label}: {len(runs)} runs" + (f", x{median(runs) / median(fixed):.3f}" if runs else ""))
        print(f"  {workload.key:{width}}  " + "; ".join(cells))


# --- main -------------------------------------------------------------------


def run_all(args: argparse.Namespace, workloads: Sequence[Workload], folder: str) -> list[Result]:
    log_path = os.path.join(folder, "perf.log")

    def run_one(task: tuple[int, Workload, str]) -> tuple[Result, str] | None:
        round_number, workload, arm = task
        output = os.path.join(folder, f"{workload.key}-{arm}-{round_number:03d}.json")
        load = os.getloadavg()[0]
        command = perf_command(args, workload, arm, output)
        wall = run_retried([command], log_path, args.attempts, output=output, die_with_us=False)
        if wall is None:
            return None
        result = analyse(workload, arm, output, number=round_number, wall=wall, load=load)
        with open(os.path.join(folder, RUNS_FILE), "a") as file:
            file.write(json.dumps(result._asdict()) + "\n")
        ratio = f"{result.pilot_ratio:6.2f}" if result.pilot_ratio != float("inf") else "   inf"
        if arm == FIXED:
            ratio = "     -"
        return result, (
            f"round {round_number:2} {workload.key:11} {arm:8} T {wall:5.1f} s  h +-{100 * result.half:5.2f} %  "
            f"eff {result.efficiency:8.0f}  {result.processes} x {result.k:2}  pilot W/B {ratio}  load {load:.2f}"
        )

    return repeat(schedule(args, workloads), run_one, args.pause, "perf invocations")


def parse_args() -> argparse.Namespace:
    parser = Parser(__doc__)
    parser.add_argument("--repetitions", type=int, default=20, help="R, runs per (workload, arm) (default: 20)")
    parser.add_argument(
        "--workloads",
        default=",".join(workload.key for workload in WORKLOADS),
        help="comma-separated workloads (default: all: %(default)s)",
    )
    add_study_options(parser)
    parser.add_argument("--bootstrap", type=int, default=10000, help="bootstrap resamples (default: 10000)")
    parser.add_argument("--note", default="", help="a line printed in the header (e.g. what else ran)")
    parser.add_argument(
        "--analyse", metavar="DIR", help=f"run nothing: summarise the runs of an earlier --keep DIR ({RUNS_FILE})"
    )
    args = parser.parse_args()
    known = {workload.key: workload for workload in WORKLOADS}
    unknown = [key for key in args.workloads.split(",") if key not in known]
    if unknown:
        parser.error(f"unknown workloads {', '.join(unknown)} (known: {', '.join(known)})")
    args.workload_list = [known[key] for key in args.workloads.split(",")]
    return args


def load_results(folder: str) -> list[Result]:
    with open(os.path.join(folder, RUNS_FILE)) as file:
        return [Result(**json.loads(line)) for line in file if line.strip()]


def report(args: argparse.Namespace, results: Sequence[Result]) -> None:
    print()
    for workload in args.workload_list:
        describe_workload(workload, [result for result in results if result.workload == workload.key])
    summarize(args.workload_list, results, args)
    print()
    print(
        "h: half-width of the 95 % t interval of the mean of process means / mean; T: wall time of the "
        "perf command; eff = 1 / (h^2 T); s for +-1 % = (h / 1 %)^2 T; pooled eff = 1 / (mean h^2 x mean T). "
        "Intervals: percentile bootstrap, arms resampled independently. W/B: within- / between-process "
        "variance (one-way ANOVA on the first 2 values of each process). k*: sqrt(c_proc / c_value x W / B); "
        "model gain: the model's efficiency at k* clamped, over the default values."
    )


def main() -> None:
    args = parse_args()
    if args.analyse:
        results = load_results(args.analyse)
        print(f"Re-analysis of the {len(results)} runs in {os.path.abspath(args.analyse)}; seed {args.seed}")
        report(args, results)
        return
    with work_folder(args.keep, "adaptive_values_") as folder:
        print(f"--adaptive-values against the fixed default budget; seed {args.seed}")
        print(f"Start: {uptime()}")
        if args.note:
            print(f"Note: {args.note}")
        print(f"Python: {args.python}; perf from {ROOT} (PYTHONPATH={ROOT})")
        print(f"Workers import perf from: {check_worker_import(args, folder)}")
        print(
            f"Default budget {DEFAULT_BUDGET.processes} processes x {DEFAULT_BUDGET.values} values; adaptive: pilot "
            f"{PILOT_PROCESSES} processes, then k in [{MIN_VALUES}, {MAX_VALUES}]; R = {args.repetitions} runs per "
            "(workload, arm), every cell once per round in a shuffled order"
        )
        print("Commands (in the root, one result file per run):")
        for workload in args.workload_list:
            for arm in ARMS:
                print(f"  {shlex.join(perf_command(args, workload, arm, 'OUT.json'))}")
        print()
        results = run_all(args, args.workload_list, folder)
        print(f"End: {uptime()}")
        if results:
            report(args, results)


if __name__ == "__main__":
    main()
