"""What the busy-machine evidence costs a worker (issue 14: at most 3 %).

Each worker records its CPU share and context switches around every sample
and times a small reference workload before and after its values
(perf.measure.child.interference.Witness).  This script runs the worker's own
code (``perf.measure.child.worker.run_task``) on a timeit task, in this process,
alternately with the witness and with a disabled one, and prints the
median wall time of each and their ratio; then the same for the smallest
worker (one value of one loop), whose time is nearly all fixed costs.

Usage::

    python bench/cost/witness_cost.py [--repeat 21]
"""

from __future__ import annotations

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.results import Parser
from kit.tools import alternate


def arguments(argv: list[str]):
    from perf.cli.main import ArgumentParser
    from perf.measure.arguments import add_runner_arguments
    from perf.measure.options import check_options
    from perf.measure.values import DEFAULT_BUDGET, GivenBudget

    parser = ArgumentParser(prog="bench")
    add_runner_arguments(parser, DEFAULT_BUDGET, 1, 0, 0.1)
    return check_options(vars(parser.parse_args(argv)), "script", GivenBudget(), jit=False)


def timed(task_args, witness_on: bool) -> float:
    from perf.measure.child import interference, worker
    from perf.measure.child.tasks import Task, TimeitCode

    code = TimeitCode("sorted(data)", "data = list(range(100, 0, -1))")
    task = Task("sorted", code.time_function(), overhead_function=code.overhead_function())
    worker.Witness = interference.Witness if witness_on else (lambda enabled=True: interference.Witness(False))
    start = time.perf_counter()
    worker.run_task(task, task_args)
    return time.perf_counter() - start


def compare(label: str, argv: list[str], repeat: int) -> None:
    task_args = arguments(argv)
    times: dict[bool, list[float]] = {True: [], False: []}
    timed(task_args, True)  # warm the imports and caches
    for index in range(repeat):
        for witness_on in alternate((True, False), index):
            times[witness_on].append(timed(task_args, witness_on))
    with_witness, without = statistics.median(times[True]), statistics.median(times[False])
    ratios = [a / b for a, b in zip(times[True], times[False])]
    print(
        f"{label}: with witness {with_witness * 1e3:.1f} ms, without {without * 1e3:.1f} ms; "
        f"median of paired ratios {statistics.median(ratios):.4f} "
        f"(difference of medians {(with_witness - without) * 1e3:+.2f} ms)"
    )


def main() -> None:
    parser = Parser(__doc__)
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    compare("default worker (calibration, 1 warmup, 3 values of 0.1 s)", ["--worker", "-l", "0"], args.repeat)
    compare("--fast worker (1 warmup, 2 values)", ["--worker", "-l", "0", "-n", "2"], args.repeat)
    compare("smallest worker (1 value of 1 loop)", ["--worker", "-l", "1", "-n", "1", "-w", "0"], args.repeat * 5)


if __name__ == "__main__":
    main()
