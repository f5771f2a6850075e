"""Power of perf's comparison at equal wall time: interleaved pairs against block order.

Issue: "Power: a real 2 % and 5 % work difference, detection rates for
interleaved vs block order at equal wall time."  drift_compare.py checks the
false-positive side under an injected drift; this script measures the other
side, how often a REAL difference is found, with no injected load.

The two "interpreters" are one real executable (``--python``) reached through
two symlinks, ``pyA`` and ``pyB``, in a temporary folder: ``sys.executable``
keeps the symlink path (checked before the runs, with perf's own workers), so
the timeit setup can pick the amount of work from its basename::

    setup:     import os, sys; n = {'pyA': N, 'pyB': round(N * (1 + effect))}[os.path.basename(sys.executable)]
    statement: for _ in range(n): pass

The statement is a bare loop, so its cost is linear in n up to the constant
cost of one timeit iteration (tens of ns against ~100 us): side B does
(1 + effect) times the work of side A.  The real work ratio is MEASURED in
one process (the statements of A and B alternated, timeit, median ratio per
round: ``power_compare.in_process_ratios``) before and after the runs, and
printed.  Effects 0 (A/A: the false-positive control), 2 % and 5 %.

Designs, with the same number of worker processes (P per side, V values
each, perf's default warmup and loop calibration), so nearly the same wall
time (measured and printed per run):

* *interleaved*: ``pyB -m perf timeit --compare-to pyA -p P -n V -o X.json
  --setup SETUP STMT``: the workers of the two sides in P interleaved pairs,
  the order in each pair from perf's recorded seed; X-ref.json (pyA) and
  X-changed.json (pyB) analysed with
  ``perf.analysis.benchmarks.compare_benchmarks``, which must choose the
  method "paired".  For reference, the same process means are also analysed
  unpaired (Welch): the difference between the two rows is what pairing buys
  on the same data;
* *block order*: ``pyA -m perf timeit -p P -n V -o A.json ...`` and ``pyB -m
  perf timeit -p P -n V -o B.json ...`` one after the other, which side first
  drawn by a coin per repetition (printed), analysed with
  ``compare_benchmarks(A, B)`` (method "welch": two separate recordings).

Schedule: R rounds; each round runs the 6 cells (design x effect) once, in an
order shuffled per round (random.Random(--seed); the seed is printed), so
slow drifts of the machine hit every cell alike.  No load is injected: the
machine (2 vCPUs, shared) brings its own noise; the load averages are printed
at the start and the end and the 1-minute one with every run.

Per (design, analysis, effect) it prints: the detection rate -- verdict
"slower" (the whole 95 % CI of the ratio above 1 + margin, margin 1 %) and
"CI above 1" (the 95 % CI entirely above 1) -- and, as a side figure, "CI
excludes 1" (two-sided, the nominal 5 % of an A/A test), each with its
binomial SE sqrt(p(1-p)/R) and exact (Clopper-Pearson) 95 % interval; the
median ratio, the median CI half-width sqrt(high/low) - 1, the mean and SD
of the t-scores log(ratio) / SE (an honest SE gives SD 1) and the median
wall time of the run.  For effect 0 the detection figures are
false-positive rates (nominal: 2.5 % for "CI above 1", 5 % two-sided).

Usage::

    python bench/compare/power_interleave.py [--repetitions 24] [--pairs 16] [--values 2] [--seed N] [--keep DIR]

One run takes about 14 s with the defaults on the 2-vCPU VM (32 workers of
about 0.4 s plus the loop calibration; 9.6-20.6 s measured), a round of 6
runs about 90 s: R = 24 took 35 minutes (144 runs in 2105 s).  With R = 24 the binomial SE of a detection
rate near 50 % is 10 points: the figures separate "rarely", "about half"
and "nearly always", not 60 % from 70 %.
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import shutil
import subprocess
import sys
from typing import NamedTuple, Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit import ROOT
from kit.results import Parser, print_table
from kit.run import add_study_options, perf_env, repeat, run_retried, stdout_of, uptime, work_folder
from kit.stats import Claim, claims_cells, fpr_cell, from_comparison, half_width
from kit.tools import shuffled_rounds
from power_compare import in_process_ratios

from perf.analysis import compare
from perf.analysis.benchmarks import compare_benchmarks
from perf.analysis.statistics import mean, median
from perf.storage.files import load_benchmark

STATEMENT = "for _ in range(n): pass"
BASE_N = 10_000
EFFECTS = (0.0, 0.02, 0.05)
INTERLEAVED = "interleaved"
BLOCK = "block order"
DESIGNS = (INTERLEAVED, BLOCK)
SIDE_A, SIDE_B = "pyA", "pyB"
#: analysis labels
PAIRED_LABEL = "compare_benchmarks"
UNPAIRED_LABEL = "same data, unpaired Welch (ref.)"

PROBE_SETUP = (
    "import os, sys, perf; open({path!r}, 'a').write(os.path.basename(sys.executable) + ' ' + perf.__file__ + '\\n')"
)


# --- the two interpreters --------------------------------------------------------


def work(base: int, effect: float) -> dict[str, int]:
    return {SIDE_A: base, SIDE_B: round(base * (1 + effect))}


def setup_code(base: int, effect: float) -> str:
    return f"import os, sys; n = {work(base, effect)!r}[os.path.basename(sys.executable)]"


def make_interpreters(folder: str, python: str) -> dict[str, str]:
    """Symlinks pyA and pyB to the real executable of *python*."""
    real = os.path.realpath(python)
    paths = {}
    for side in (SIDE_A, SIDE_B):
        path = os.path.join(folder, side)
        os.symlink(real, path)
        paths[side] = path
    return paths


def check_interpreters(paths: dict[str, str], folder: str) -> None:
    """Both symlinks keep their name in sys.executable, in the parent and in
    perf's workers, and the workers import perf from ROOT."""
    for side, path in paths.items():
        output = stdout_of([path, "-c", "import os, sys; print(os.path.basename(sys.executable), sys.prefix)"]).split()
        if output[0] != side:
            raise SystemExit(f"{path}: sys.executable is {output[0]!r}, not {side!r}: the design does not apply")
        print(f"  {path} -> {os.path.realpath(path)}: sys.executable basename {output[0]}, sys.prefix {output[1]}")
    log = os.path.join(folder, "probe.log")
    command = [
        paths[SIDE_B],
        *("-m", "perf", "timeit", "-q", "--compare-to", paths[SIDE_A], "-p", "2", "-n", "1", "-l", "1"),
        *("-o", os.path.join(folder, "probe.json"), "--setup", PROBE_SETUP.format(path=log), "pass"),
    ]
    subprocess.run(command, check=True, cwd=ROOT, env=perf_env(inherit_path=True), stdout=subprocess.DEVNULL)
    with open(log) as file:
        seen = sorted(set(file.read().split("\n")) - {""})
    print(f"  perf workers of a probe run (basename of sys.executable, perf.__file__): {'; '.join(seen)}")
    expected = os.path.join(ROOT, "perf", "__init__.py")
    if {line.split()[1] for line in seen} != {expected} or {line.split()[0] for line in seen} != {SIDE_A, SIDE_B}:
        raise SystemExit(f"the workers do not all import {expected} as pyA and pyB")


# --- one run -------------------------------------------------------------------


def perf_command(
    args: argparse.Namespace, paths: dict[str, str], side: str, output: str, *, effect: float, compare_to: bool = False
) -> list[str]:
    command = [paths[side], "-m", "perf", "timeit", "-q"]
    if compare_to:
        command += ["--compare-to", paths[SIDE_A], "--python-names", "ref:changed"]  # X-ref.json, X-changed.json
    command += ["-p", str(args.pairs), "-n", str(args.values), "-o", output]
    return [*command, "--setup", setup_code(args.base, effect), STATEMENT]


def design_commands(
    args: argparse.Namespace, paths: dict[str, str], design: str, folder: str, *, effect: float, b_first: bool
) -> list[list[str]]:
    if design == INTERLEAVED:
        return [perf_command(args, paths, SIDE_B, os.path.join(folder, "X.json"), effect=effect, compare_to=True)]
    commands = [
        perf_command(args, paths, SIDE_A, os.path.join(folder, "A.json"), effect=effect),
        perf_command(args, paths, SIDE_B, os.path.join(folder, "B.json"), effect=effect),
    ]
    return commands[::-1] if b_first else commands


def result_files(design: str, folder: str) -> tuple[str, str]:
    names = ("X-ref", "X-changed") if design == INTERLEAVED else ("A", "B")
    return (os.path.join(folder, f"{names[0]}.json"), os.path.join(folder, f"{names[1]}.json"))


class Outcome(NamedTuple):
    design: str
    effect: float
    repetition: int
    wall: float
    load: float
    #: analysis label -> claim
    claims: dict[str, Claim]
    method: str
    processes: tuple[int, int]


def analyse(design: str, folder: str, *, effect: float, repetition: int, wall: float, load: float) -> Outcome:
    reference, changed = (load_benchmark(path) for path in result_files(design, folder))
    for benchmark, side in ((reference, SIDE_A), (changed, SIDE_B)):
        executable = str(benchmark.get_metadata().get("python_executable", ""))
        if os.path.basename(executable) != side:
            raise SystemExit(f"{folder}: expected {side} on this side, the file says {executable!r}")
    chosen = compare_benchmarks(reference, changed)
    claims = {PAIRED_LABEL: from_comparison(chosen)}
    if design == INTERLEAVED:
        welch = compare.compare_process_means(reference.get_process_means(), changed.get_process_means())
        claims[UNPAIRED_LABEL] = from_comparison(welch)
    processes = (len(reference.get_process_means()), len(changed.get_process_means()))
    return Outcome(design, effect, repetition, wall, load, claims, chosen.method, processes)


# --- summary --------------------------------------------------------------------


def effect_label(effect: float) -> str:
    return "0 % (A/A)" if effect == 0 else f"{100 * effect:g} %"


def summary_row(design: str, label: str, effect: float, claims: Sequence[Claim], walls: Sequence[float]) -> list[str]:
    total = len(claims)
    slower = sum(claim.verdict == compare.SLOWER for claim in claims)
    above = sum(claim.low > 1 for claim in claims)
    excludes = sum(claim.different for claim in claims)
    return [
        design,
        label,
        effect_label(effect),
        fpr_cell(slower, total),
        fpr_cell(above, total),
        fpr_cell(excludes, total),
        *claims_cells(claims),
        f"{median(walls):.1f} s",
    ]


def summarize(outcomes: Sequence[Outcome], effects: Sequence[float]) -> None:
    rows = []
    for design in DESIGNS:
        labels = [PAIRED_LABEL, UNPAIRED_LABEL] if design == INTERLEAVED else [PAIRED_LABEL]
        for label in labels:
            for effect in effects:
                chosen = [o for o in outcomes if o.design == design and o.effect == effect and label in o.claims]
                if chosen:
                    claims = [outcome.claims[label] for outcome in chosen]
                    rows.append(summary_row(design, label, effect, claims, [outcome.wall for outcome in chosen]))
    header = [
        "design",
        "analysis",
        "effect",
        "verdict slower (+- SE [95 % CI])",
        "CI above 1",
        "CI excludes 1 (2-sided)",
        "med. ratio",
        "med. CI half",
        "mean t",
        "SD t",
        "med. wall",
    ]
    print_table(header, rows, left=2)


def describe_designs(outcomes: Sequence[Outcome]) -> None:
    print("Runs per design (wall time = the perf commands of one repetition, analysis excluded):")
    for design in DESIGNS:
        chosen = [outcome for outcome in outcomes if outcome.design == design]
        if not chosen:
            continue
        walls = [outcome.wall for outcome in chosen]
        methods = {method: sum(o.method == method for o in chosen) for method in sorted({o.method for o in chosen})}
        sizes = sorted({outcome.processes for outcome in chosen})
        print(
            f"  {design}: {len(chosen)} runs; wall time median {median(walls):.1f} s, mean {mean(walls):.1f} s "
            f"(range {min(walls):.1f}..{max(walls):.1f}); compare_benchmarks method: "
            + ", ".join(f"{method} x{count}" for method, count in methods.items())
            + f"; processes per side {', '.join(f'{a}+{b}' for a, b in sizes)}"
        )
    loads = [outcome.load for outcome in outcomes]
    print(
        f"  1-minute load average at the end of each run: median {median(loads):.2f} "
        f"(range {min(loads):.2f}..{max(loads):.2f})"
    )


def paired_gain(outcomes: Sequence[Outcome]) -> None:
    """Median ratio of the CI half-widths, Welch / paired, on the same runs."""
    ratios = []
    for outcome in outcomes:
        if outcome.design != INTERLEAVED or UNPAIRED_LABEL not in outcome.claims:
            continue
        paired, welch = half_width(outcome.claims[PAIRED_LABEL]), half_width(outcome.claims[UNPAIRED_LABEL])
        if paired and welch:
            ratios.append(welch / paired)
    if ratios:
        print(
            f"Interleaved runs: CI half-width of the unpaired Welch test / of the paired test on the same process "
            f"means: median {median(ratios):.2f} (range {min(ratios):.2f}..{max(ratios):.2f}, {len(ratios)} runs)"
        )


# --- main -------------------------------------------------------------------------


def schedule(args: argparse.Namespace, effects: Sequence[float]) -> list[tuple[str, float, int, bool]]:
    """(design, effect, repetition, block order: B first) for R rounds of
    the cells in a shuffled order per round."""
    rng = random.Random(args.seed)
    tasks = []
    cells = [(design, effect) for design in DESIGNS for effect in effects]
    for repetition, order in enumerate(shuffled_rounds(cells, args.repetitions, rng)):
        for design, effect in order:
            b_first = design == BLOCK and rng.random() < 0.5
            tasks.append((design, effect, repetition, b_first))
    return tasks


def cpu_times() -> list[int] | None:
    """The aggregate "cpu" line of /proc/stat (clock ticks), or None."""
    try:
        with open("/proc/stat") as file:
            return [int(field) for field in file.readline().split()[1:]]
    except (OSError, ValueError):
        return None


def cpu_usage(before: list[int] | None, after: list[int] | None) -> str:
    """Busy and steal shares of all CPUs between two /proc/stat samples."""
    if not before or not after:
        return "n/a"
    delta = [b - a for a, b in zip(before, after)]
    total = sum(delta[:8]) or 1
    idle = delta[3] + delta[4]
    steal = delta[7] if len(delta) > 7 else 0
    return (
        f"busy {100 * (total - idle - steal) / total:.1f} % of {os.cpu_count()} CPUs, "
        f"steal {100 * steal / total:.1f} % (this script and its workers keep about one CPU busy)"
    )


def check_work(args: argparse.Namespace, effects: Sequence[float], when: str) -> list[float]:
    statements = [f"n = {work(args.base, effect)[SIDE_B]}\n{STATEMENT}" for effect in effects]
    statements.insert(0, f"n = {args.base}\n{STATEMENT}")
    ratios = in_process_ratios(args.python, statements, args.check_rounds)
    cells = ", ".join(f"{effect_label(effect)}: x{ratio:.4f}" for effect, ratio in zip(effects, ratios))
    print(
        f"In-process work ratio B/A ({when}; {args.check_rounds} rounds alternating the statements in one process, "
        f"timeit number=20, median of the per-round ratios): {cells}"
    )
    return ratios


def print_setup(args: argparse.Namespace, paths: dict[str, str], folder: str, effects: Sequence[float]) -> None:
    print(f"Power at equal wall time: interleaved pairs against block order; seed {args.seed}")
    print(f"Start: {uptime()}")
    print(
        f"R = {args.repetitions} rounds of {len(DESIGNS) * len(effects)} cells (design x effect), shuffled per round; "
        f"P = {args.pairs} processes per side, V = {args.values} values per process; statement {STATEMENT!r}, "
        f"n = {args.base} for pyA"
    )
    print(f"Commands (in {ROOT}, with PYTHONPATH={ROOT}; one folder per run under {folder}):")
    for design in DESIGNS:
        for command in design_commands(args, paths, design, "RUN", effect=effects[-1], b_first=False):
            print(f"  {design}: {shlex.join(command)}")
    print("  (block order: the two commands in a random order per run; the setup's pyB entry per effect: ")
    print(
        "   " + ", ".join(f"{effect_label(effect)}: n = {work(args.base, effect)[SIDE_B]}" for effect in effects) + ")"
    )


def run_all(args: argparse.Namespace, paths: dict[str, str], folder: str, effects: Sequence[float]) -> list[Outcome]:
    def run_one(task: tuple[str, float, int, bool]) -> tuple[Outcome, str] | None:
        design, effect, repetition, b_first = task
        name = f"{design.replace(' ', '-')}-{round(100 * effect)}pct-{repetition:03d}"
        run_folder = os.path.join(folder, name)
        commands = design_commands(args, paths, design, run_folder, effect=effect, b_first=b_first)
        wall = run_retried(commands, os.path.join(run_folder, "perf.log"), args.attempts, folder=run_folder)
        if wall is None:
            return None
        outcome = analyse(design, run_folder, effect=effect, repetition=repetition, wall=wall, load=os.getloadavg()[0])
        claim = outcome.claims[PAIRED_LABEL]
        order = " (B first)" if b_first else " (A first)" if design == BLOCK else ""
        return outcome, (
            f"{name:25} {wall:5.1f} s  {outcome.method:6} {claim.ratio:.4f} [{claim.low:.4f} .. {claim.high:.4f}] "
            f"{claim.verdict:13} load {outcome.load:4.2f}{order}"
        )

    return repeat(schedule(args, effects), run_one, args.pause, "runs")


def parse_args() -> argparse.Namespace:
    parser = Parser(__doc__)
    parser.add_argument("--repetitions", type=int, default=24, help="R, runs per (design, effect) (default: 24)")
    parser.add_argument("--pairs", type=int, default=16, help="P, processes per side (default: 16)")
    parser.add_argument("--values", type=int, default=2, help="V, values per process (default: 2)")
    add_study_options(parser, python="the real Python behind pyA and pyB")
    parser.add_argument(
        "--effects", default=",".join(f"{e:g}" for e in EFFECTS), help="work effects of B (default: 0,0.02,0.05)"
    )
    parser.add_argument("--base", type=int, default=BASE_N, help=f"n of pyA (default: {BASE_N})")
    parser.add_argument("--check-rounds", type=int, default=200, help="rounds of the in-process work check")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    effects = sorted({float(effect) for effect in args.effects.split(",")})
    with work_folder(args.keep, "power_interleave_") as folder:
        bin_folder = os.path.join(folder, "bin")
        shutil.rmtree(bin_folder, ignore_errors=True)
        os.makedirs(bin_folder)
        paths = make_interpreters(bin_folder, args.python)
        print_setup(args, paths, folder, effects)
        print("Interpreters:")
        check_interpreters(paths, bin_folder)
        before = check_work(args, effects, "before the runs")
        ticks = cpu_times()
        outcomes = run_all(args, paths, folder, effects)
        print(f"CPU use during the runs (/proc/stat): {cpu_usage(ticks, cpu_times())}")
        after = check_work(args, effects, "after the runs")
        print(f"End: {uptime()}")
        if outcomes:
            print()
            describe_designs(outcomes)
            paired_gain(outcomes)
            print()
            summarize(outcomes, effects)
            print()
            cells = ", ".join(
                f"{effect_label(effect)} x{(a + b) / 2:.4f}" for effect, a, b in zip(effects, before, after)
            )
            print(f"Real work ratio B/A (in-process, mean of the two checks): {cells}")
            print(
                "verdict slower = the whole 95 % CI of the ratio above 1.01 (margin 1 %); CI above 1 = its low end "
                "above 1; CI excludes 1 = verdict slower, faster or small change. For effect 0 these are false-"
                "positive rates (nominal 2.5 % one-sided, 5 % two-sided). SE = sqrt(p(1-p)/R), binomial; [..] = "
                "exact (Clopper-Pearson) 95 % interval. med. CI half = median of sqrt(high/low) - 1. t = log(ratio) "
                "/ SE of the method. The machine is shared: other jobs may have run at the same time (load averages "
                "above)."
            )


if __name__ == "__main__":
    main()
