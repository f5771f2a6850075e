"""valgrind's cachegrind: the command line that counts a process, and its counts.

Counts are what a simulated CPU executed: instructions, and the misses of
caches whose geometry is pinned (:data:`CACHES`), so that two machines
give the same counts for the same build.  :func:`cachegrind_command`
wraps a command line (children traced: ``python -m perf command`` counts
the program it runs); each process writes its totals to the file named by
the environment variable :data:`OUTPUT_VARIABLE` plus ``.PID``, and
:func:`read_totals` adds up every file of a prefix.  :func:`per_loop`
turns the totals of two processes that differ only in their loops into
counts of one loop, with :func:`cycles_estimate`.

Must not: print, exit, or decide what to run.
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
from typing import Mapping

from perf.errors import UsageError, WorkerError
from perf.model.metadata import COUNT_KEYS

#: the simulated caches: size in bytes, associativity, line size (an
#: 8-way 32 KiB L1 for instructions and for data, a 16-way 8 MiB last level)
CACHES = {"I1": "32768,8,64", "D1": "32768,8,64", "LL": "8388608,16,64"}
#: the environment variable naming the prefix of a process's output file
OUTPUT_VARIABLE = "PERF_COUNT_FILE"
#: cachegrind's events, as its output file names them -> what perf adds them to
EVENTS = {
    "Ir": "instructions",
    "I1mr": "i1_misses",
    "D1mr": "d1_misses",
    "D1mw": "d1_misses",
    "ILmr": "ll_misses",
    "DLmr": "ll_misses",
    "DLmw": "ll_misses",
}
#: the estimate's cost of an L1 miss and of a last-level miss, in cycles
L1_MISS_CYCLES = 10
LL_MISS_CYCLES = 100
INSTALL_HINT = "install it (apt-get install valgrind, or dnf install valgrind)"


def cachegrind_command(command: list[str]) -> list[str]:
    """*command* run under cachegrind with the pinned caches."""
    caches = [f"--{name}={geometry}" for name, geometry in CACHES.items()]
    return [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=yes",
        *caches,
        "--trace-children=yes",
        f"--cachegrind-out-file=%q{{{OUTPUT_VARIABLE}}}.%p",
        "-q",
        *command,
    ]


def valgrind_version(option: str = "--metric instructions") -> str:
    """valgrind's version (``3.19.0``).  UsageError, naming the *option*
    that asked for counts, when it cannot run."""
    path = shutil.which("valgrind")
    if path is None:
        raise UsageError(f"{option} counts under valgrind, which is not installed: {INSTALL_HINT}")
    try:
        found = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        raise UsageError(f"{option}: valgrind does not run ({exc}): {INSTALL_HINT}") from None
    return found.stdout.strip().rpartition("-")[2]


def counter_source(version: str) -> str:
    """What counted, to tell counts that may be compared: the tool, its
    version and the cache geometry."""
    return "; ".join([f"cachegrind {version}", *(f"{name} {geometry}" for name, geometry in CACHES.items())])


@functools.cache
def installed_source() -> str:
    """The :func:`counter_source` of the valgrind installed here (asked once)."""
    return counter_source(valgrind_version())


def read_totals(prefix: str) -> dict[str, int]:
    """The totals of the processes that wrote ``PREFIX.PID`` files, added
    up by perf's names.  WorkerError when there is none or one is broken."""
    totals = dict.fromkeys(COUNT_KEYS[:-1], 0)
    paths = glob.glob(glob.escape(prefix) + ".*")
    if not paths:
        raise WorkerError("cachegrind wrote no counts (did the worker start under valgrind?)")
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as file:
            lines = file.read().splitlines()
        events = next((line.split()[1:] for line in lines if line.startswith("events:")), None)
        summary = next((line.split()[1:] for line in lines if line.startswith("summary:")), None)
        if events is None or summary is None or len(events) != len(summary):
            raise WorkerError(f"cachegrind's output {os.path.basename(path)} has no summary: was it stopped?")
        for event, total in zip(events, summary):
            if event in EVENTS:
                totals[EVENTS[event]] += int(total)
    return totals


def cycles_estimate(counts: Mapping[str, float]) -> float:
    """Estimated cycles: instructions + 10 x L1 misses + 100 x last-level
    misses (KCachegrind's estimate, without branches)."""
    l1_misses = counts["i1_misses"] + counts["d1_misses"]
    return counts["instructions"] + L1_MISS_CYCLES * l1_misses + LL_MISS_CYCLES * counts["ll_misses"]


def per_loop(low: Mapping[str, int], high: Mapping[str, int], loops: int) -> dict[str, float]:
    """The counts of one loop: the totals of a process that ran *loops*
    more loops than another (*high* and *low*), their difference divided
    by *loops*; start-up, imports, setup and the first call cancel.  A
    difference below zero (a few misses more in the shorter process) is
    noise around zero: 0."""
    counts = {key: max(high[key] - low[key], 0) / loops for key in COUNT_KEYS[:-1]}
    counts["cycles_estimate"] = cycles_estimate(counts)
    return counts
