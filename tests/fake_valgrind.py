"""A fake ``valgrind`` for tests: runs the command, and writes cachegrind's
output file with totals that grow by exact amounts per loop.

``valgrind --version`` prints ``valgrind-3.99.0``.  Otherwise it runs the
command after ``-q`` and writes ``$PERF_COUNT_FILE.<pid>`` with, for a
worker run with ``--loops N`` (or a pytest batch worker whose spec's tests
have N loops in all): Ir = START + IR_PER_LOOP x N (plus
PYTHONHASHSEED x N when ``FAKE_VALGRIND_SEEDED`` is set), and misses of
1/100, 1/1000 and 1/10000 of the instructions of a loop.
"""

import json
import os
import subprocess
import sys

START = 5_000_000
IR_PER_LOOP = 1000
#: the file, beside the fake, with one line per process it counted
CALLS = "calls.log"
#: an install of it: copy this file as an executable named valgrind
SHEBANG = "#!" + sys.executable + "\n"


def main(argv):
    if argv == ["--version"]:
        print("valgrind-3.99.0")
        return 0
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), CALLS), "a") as log:
        log.write(" ".join(argv) + "\n")  # what was counted, for the tests
    command = argv[argv.index("-q") + 1 :]
    prefix = next(arg for arg in argv if arg.startswith("--cachegrind-out-file=")).partition("=")[2]
    status = subprocess.call(command, close_fds=False)  # the worker's pipe
    loops = int(command[command.index("--loops") + 1]) if "--loops" in command else 0
    for arg in command:  # a batch worker of the pytest plugin: the loops of its spec's tests
        if arg.startswith("--perf-worker="):
            with open(arg.partition("=")[2]) as file:
                loops = sum(json.load(file)["loops"].values())
    per_loop = IR_PER_LOOP + (
        int(os.environ.get("PYTHONHASHSEED", "0")) if os.environ.get("FAKE_VALGRIND_SEEDED") else 0
    )
    ir = START + per_loop * loops
    path = prefix.replace("%q{PERF_COUNT_FILE}", os.environ["PERF_COUNT_FILE"]).replace("%p", str(os.getpid()))
    with open(path, "w") as file:
        file.write("desc: fake\ncmd: fake\nevents: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n")
        file.write(f"summary: {ir} {ir // 100} 0 0 {ir // 1000} {ir // 10000} 0 0 0\n")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
