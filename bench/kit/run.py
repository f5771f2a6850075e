"""Child processes: perf from this tree, commands logged, retried and timed."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import IO, Any, Callable, ContextManager, Iterator, NamedTuple, Sequence, TypeVar

from kit import ROOT

T = TypeVar("T")
R = TypeVar("R")

#: a perf command that takes longer is killed (and retried by the callers that retry)
PERF_TIMEOUT = 600.0
#: the lock folder the pytest experiments share: their sessions wait for
#: each other, not for the perf runs of other people's test suites
BENCH_LOCK = os.path.join(tempfile.gettempdir(), "perf-lock-h-bench")


def perf_env(
    *paths: str,
    tree: str | None = ROOT,
    lock: str | None = None,
    inherit_path: bool = False,
    bytecode: bool = False,
) -> dict[str, str]:
    """The environment of a child that runs perf: PYTHONPATH *tree* (perf's
    source tree; None: the interpreter's own installs, PYTHONPATH dropped)
    then *paths* (then the inherited PYTHONPATH with *inherit_path*).

    *lock*: ``PERF_LOCK_DIR`` unless the environment sets it: None leaves
    the system's lock (the child waits for every other perf run of the
    machine), ``"own"`` this script's own folder (it waits for no one
    else's: a study that runs beside a load of its own), else that folder.
    *bytecode*: drop ``PYTHONDONTWRITEBYTECODE`` (the commands timed write
    their ``.pyc`` files, as an installed perf has them)."""
    env = dict(os.environ)
    entries = [entry for entry in (tree, *paths) if entry]
    if inherit_path and os.environ.get("PYTHONPATH"):
        entries.append(os.environ["PYTHONPATH"])
    if entries:
        env["PYTHONPATH"] = os.pathsep.join(entries)
    else:
        env.pop("PYTHONPATH", None)
    if lock is not None and not env.get("PERF_LOCK_DIR"):
        folder = own_lock() if lock == "own" else lock
        os.makedirs(folder, exist_ok=True)
        env["PERF_LOCK_DIR"] = folder
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


@functools.cache
def own_lock() -> str:
    """A lock folder of this script's own (one per process)."""
    return tempfile.mkdtemp(prefix="perf-lock-")


def checked(command: Sequence[str], ok: Sequence[int] = (0,), **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run *command*, its output captured; stop the script with the tail of
    that output when its exit status is not in *ok*."""
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)
    if done.returncode not in ok:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"exit status {done.returncode}: {shlex.join(command)}")
    return done


def stdout_of(command: Sequence[str], **kwargs: Any) -> str:
    """The standard output of *command*, which must work (``python -c
    SCRIPT`` of a stdlib timeit, an interpreter's version...)."""
    return subprocess.run(command, capture_output=True, text=True, check=True, **kwargs).stdout


def die_with_parent() -> None:
    """In a child: SIGTERM when the bench script dies (Linux; else nothing)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_logged(commands: Sequence[list[str]], log: IO[str], die_with_us: bool = True) -> str | None:
    """Run *commands* one after the other in the source tree, with perf
    from it, their output appended to the open file *log* after each
    command line; stop at the first that fails.  The failure ("exit
    status 1", "timeout after ...") or None.  *die_with_us*: the commands
    get SIGTERM when this script dies (Linux)."""
    for command in commands:
        log.write(f"$ {shlex.join(command)}\n")
        log.flush()
        try:
            process = subprocess.run(
                command,
                check=False,
                cwd=ROOT,
                env=perf_env(inherit_path=True),
                stdout=log,
                stderr=subprocess.STDOUT,
                timeout=PERF_TIMEOUT,
                preexec_fn=die_with_parent if die_with_us and sys.platform == "linux" else None,
            )
        except subprocess.TimeoutExpired:
            return f"timeout after {PERF_TIMEOUT:.0f} s"
        if process.returncode:
            return f"exit status {process.returncode}"
    return None


def run_retried(
    commands: Sequence[list[str]],
    log_path: str,
    attempts: int,
    *,
    folder: str | None = None,
    output: str | None = None,
    during: Callable[[], ContextManager[object]] = contextlib.nullcontext,
    die_with_us: bool = True,
) -> float | None:
    """:func:`run_logged` (to *log_path*) until the commands all work, at
    most *attempts* times: perf fails now and then when its source tree is
    mid-edit (other people work in it).  Before each attempt *folder* is
    made empty and *output* removed; the commands run inside ``during()``
    (a load), whose start counts in the wall time of the attempt.  The
    wall time of the attempt that worked, or None."""
    for number in range(1, attempts + 1):
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
        if output and os.path.exists(output):
            os.unlink(output)
        start = time.perf_counter()
        with during(), open(log_path, "a") as log:
            failure = run_logged(commands, log, die_with_us)
        if failure is None:
            return time.perf_counter() - start
        print(f"  perf failed ({failure}, attempt {number}/{attempts}), see {log_path}", flush=True)
        if number < attempts:
            time.sleep(5)
    return None


def add_study_options(parser: argparse.ArgumentParser, python: str = "the Python running perf") -> None:
    """``--seed`` (default: drawn; the scripts print it), ``--keep DIR``,
    ``--pause``, ``--attempts`` and ``--python``: the options of a study
    that runs perf commands over and over (*python*: what ``--python`` is)."""
    seed = random.SystemRandom().randrange(2**32)
    parser.add_argument("--seed", type=int, default=seed, help="seed of the schedule (default: drawn, printed)")
    parser.add_argument("--keep", metavar="DIR", help="keep the result files in DIR (default: a temporary folder)")
    parser.add_argument("--pause", type=float, default=0.5, help="seconds between runs (default: 0.5)")
    parser.add_argument("--attempts", type=int, default=3, help="attempts per run when perf fails (default: 3)")
    parser.add_argument("--python", default=sys.executable, help=f"{python} (default: this one)")


@contextlib.contextmanager
def work_folder(keep: str | None, prefix: str, kept: str = "Result files kept in") -> Iterator[str]:
    """The folder of a study's files: *keep* (``--keep DIR``, kept, and
    said so at the end), else a temporary one, removed at the end."""
    folder = os.path.abspath(keep) if keep else tempfile.mkdtemp(prefix=prefix)
    os.makedirs(folder, exist_ok=True)
    try:
        yield folder
    finally:
        if keep:
            print(f"{kept} {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


def repeat(
    tasks: Sequence[T], run_one: Callable[[T], tuple[R, str] | None], pause: float, what: str, width: int = 3
) -> list[R]:
    """Run every task, *pause* seconds apart: ``run_one(task)`` gives the
    outcome and its progress line, or None when it failed.  Ctrl-C stops
    and keeps the outcomes so far."""
    outcomes: list[R] = []
    failures = 0
    start = time.perf_counter()
    try:
        for number, task in enumerate(tasks, 1):
            done = run_one(task)
            if done is None:
                failures += 1
                continue
            outcomes.append(done[0])
            total = time.perf_counter() - start
            print(f"  [{number:{width}}/{len(tasks)}] {done[1]}  (total {total:.0f} s)", flush=True)
            time.sleep(pause)
    except KeyboardInterrupt:
        print(f"Interrupted: summarising the {what} done so far.")
    print(f"Ran {len(outcomes)} of {len(tasks)} {what} in {time.perf_counter() - start:.0f} s; {failures} failed.")
    return outcomes


class CommandFailed(Exception):
    """A timed command exited with a status other than 0 (the message:
    the status and its last line of stderr)."""


class Usage(NamedTuple):
    """What one command took."""

    wall: float
    #: user + system CPU seconds
    cpu: float
    #: maximum resident set size, bytes
    max_rss: int


def timed(argv: list[str], env: dict[str, str]) -> Usage:
    """Run *argv* (output to /dev/null) and measure it with ``os.wait4``."""
    with tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr, env=env)
        _pid, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode:
            stderr.seek(0)
            lines = stderr.read().decode(errors="replace").strip().splitlines() or ["(no stderr)"]
            raise CommandFailed(f"exit status {process.returncode}: {lines[-1]}")
    return Usage(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)  # kilobytes on Linux


def recorded(command: Sequence[str], output: str, env: dict[str, str]) -> tuple[float, Any]:
    """Run a perf command with ``-q -o OUTPUT`` (its output to /dev/null),
    in the folder of *output*: ``python -m perf`` would import perf from the
    current folder before PYTHONPATH's tree.  Its wall time and the
    benchmark it wrote (the file is removed)."""
    from perf.storage.files import load_benchmark

    start = time.perf_counter()
    folder = os.path.dirname(os.path.abspath(output))
    subprocess.run([*command, "-q", "-o", output], check=True, env=env, stdout=subprocess.DEVNULL, cwd=folder)
    wall = time.perf_counter() - start
    benchmark = load_benchmark(output)
    os.unlink(output)
    return wall, benchmark


def uptime() -> str:
    try:
        return stdout_of(["uptime"]).strip()
    except (OSError, subprocess.CalledProcessError):
        return "load average: " + ", ".join(f"{value:.2f}" for value in os.getloadavg())
