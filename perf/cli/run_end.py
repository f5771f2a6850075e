"""How a run of :class:`perf.Runner` ends: its last lines and its exit status.

A benchmark of a script that fails while the others run is reported
when it fails; the script's last benchmark exits with status 1 (124 when
a worker ran longer than ``--timeout``) after the results of the others.
Ctrl-C says what was saved and exits with status 130.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Callable, NoReturn, TypeVar

from perf.cli.main import ERROR_EXIT_STATUS, INTERRUPTED_EXIT_STATUS, TIMEOUT_EXIT_STATUS, fail, fail_on
from perf.errors import BenchmarkFailedError, PerfError, WorkerTimeoutError

if TYPE_CHECKING:
    from perf.measure.parent.session import Session

T = TypeVar("T")


def guarded(run: Callable[[], T], session: Session | None, index: int) -> T | None:
    """*run()* the benchmark number *index* of *session*: its failures
    are reported, and end the process as they must."""
    try:
        return run()
    except KeyboardInterrupt:
        interrupted(session)
    except BenchmarkFailedError as exc:
        assert session is not None
        if len(session.declared) == 1:
            fail(str(exc), failure_status(session))
        sys.stdout.flush()
        print(f"ERROR: {exc}", file=sys.stderr)
        exit_if_failed(session, index)
        return None
    except WorkerTimeoutError as exc:
        fail(str(exc), TIMEOUT_EXIT_STATUS)
    except PerfError as exc:
        fail_on(exc)


def interrupted(session: Session | None) -> NoReturn:
    """Ctrl-C: one line saying what was saved (the session saved every
    process that finished), then exit with status 130."""
    from perf.cli.display import stop_line

    if session is not None and session.stopped is None:  # between two benchmarks, or before the first worker
        sys.stdout.flush()
        print(stop_line(session.report(), "Interrupted"), file=sys.stderr)
    sys.exit(INTERRUPTED_EXIT_STATUS)


def failure_status(session: Session) -> int:
    timeouts = [failure for failure in session.failures.values() if isinstance(failure.error, WorkerTimeoutError)]
    return TIMEOUT_EXIT_STATUS if timeouts else ERROR_EXIT_STATUS


def exit_if_failed(session: Session, index: int) -> None:
    """After the benchmark number *index*: if it is the script's last one
    and some failed, say which (and where the others were saved) and exit."""
    if not session.failures or not session.is_last(index):
        return
    names = ", ".join(map(repr, session.failures))
    message = f"{len(session.failures)} of {len(session.declared)} benchmarks failed: {names}"
    others = len(session.declared) - len(session.failures)
    if session.writer.path and others:
        which = "the other one was" if others == 1 else f"the {others} others were"
        message += f"; {which} saved to {' and '.join(session.writer.paths)}"
    fail(message, failure_status(session))
