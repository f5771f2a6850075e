"""The seeded background load of the busy-machine experiments.

The load runs in a process of its own, in its own process group, so that
stopping it stops everything it started; it also stops on its own, at
the end of its current phase, when the script that started it is gone.
Standard library only, and a script too::

    python bench/kit/load.py KIND SEED LOG [--phases SHORTEST LONGEST] [--jobs-python PYTHON]

KIND:

* ``cpu``, ``memory``, ``mixed``: idle and busy phases, each of a length
  drawn between SHORTEST and LONGEST seconds (2-6 s by default) from the
  seed; a busy phase spins every CPU (``cpu``: two processes on a 2-CPU
  machine) or copies 64 MB buffers in one process (``memory``), or, with
  ``mixed``, one of the two drawn at random;
* ``jobs``: a real mix of other benchmark jobs: pyperformance benchmarks
  (pyperf, ``--fast``) run one after another, forever, by PYTHON (which
  has pyperformance installed);
* ``heavy``: two such streams at once, plus a memory-heavy job (sums of
  4-million-item lists, 32 MB of pointers, in shuffled order).

Each busy phase or job is a line of LOG: ``{"start": ..., "kind": ...,
"seconds": ...}``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time

KINDS = ("cpu", "memory", "mixed", "jobs", "heavy")
#: the default lengths of an idle or busy phase, seconds
PHASES = (2.0, 6.0)

SPIN = "import time\nend = time.monotonic() + float(__import__('sys').argv[1])\nwhile time.monotonic() < end: pass\n"
STREAM = (
    "import time, sys\nend = time.monotonic() + float(sys.argv[1])\n"
    "a = bytearray(64 << 20); b = bytearray(64 << 20)\n"
    "while time.monotonic() < end: b[:] = a; a[:] = b\n"
)
HEAVY_MEMORY = (
    "import random, time, sys\n"
    "end = time.monotonic() + float(sys.argv[1])\n"
    "items = list(range(4 << 20)); random.shuffle(items)\n"
    "while time.monotonic() < end: sum(items); items.reverse()\n"
)
#: pure-Python pyperformance benchmarks with no third-party dependency
JOBS = ("nbody", "richards", "json_dumps", "deepcopy", "gc_collect", "chaos", "float", "go", "raytrace", "xml_etree")


# -- the load process ---------------------------------------------------------------


def _alive(parent: int) -> bool:
    """The script that started the load is still there."""
    return os.getppid() == parent


def phases(kind: str, seed: int, log_path: str, lengths: tuple[float, float], parent: int) -> None:
    """Idle, then busy, each *lengths* seconds (drawn), until the parent goes."""
    rng = random.Random(seed)
    cpus = os.cpu_count() or 2
    with open(log_path, "a") as log:
        while _alive(parent):
            time.sleep(rng.uniform(*lengths))
            phase = rng.choice(["cpu", "memory"]) if kind == "mixed" else kind
            busy = rng.uniform(*lengths)
            log.write(json.dumps({"start": time.time(), "kind": phase, "seconds": busy}) + "\n")
            log.flush()
            code, count = (SPIN, cpus) if phase == "cpu" else (STREAM, 1)
            children = [subprocess.Popen([sys.executable, "-c", code, str(busy)]) for _ in range(count)]
            for child in children:
                child.wait()


def jobs(kind: str, seed: int, log_path: str, python: str, parent: int) -> None:
    """``jobs``: one stream of pyperformance benchmarks; ``heavy``: two and
    the memory-heavy job."""
    code = "import os, pyperformance; print(os.path.dirname(pyperformance.__file__))"
    found = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    folder = os.path.join(found, "data-files", "benchmarks")
    lock = threading.Lock()

    def benchmarks(stream_seed: int) -> None:
        """pyperformance benchmarks one after another, until the parent goes."""
        rng = random.Random(stream_seed)
        with tempfile.TemporaryDirectory() as scratch:
            while _alive(parent):
                name = rng.choice(JOBS)
                script = os.path.join(folder, f"bm_{name}", "run_benchmark.py")
                output = os.path.join(scratch, f"{name}.json")
                start = time.time()
                command = [python, script, "--fast", "-q", "-o", output]
                subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
                with contextlib.suppress(OSError):
                    os.unlink(output)
                with lock:
                    log.write(json.dumps({"start": start, "kind": name, "seconds": time.time() - start}) + "\n")
                    log.flush()

    def memory() -> None:
        while _alive(parent):
            subprocess.run([sys.executable, "-c", HEAVY_MEMORY, "60"], check=False)

    with open(log_path, "a") as log:
        streams = [threading.Thread(target=benchmarks, args=(seed + index,)) for index in range(1 + (kind == "heavy"))]
        if kind == "heavy":
            streams.append(threading.Thread(target=memory))
        for stream in streams:
            stream.start()
        for stream in streams:
            stream.join()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="the background load of bench's busy-machine experiments")
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("seed", type=int)
    parser.add_argument("log")
    parser.add_argument("--phases", type=float, nargs=2, default=PHASES, metavar=("SHORTEST", "LONGEST"))
    parser.add_argument("--jobs-python", default=sys.executable, help="has pyperformance (jobs, heavy)")
    parser.add_argument("--parent", type=int, default=os.getppid(), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.kind in ("jobs", "heavy"):
        jobs(args.kind, args.seed, args.log, args.jobs_python, args.parent)
    else:
        phases(args.kind, args.seed, args.log, tuple(args.phases), args.parent)


# -- the scripts' side ---------------------------------------------------------------


class Load:
    """``with Load(...)``: the load runs in the block (none when *kind* is
    ``none``)."""

    def __init__(
        self,
        kind: str,
        seed: int,
        log_path: str,
        lengths: tuple[float, float] = PHASES,
        jobs_python: str | None = None,
    ) -> None:
        if kind not in (*KINDS, "none"):
            raise ValueError(f"unknown load {kind!r}")
        self.kind, self.seed, self.log_path, self.lengths = kind, seed, log_path, lengths
        self.jobs_python = jobs_python or sys.executable
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Load:
        if self.kind != "none":
            command = [sys.executable, os.path.abspath(__file__), self.kind, str(self.seed), self.log_path]
            command += ["--phases", *map(str, self.lengths), "--jobs-python", self.jobs_python]
            command += ["--parent", str(os.getpid())]
            self.process = subprocess.Popen(command, start_new_session=True)  # its group: stopped with its children
        return self

    def stop(self) -> None:
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait()
        self.process = None

    def __enter__(self) -> Load:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def read_jsonl(path: str) -> list[dict[str, object]]:
    """The lines of a JSON-lines file (a load's log, a study's manifest);
    none when there is no file."""
    if not os.path.exists(path):
        return []
    with open(path) as log:
        return [json.loads(line) for line in log if line.strip()]


def busy_share(log_path: str, start: float, end: float) -> float | None:
    """The share of [start, end] during which the load was busy (None
    without a log)."""
    if not os.path.exists(log_path) or end <= start:
        return None
    busy = 0.0
    for phase in read_jsonl(log_path):
        first, seconds = float(phase["start"]), float(phase["seconds"])  # type: ignore[arg-type]
        busy += max(0.0, min(end, first + seconds) - max(start, first))
    return busy / (end - start)


def kinds_during(log_paths: list[str], start: float, end: float) -> set[str]:
    """The kinds of the busy phases that overlapped [start, end]."""
    kinds = set()
    for path in log_paths:
        for phase in read_jsonl(path):
            first, seconds = float(phase["start"]), float(phase["seconds"])  # type: ignore[arg-type]
            if first < end and first + seconds > start:
                kinds.add(str(phase["kind"]))
    return kinds


if __name__ == "__main__":
    main()
