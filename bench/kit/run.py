"""Child processes: perf from this tree, commands logged, retried and timed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from typing import IO, Callable, NamedTuple, Sequence

from kit import ROOT

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
    else's: a study that runs beside a load of its own), else that folder.  *bytecode*: drop
    ``PYTHONDONTWRITEBYTECODE`` (the commands timed write their ``.pyc``
    files, as an installed perf has them)."""
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


_OWN_LOCK: list[str] = []


def own_lock() -> str:
    """A lock folder of this script's own (one per process)."""
    if not _OWN_LOCK:
        _OWN_LOCK.append(tempfile.mkdtemp(prefix="perf-lock-"))
    return _OWN_LOCK[0]


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
    import shlex

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


def retried(attempt: Callable[[], str | None], attempts: int, where: str, pause: float = 5.0) -> bool:
    """Call *attempt* (it returns None when it worked, else what failed)
    until it works, at most *attempts* times: perf fails now and then when
    its source tree is mid-edit (other people work in it)."""
    for number in range(1, attempts + 1):
        failure = attempt()
        if failure is None:
            return True
        print(f"  perf failed ({failure}, attempt {number}/{attempts}), see {where}", flush=True)
        if number < attempts:
            time.sleep(pause)
    return False


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


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "load average: " + ", ".join(f"{value:.2f}" for value in os.getloadavg())
