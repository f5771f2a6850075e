"""Time of the analysis commands on a big suite, perf next to pyperf.

Usage: python bench/cost/analysis_speed.py [--benchmarks 200] [--processes 20] [-n 15]
       [--command NAME ...] [--no-site]

Writes two suites built like ``bench/cost/load_time.py``'s (B benchmarks x P worker
processes x 3 values, one warmup per run, a loop calibration run per
benchmark, per-run and suite metadata as a real run has: 1.35 MB each for
200 x 20): ``ref.json`` and ``changed.json`` (other figures, same names).
Then times whole commands in fresh interpreters, as a user pays them
(interpreter start-up, imports, loading, analysis, output to /dev/null):

* ``python -m perf compare_to --table ref.json changed.json``
* ``python -m perf stats ref.json``
* ``python -m perf show ref.json``
* ``python -m perf hist ref.json``

and the same with ``-m pyperf``.  Each repetition runs every command with
both tools, interleaved (perf then pyperf, then pyperf then perf in the next
repetition), so a disturbance of the shared machine hits both alike; the
figures are medians of N repetitions.  One run of each command comes first,
untimed: it fills the page cache and writes perf's ``.pyc`` files
(``PYTHONDONTWRITEBYTECODE`` is dropped from the children's environment, as
pyperf's installed package has its ``.pyc`` files too).

The table gives wall-clock medians, perf / pyperf, and whether the target
(perf takes at most a quarter of pyperf's time) is met; the last column is
the same ratio on CPU time (user + system of the child, ``os.wait4``), which
the noise of a shared machine disturbs less.  A command that fails (exit
status != 0) shows ``n/a``: its stderr's last line is printed below the
table.  Below the table: what every command pays before it reads a file
(``python -c pass``, and ``python -m perf show`` of a one-benchmark file).

``--no-site`` runs the children with ``python -S`` and the site-packages
folders on ``PYTHONPATH``: the ``.pth`` files of the installation do not
run.  (On the sandboxes this project is developed on, a ``.pth`` file
imports certifi, pathlib, zipfile... at every start-up: 30 ms more for
both tools.)
"""

from __future__ import annotations

import os
import site
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.results import Parser
from kit.run import CommandFailed, Usage, perf_env, timed
from kit.synthetic import build_suite

TOOLS = ("perf", "pyperf")
TARGET_RATIO = 0.25


def child_env(no_site: bool = False) -> dict[str, str]:
    """perf from this tree (with *no_site*, the site-packages too), .pyc files written."""
    paths = site.getsitepackages() if no_site else []
    return dict(perf_env(*paths, bytecode=True), COLUMNS="80", LINES="25")


def main() -> None:
    parser = Parser(__doc__)
    parser.add_argument("--benchmarks", type=int, default=200)
    parser.add_argument("--processes", type=int, default=20)
    parser.add_argument("-n", type=int, default=15, help="repetitions (default: 15)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--command", action="append", help="only this command (repeatable): compare_to, stats...")
    parser.add_argument("--no-site", action="store_true", help="run python -S (no .pth file at start-up)")
    args = parser.parse_args()
    env = child_env(args.no_site)
    python = [args.python, "-S"] if args.no_site else [args.python]
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "ref.json")
        changed = os.path.join(tmp, "changed.json")
        small = os.path.join(tmp, "small.json")
        build_suite(args.benchmarks, args.processes).dump(ref)
        build_suite(args.benchmarks, args.processes, seed=43).dump(changed)
        build_suite(1, 3).dump(small)
        size = os.path.getsize(ref)
        print(
            f"{args.benchmarks} benchmarks x {args.processes} processes x 3 values: "
            f"{size / 1e6:.2f} MB per file; medians of {args.n} interleaved repetitions"
        )
        commands = {
            "compare_to --table": ["compare_to", "--table", ref, changed],
            "stats": ["stats", ref],
            "show": ["show", ref],
            "hist": ["hist", ref],
        }
        if args.command:
            commands = {name: argv for name, argv in commands.items() if name.split()[0] in args.command}
        cases = [(name, tool) for name in commands for tool in TOOLS]
        argvs = {(name, tool): [*python, "-m", tool, *commands[name]] for name, tool in cases}
        errors: dict[tuple[str, str], str] = {}
        for case in cases:  # untimed: page cache, .pyc files, and does it work?
            try:
                timed(argvs[case], env)
            except CommandFailed as exc:
                errors[case] = str(exc)
        figures: dict[tuple[str, str], list[Usage]] = {case: [] for case in cases}
        for repetition in range(args.n):
            for name in commands:
                for tool in TOOLS if repetition % 2 == 0 else TOOLS[::-1]:
                    if (name, tool) not in errors:
                        figures[name, tool].append(timed(argvs[name, tool], env))
        start_up = statistics.median(timed([*python, "-c", "pass"], env)[0] for _ in range(args.n))
        show_small = statistics.median(timed([*python, "-m", "perf", "show", small], env)[0] for _ in range(args.n))

    def median(case: tuple[str, str], index: int) -> float | None:
        return None if case in errors else statistics.median(pair[index] for pair in figures[case])

    print()
    print(f"{'command':20} {'perf':>9} {'pyperf':>9} {'ratio':>6}  target <= {TARGET_RATIO:.2f}  {'cpu ratio':>9}")
    for name in commands:
        walls = [median((name, tool), 0) for tool in TOOLS]
        cpus = [median((name, tool), 1) for tool in TOOLS]
        texts = [f"{wall * 1000:6.0f} ms" if wall is not None else "n/a" for wall in walls]
        if walls[0] is not None and walls[1]:
            ratio = walls[0] / walls[1]
            met = "y" if ratio <= TARGET_RATIO else "n"
            ratio_text = f"{ratio:.2f}"
            cpu_ratio = f"{cpus[0] / cpus[1]:.2f}" if cpus[0] is not None and cpus[1] else "n/a"
        else:
            ratio_text = met = cpu_ratio = "n/a"
        print(f"{name:20} {texts[0]:>9} {texts[1]:>9} {ratio_text:>6}  {met:^14}  {cpu_ratio:>9}")
    print(
        f"(python -c pass: {start_up * 1000:.0f} ms; "
        f"python -m perf show of a one-benchmark file: {show_small * 1000:.0f} ms)"
    )
    for (name, tool), error in errors.items():
        print(f"{tool} {name}: failed, {error}")


if __name__ == "__main__":
    main()
