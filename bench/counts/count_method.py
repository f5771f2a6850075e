"""How to count only the benchmark under valgrind: the method study of issue 31.

A statement runs N, 2N and 4N loops of ``timeit.Timer(stmt, setup)`` in
three processes under cachegrind, with the simulated caches pinned (I1 and
D1 32 KiB 8-way, LL 8 MiB 16-way, 64-byte lines).  Start-up, imports and
setup are the same in the three and cancel in the differences: the count
per loop is ``(C(2N) - C(N)) / N``.  The script prints, per statement:

* the per-loop instructions and misses of (N, 2N) and of (2N, 4N), and
  their relative difference (the method holds when it is within 0.01 %);
* the same with a load beside it (``--load``), against without;
* with ``--seeds``, the per-loop counts across hash seeds (ASLR off with
  ``setarch -R``), and across runs with a random seed and ASLR on;
* valgrind's slowdown: the wall time of the 4N process against the same
  process without valgrind.

Usage::

    python bench/counts/count_method.py [--loops N] [--load mixed --seed 7] [--seeds 5]
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.load import Load
from kit.results import Parser, print_table

#: the pinned cache geometry: size, associativity, line size
CACHES = ("--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64")
#: instructions and misses read from cachegrind's summary
EVENTS = ("Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw")

DRIVER = "import sys, timeit; timeit.Timer(sys.argv[2], sys.argv[1]).timeit(int(sys.argv[3]))"

#: (name, setup, statement, loops): the statements of the issue
STATEMENTS = (
    ("sorted", "pass", "sorted(range(1000))", 1000),
    ("dict", "keys = [str(i) for i in range(200)]", "{key: 1 for key in keys}", 1000),
    ("sum in order", "values = list(range(1_000_000))", "sum(values)", 2),
    (
        "sum shuffled",
        "import random; values = list(range(1_000_000)); random.Random(1).shuffle(values)",
        "sum(values)",
        2,
    ),
)


def count(setup: str, stmt: str, loops: int, env: dict[str, str], aslr: bool = True) -> tuple[dict[str, int], float]:
    """The totals of one process under cachegrind, and its wall time."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "cachegrind.out")
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", *CACHES, f"--cachegrind-out-file={out}"]
        command += [sys.executable, "-c", DRIVER, setup, stmt, str(loops)]
        if not aslr:
            command = ["setarch", platform.machine(), "-R", *command]
        start = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        wall = time.perf_counter() - start
        with open(out) as file:
            lines = file.read().splitlines()
    names = next(line for line in lines if line.startswith("events:")).split()[1:]
    totals = next(line for line in lines if line.startswith("summary:")).split()[1:]
    return dict(zip(names, map(int, totals))), wall


def per_loop(low: dict[str, int], high: dict[str, int], loops: int) -> dict[str, float]:
    """The counts of one loop: the difference of two processes over their loop difference."""
    found = {event: (high[event] - low[event]) / loops for event in EVENTS}
    found["D1m"] = found["D1mr"] + found["D1mw"]
    found["LLm"] = found["DLmr"] + found["DLmw"] + found["ILmr"]
    # an estimate of cycles: instructions + 10 x L1 misses + 100 x LL misses (issue 31's example formula)
    found["cycles"] = found["Ir"] + 10 * (found["I1mr"] + found["D1m"]) + 100 * found["LLm"]
    return found


def native_wall(setup: str, stmt: str, loops: int, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", DRIVER, setup, stmt, str(loops)], env=env, check=True)
    return time.perf_counter() - start


def study(setup: str, stmt: str, loops: int, env: dict[str, str], aslr: bool = True) -> tuple[list[str], float]:
    """Per-loop counts of (N, 2N) and (2N, 4N), their difference, and valgrind's slowdown."""
    (one, _), (two, _), (four, wall) = (count(setup, stmt, loops * k, env, aslr) for k in (1, 2, 4))
    first, second = per_loop(one, two, loops), per_loop(two, four, 2 * loops)
    drift = abs(second["Ir"] / first["Ir"] - 1) * 100
    slowdown = wall / native_wall(setup, stmt, 4 * loops, env)
    cells = [f"{first['Ir']:,.1f}", f"{second['Ir']:,.1f}", f"{drift:.4f} %", f"{first['D1m']:,.1f}"]
    cells += [f"{first['LLm']:,.1f}", f"{first['cycles']:,.0f}", f"{slowdown:.0f}x"]
    return cells, first["Ir"]


HEADER = ["statement", "load", "instr/loop N..2N", "2N..4N", "differ", "D1 miss/loop", "LL miss/loop"]
HEADER += ["cycles est.", "valgrind"]


def main() -> None:
    parser = Parser(__doc__, output=True)
    parser.add_argument("--load", default="mixed", choices=("mixed", "cpu", "memory", "none"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--seeds", type=int, default=5, help="hash seeds of the dict statement (default: 5)")
    parser.add_argument("--only", help="only the statements whose name contains this")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (apt-get install valgrind)")
    env = dict(os.environ, PYTHONHASHSEED="0")
    rows = []
    for name, setup, stmt, loops in STATEMENTS:
        if args.only and args.only not in name:
            continue
        for load in ("none", args.load):
            with tempfile.TemporaryDirectory() as folder, Load(load, args.seed, os.path.join(folder, "load.jsonl")):
                cells, _ = study(setup, stmt, loops, env)
            rows.append([name, load, *cells])
    print("Per-loop counts by differencing N, 2N and 4N loops (PYTHONHASHSEED=0, ASLR on):")
    print_table(HEADER, rows)
    if not args.seeds:
        return
    _name, setup, stmt, loops = STATEMENTS[1]
    seeded = []
    for seed in range(args.seeds):
        cells, instructions = study(setup, stmt, loops, dict(os.environ, PYTHONHASHSEED=str(seed)), aslr=False)
        seeded.append((f"PYTHONHASHSEED={seed}, ASLR off", cells, instructions))
    for run in range(3):
        environ = {key: value for key, value in os.environ.items() if key != "PYTHONHASHSEED"}
        cells, instructions = study(setup, stmt, loops, environ)
        seeded.append((f"random seed, ASLR on ({run + 1})", cells, instructions))
    low, high = min(item[2] for item in seeded), max(item[2] for item in seeded)
    print(f"\nThe dict statement across hash seeds ({stmt}): spread {(high / low - 1) * 100:.3f} %")
    print_table(["run", *HEADER[2:]], [[label, *cells] for label, cells, _ in seeded])


if __name__ == "__main__":
    main()
