"""Peak memory of the analysis commands on a big result file, perf next to pyperf.

Usage: python bench/cost/analysis_memory.py [--size 50] [--benchmarks 200] [--command NAME ...]
       [--no-tracemalloc]

Writes a result file of about SIZE MB in a temporary folder (the suite of
``bench/cost/load_time.py``, ``kit.synthetic.build_suite``: B benchmarks, each with a loop calibration run and
as many worker processes x 3 values as it takes, per-run and suite metadata
as a real run has), then runs each command on it with perf and with pyperf:

* ``show FILE``, ``stats FILE``, ``hist FILE`` and ``compare_to FILE FILE``
  (the file against itself: two copies of the suite are in memory).

"Peak memory" is measured two ways, and both are printed:

``RSS``
    the maximum resident set size of the command's process (``os.wait4``,
    ``ru_maxrss``), minus that of the same command on a one-benchmark file:
    what the data costs beyond the interpreter and the imported modules.
    It counts what the memory allocator keeps from the kernel, fragmentation
    included: what the machine has to provide.  (This script stays small:
    Linux starts a child's maximum RSS at its parent's RSS, so the files are
    written by another process.)
``tracemalloc``
    the peak of the memory Python objects take (``tracemalloc``, started
    after the imports), in a second process running the same command.  It
    leaves out the allocator's overhead, so it is lower; the process runs a
    few times slower.

Each figure is also given as a multiple of the file size (the target: perf
under 3x).  A command that fails shows ``n/a``.  Memory figures do not
depend on the machine's load: one run of each is enough.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit import BENCH
from kit.results import Parser
from kit.run import CommandFailed, perf_env, timed

TOOLS = ("perf", "pyperf")
TARGET_RATIO = 3.0

#: run one command with tracemalloc started after the imports; prints the peak
TRACEMALLOC_CODE = """
import contextlib, os, sys, tracemalloc
tool, argv = sys.argv[1], sys.argv[2:]
if tool == "perf":
    import importlib
    from perf.cli.main import main
    importlib.import_module("perf.cli." + argv[0])
    run = lambda: main(argv)
else:
    import pyperf.__main__
    sys.argv = ["pyperf", *argv]
    run = pyperf.__main__.main
with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
    tracemalloc.start()
    try:
        status = run()
    except SystemExit as exc:
        status = exc.code
    peak = tracemalloc.get_traced_memory()[1]
if status:
    sys.exit(status)
print(peak)
"""


def tracemalloc_peak(python: str, tool: str, argv: list[str], env: dict[str, str]) -> int:
    result = subprocess.run([python, "-c", TRACEMALLOC_CODE, tool, *argv], capture_output=True, env=env, check=False)
    if result.returncode:
        lines = result.stderr.decode(errors="replace").strip().splitlines() or ["(no stderr)"]
        raise CommandFailed(lines[-1])
    return int(result.stdout)


#: writes a suite of about SIZE MB to PATH: the processes per benchmark scaled
#: from the size of a 20-process suite
WRITE_CODE = """
import os, sys
from kit.synthetic import build_suite
path, size, benchmarks = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
processes = 20
for _ in range(3):
    build_suite(benchmarks, processes).dump(path, replace=True)
    ratio = size * 1e6 / os.path.getsize(path)
    if abs(ratio - 1) < 0.02:
        break
    processes = max(1, round(processes * ratio))
"""


def write_file(path: str, size_mb: float, benchmarks: int) -> None:
    """Write the file in another process: a child's maximum RSS starts at
    its parent's RSS (Linux counts the parent's pages until exec)."""
    env = perf_env(BENCH)
    subprocess.run([sys.executable, "-c", WRITE_CODE, path, str(size_mb), str(benchmarks)], env=env, check=True)


def main() -> None:
    parser = Parser(__doc__)
    parser.add_argument("--size", type=float, default=50.0, help="file size in MB (default: 50)")
    parser.add_argument("--benchmarks", type=int, default=200)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--command", action="append", help="only this command (repeatable): show, stats...")
    parser.add_argument("--no-tracemalloc", action="store_true", help="measure the RSS only (faster)")
    args = parser.parse_args()
    env = dict(perf_env(bytecode=True), COLUMNS="80", LINES="25")
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "big.json")
        small = os.path.join(tmp, "small.json")
        write_file(big, args.size, args.benchmarks)
        write_file(small, 0.001, 1)
        size = os.path.getsize(big)
        print(f"file: {size / 1e6:.1f} MB ({args.benchmarks} benchmarks); memory in MB (x file size)")
        commands = {
            "show": ["show", "{}"],
            "stats": ["stats", "{}"],
            "hist": ["hist", "{}"],
            "compare_to": ["compare_to", "{}", "{}"],
        }
        if args.command:
            commands = {name: argv for name, argv in commands.items() if name in args.command}
        print()
        print(f"{'command':12} {'tool':7} {'max RSS':>9} {'baseline':>9} {'RSS - baseline':>17} {'tracemalloc':>17}")
        errors = []
        for name, template in commands.items():
            for tool in TOOLS:
                texts = []
                try:
                    argv = [arg.format(big) for arg in template]
                    peak = timed([args.python, "-m", tool, *argv], env).max_rss
                    baseline = timed([args.python, "-m", tool, *(arg.format(small) for arg in template)], env).max_rss
                    data = peak - baseline
                    texts = [f"{peak / 1e6:7.1f}", f"{baseline / 1e6:7.1f}", f"{data / 1e6:7.1f} ({data / size:4.2f}x)"]
                    if args.no_tracemalloc:
                        texts.append("-")
                    else:
                        traced = tracemalloc_peak(args.python, tool, argv, env)
                        texts.append(f"{traced / 1e6:7.1f} ({traced / size:4.2f}x)")
                except CommandFailed as exc:
                    errors.append(f"{tool} {name}: failed, {exc}")
                    texts += ["n/a"] * (4 - len(texts))
                print(f"{name:12} {tool:7} {texts[0]:>9} {texts[1]:>9} {texts[2]:>17} {texts[3]:>17}", flush=True)
        print(f"\ntarget: perf's peak memory under {TARGET_RATIO:.0f}x the file size")
        for error in errors:
            print(error)


if __name__ == "__main__":
    main()
