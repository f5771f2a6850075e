"""The exception hierarchy of perf: every error perf raises on purpose.

Library code raises these; only ``perf/cli/`` turns them into a one-line
``ERROR: ...`` message and an exit code.  Each class also derives from the
built-in exception pyperf raised in the same situation (``ValueError``,
``OSError``, ``RuntimeError``), so code written against pyperf that catches
those keeps working.

Must not: print, exit, or import anything from perf.
"""

from __future__ import annotations

import errno


class PerfError(Exception):
    """Base class of every error raised on purpose by perf."""


class UsageError(PerfError, ValueError):
    """The command line cannot be used as given: an unknown option, a bad
    option value or combination, a missing argument, an output file that
    exists (checked before any work).  The command line exits with status
    2, as argparse does; every other error exits with 1."""


class ResultError(PerfError, ValueError):
    """Result data is invalid: a bad value, warmup, metadata or structure."""


class IncompatibleRunError(ResultError):
    """Runs or benchmarks cannot be merged (different unit, name, host...)."""


class FileFormatError(ResultError):
    """A result file (or string, or stream) is malformed.

    :attr:`filename` names the file (``'<stdin>'``, ``'<string>'``) and
    :attr:`reason` says what is wrong; ``str()`` gives both on one line.
    """

    def __init__(self, filename: str | None, reason: str) -> None:
        self.filename = filename
        self.reason = reason
        super().__init__(f"{filename}: {reason}" if filename else reason)


class ResultFileError(PerfError, OSError):
    """A result file cannot be read or written (missing, no space...).

    The file is left as it was before the failed operation.  :attr:`errno`
    is the system error number when there is one.
    """

    def __init__(self, filename: str | None, reason: str, error_number: int | None = None) -> None:
        self.reason = reason
        super().__init__(f"{filename}: {reason}" if filename else reason)
        self.filename = filename
        self.errno = error_number

    def __str__(self) -> str:
        # OSError's own text would be "[Errno 2] None: 'path'"
        return f"{self.filename}: {self.reason}" if self.filename else self.reason


class ResultFileExistsError(ResultFileError, FileExistsError):
    """Writing was refused because the file exists (``replace=False``)."""

    def __init__(self, filename: str | None) -> None:
        super().__init__(filename, "the file already exists (refusing to overwrite it)", errno.EEXIST)


class OutputExistsError(ResultFileError, FileExistsError):
    """An output file exists and the command does not replace it: exit
    status 1, as pyperf's ``-o``; the file is left as it is.  *hint*: how
    to get past it (`` (use --append to add runs to it)``)."""

    def __init__(self, filename: str, hint: str = "") -> None:
        super().__init__(filename, f"the file already exists{hint}", errno.EEXIST)


class WorkerError(PerfError, RuntimeError):
    """A worker process failed, crashed or sent invalid data."""


class WorkerTimeoutError(WorkerError):
    """A worker process ran longer than ``--timeout`` (exit status 124)."""


class BenchmarkFailedError(WorkerError):
    """A benchmark of a script failed (*error*: its worker's); the other
    benchmarks ran on.  *kept*: what was saved of it, or ``""``."""

    def __init__(self, name: str, error: WorkerError, kept: str = "") -> None:
        super().__init__(f"{error}\n{kept}" if kept else str(error))
        self.name = name
        self.error = error


class WorkerCancelled(WorkerError):
    """A worker started ahead of its turn was not needed: the parent closed its barrier."""


class ZeroValueError(WorkerError):
    """A time function returned 0 seconds for a value: the clock is too
    coarse for the loop count.  A worker run in place (``--worker``
    without ``--pipe``) raises pyperf's ``ValueError("benchmark function
    returned zero")`` from it instead, for the script to catch."""


class CpuBusyError(PerfError, RuntimeError):
    """Another perf run holds the CPUs (``--lock fail``)."""


class CalibrationError(PerfError):
    """Loop or warmup calibration could not reach a usable state."""


class SystemTuningError(PerfError):
    """``perf system`` could not read or change a system setting."""


class MissingDependencyError(PerfError, ImportError):
    """An optional dependency (matplotlib for plot and report) is missing
    or too old: the message says what to install."""


class HistoryStoreError(PerfError):
    """A history store cannot be used: the folder is not a store, a file
    is already in it, a file has no commit.  Nothing was added."""


class RevisionError(UsageError):
    """A git revision given on the command line does not name a commit of
    the repository (exit status 2, checked before anything is measured)."""


class BuildError(PerfError):
    """The ``--build`` command of a history recording or a bisection
    failed in a worktree; the message names the commit and the command."""
