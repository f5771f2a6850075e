"""Start-up cost of one worker process: perf against pyperf.

Runs ``python -m TOOL timeit --worker --pipe FD -l 1 -n 1 -w 0 pass``, the
smallest possible worker (one value of one loop of ``pass``), many times,
alternating the tools, and prints the median and quartiles of the wall time
from spawn to exit.  That is the fixed cost every worker process adds:
interpreter start, imports, metadata collection, the clock probe, the JSON
result sent back through the pipe.

Usage::

    python bench/cost/worker_startup.py [--repeat 41] [--python PYTHON]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.results import Parser
from kit.run import perf_env
from kit.tools import alternate, has_module


def spawn(python: str, tool: str, env: dict[str, str]) -> float:
    read_fd, write_fd = os.pipe()
    command = [python, "-m", tool, "timeit", "--worker", "--pipe", str(write_fd)]
    command += ["-l", "1", "-n", "1", "-w", "0", "pass"]
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, pass_fds=(write_fd,), stdout=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    if process.wait() != 0 or not data:
        raise SystemExit(f"{tool} worker failed")
    return time.perf_counter() - start


def main() -> None:
    parser = Parser(__doc__)
    parser.add_argument("--repeat", type=int, default=41)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    env = perf_env()
    tools = ["perf", "pyperf"] if has_module(args.python, "pyperf", env) else ["perf"]
    times: dict[str, list[float]] = {tool: [] for tool in tools}
    for tool in tools:  # warm the file system caches
        spawn(args.python, tool, env)
    for index in range(args.repeat):
        for tool in alternate(tools, index):
            times[tool].append(spawn(args.python, tool, env))
    print(f"Python: {args.python}; {args.repeat} workers per tool, interleaved")
    for tool in tools:
        q1, median, q3 = statistics.quantiles(times[tool], n=4)
        quartiles = f"{q1 * 1e3:.1f} .. {q3 * 1e3:.1f}"
        print(f"{tool:7} worker start-up to exit: median {median * 1e3:6.1f} ms (quartiles {quartiles})")


if __name__ == "__main__":
    main()
