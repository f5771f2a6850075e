"""Hooks: code run right before and right after each timed sample (``--hook NAME``).

A hook is a class following :class:`HookBase`, published under the
``perf.hook`` entry-point group or pyperf's ``pyperf.hook`` (a hook package
written for pyperf works as it is), or handed to ``Runner(hooks=...)`` as
a descriptor; :func:`get_selected_hooks` finds them by name (a name in
both groups is perf's: ``pyperf.hook`` entries, then the built-in hooks,
then ``perf.hook`` entries, then the runner's, each replacing the one
before) (:class:`perf.measure.hook_set.HookSet` runs them around the
samples of one batch).  Built in: ``perf_record`` (Linux
``perf record``) and ``pystats`` (CPython built with ``--enable-pystats``).

Must not: print, exit, or import importlib.metadata unless hooks are listed or selected.
"""

from __future__ import annotations

import errno
import os
import sys
from contextlib import ExitStack
from typing import Any, Callable, Dict, Iterable, Mapping, Protocol, Sequence

from perf.errors import UsageError

__all__ = [
    "ENTRY_POINT_GROUP",
    "PYPERF_ENTRY_POINT_GROUP",
    "HookError",
    "HookBase",
    "Hook",
    "HookDescriptor",
    "HookFactory",
    "get_hook_names",
    "get_selected_hooks",
    "PerfRecord",
    "PyStats",
    "PERF_RECORD_ENVIRON",
]

ENTRY_POINT_GROUP = "perf.hook"
#: pyperf's group: its hook packages register there
PYPERF_ENTRY_POINT_GROUP = "pyperf.hook"

#: environment variables read by :class:`PerfRecord`; the worker environment
#: must keep them (pyperf's names were ``PYPERF_PERF_RECORD_*``)
PERF_RECORD_DATA_DIR = "PERF_PERF_RECORD_DATA_DIR"
PERF_RECORD_EXTRA_OPTS = "PERF_PERF_RECORD_EXTRA_OPTS"
PERF_RECORD_ENVIRON = (PERF_RECORD_DATA_DIR, PERF_RECORD_EXTRA_OPTS)

Metadata = Dict[str, Any]


class HookError(Exception):
    """Raised by a hook's ``__init__`` to refuse to run, with the reason."""


class Hook(Protocol):
    """What perf needs from a hook instance (:class:`HookBase` or a pyperf hook)."""

    def __enter__(self) -> object: ...

    def __exit__(self, *exc_info: object) -> object: ...

    def teardown(self, metadata: Metadata) -> None: ...


#: builds a fresh hook instance (usually the hook class itself)
HookFactory = Callable[[], Hook]


class HookDescriptor(Protocol):
    """A named, loadable hook: mirrors :class:`importlib.metadata.EntryPoint`."""

    @property
    def name(self) -> str: ...

    def load(self) -> Any: ...


class HookBase:
    """Base class of hooks.

    A worker builds one instance for all its samples (calibration steps,
    warmups and values; pyperf builds one per batch).  ``__init__`` may
    raise :class:`HookError` to abort the run with a message.  ``__enter__``
    runs right before each timed call and ``__exit__`` right after it, once
    per sample; ``teardown`` runs after the last sample and may add keys to
    the metadata of the worker's runs.
    """

    def __init__(self) -> None:
        pass

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc_info: object) -> None:
        pass

    def teardown(self, metadata: Metadata) -> None:
        pass


class PyStats(HookBase):
    """Collect CPython's internal statistics (``--enable-pystats`` builds)
    during the timed calls only; adds metadata ``pystats: enabled``."""

    def __init__(self) -> None:
        super().__init__()
        if not hasattr(sys, "_stats_on"):
            raise HookError("pystats needs a Python built with --enable-pystats")
        self._sys: Any = sys  # the _stats_* functions exist only in such builds
        # statistics gathered before the first sample (imports, setup) are dropped
        self._sys._stats_off()
        self._sys._stats_clear()

    def __enter__(self) -> None:
        self._sys._stats_on()

    def __exit__(self, *exc_info: object) -> None:
        self._sys._stats_off()

    def teardown(self, metadata: Metadata) -> None:
        metadata["pystats"] = "enabled"


class _Process(Protocol):
    def wait(self, timeout: float | None = None) -> object: ...

    def kill(self) -> None: ...


def _spawn_perf(command: list[str]) -> _Process:
    import subprocess

    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class PerfRecord(HookBase):
    """Profile the timed calls with Linux ``perf record``.

    ``perf record`` is attached to the worker with ``--pid`` and driven
    through a pair of FIFOs (``--control fifo:CTL,ACK``): each sample
    enables the events and disables them afterwards, so setup code between
    samples is left out of the profile.  The profile goes to
    ``perf.data.<uuid>`` in the directory named by ``PERF_PERF_RECORD_DATA_DIR``
    (default: the current directory); ``PERF_PERF_RECORD_EXTRA_OPTS`` is split
    like a shell command line and appended to the ``perf record`` options.

    *spawn* (runs the command) and *environ* exist for tests.
    """

    #: seconds allowed for ``perf record`` to open its control FIFO, and to
    #: write its profile once stopped
    START_TIMEOUT = 60.0
    STOP_TIMEOUT = 120.0

    def __init__(
        self,
        *,
        spawn: Callable[[list[str]], _Process] = _spawn_perf,
        environ: Mapping[str, str] = os.environ,
    ) -> None:
        import shlex
        import tempfile
        import uuid

        super().__init__()
        if not hasattr(os, "mkfifo"):
            raise HookError("perf_record needs Linux perf and FIFOs, which this platform lacks")
        self._tempdir = tempfile.TemporaryDirectory(prefix="perf-record-")
        control = os.path.join(self._tempdir.name, "control")
        ack = os.path.join(self._tempdir.name, "ack")
        os.mkfifo(control)
        os.mkfifo(ack)
        output = os.path.join(environ.get(PERF_RECORD_DATA_DIR, ""), f"perf.data.{uuid.uuid4()}")
        command = [
            "perf",
            "record",
            "--pid",
            str(os.getpid()),
            "--output",
            output,
            "--control",
            f"fifo:{control},{ack}",
        ]
        command += shlex.split(environ.get(PERF_RECORD_EXTRA_OPTS, ""))
        try:
            self._process = spawn(command)
        except OSError as exc:
            self._tempdir.cleanup()
            raise HookError(f"cannot run perf record: {exc}") from exc
        with ExitStack() as cleanup:
            cleanup.callback(self._tempdir.cleanup)
            cleanup.callback(self._process.kill)
            self._control = cleanup.enter_context(os.fdopen(self._open_control(control), "w"))
            # perf opens its ack end right after its control end
            self._ack = cleanup.enter_context(open(ack))
            cleanup.pop_all()  # success: everything stays open until teardown

    def _open_control(self, path: str) -> int:
        """Open the control FIFO for writing once perf has opened it.

        A blocking open would hang forever when perf exits first (no
        permission to profile, unknown option), so poll instead.
        """
        import subprocess
        import time

        deadline = time.monotonic() + self.START_TIMEOUT
        while True:
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno != errno.ENXIO:  # ENXIO: nobody reads the FIFO yet
                    raise
            else:
                os.set_blocking(fd, True)
                return fd
            try:
                exit_code = self._process.wait(timeout=0.01)
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline:
                    message = f"perf record did not open its control FIFO within {self.START_TIMEOUT:g} s"
                    raise HookError(message) from None
            else:
                raise HookError(f"perf record exited with code {exit_code} before the benchmark started")

    def _command(self, command: str) -> None:
        """Send one command to perf and wait until perf acknowledges it."""
        self._control.write(command + "\n")
        self._control.flush()
        if not self._ack.readline():
            raise HookError(f"perf record stopped before acknowledging {command!r}")

    def __enter__(self) -> None:
        self._command("enable")

    def __exit__(self, *exc_info: object) -> None:
        self._command("disable")

    def teardown(self, metadata: Metadata) -> None:
        import subprocess

        try:
            self._command("stop")
            try:
                self._process.wait(timeout=self.STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self._process.kill()
                raise HookError(f"perf record did not stop within {self.STOP_TIMEOUT:g} s") from None
        finally:
            self._control.close()
            self._ack.close()
            self._tempdir.cleanup()


class _BuiltinHook:
    """A descriptor for a hook of this module, usable before perf is installed."""

    def __init__(self, name: str, factory: HookFactory) -> None:
        self.name = name
        self._factory = factory

    def __repr__(self) -> str:
        return f"_BuiltinHook({self.name!r})"

    def load(self) -> HookFactory:
        return self._factory


# Also registered as entry points in pyproject.toml; listed here because a
# source tree that is not installed has no entry-point metadata.
_BUILTIN_HOOKS = (_BuiltinHook("perf_record", PerfRecord), _BuiltinHook("pystats", PyStats))


def _entry_points(group: str) -> Iterable[HookDescriptor]:
    import importlib.metadata

    if sys.version_info >= (3, 10):
        return importlib.metadata.entry_points(group=group)
    return importlib.metadata.entry_points().get(group, ())


def _descriptors(extra: Iterable[HookDescriptor]) -> dict[str, HookDescriptor]:
    """Every known hook by name: ``pyperf.hook`` entry points, the built-in
    hooks, ``perf.hook`` entry points, then *extra* (a later one replaces an
    earlier one of the same name: pyperf's own ``perf_record`` and
    ``pystats``, registered under ``pyperf.hook`` when pyperf is installed,
    give way to perf's)."""
    known: dict[str, HookDescriptor] = {}
    for descriptor in (
        *_entry_points(PYPERF_ENTRY_POINT_GROUP),
        *_BUILTIN_HOOKS,
        *_entry_points(ENTRY_POINT_GROUP),
        *extra,
    ):
        known[descriptor.name] = descriptor
    return known


def get_hook_names(extra: Iterable[HookDescriptor] = ()) -> list[str]:
    """Sorted names of the hooks ``--hook`` accepts: the built-in hooks, the
    ``perf.hook`` and ``pyperf.hook`` entry points, and the *extra*
    descriptors."""
    return sorted(_descriptors(extra))


def select_hooks(names: Iterable[str], extra: Iterable[HookDescriptor] = ()) -> list[tuple[str, HookFactory]]:
    """``(name, factory)`` of the hooks *names*, in that order (duplicates
    dropped); :func:`get_selected_hooks` without the names.

    :raises UsageError: when a name is not a known hook.
    """
    wanted = list(dict.fromkeys(names))  # a hook given twice runs once
    if not wanted:
        return []  # the common case: importlib.metadata is not even imported
    known = _descriptors(extra)
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise UsageError(f"unknown hook {unknown[0]!r}; known hooks: {', '.join(sorted(known))}")
    return [(name, known[name].load()) for name in wanted]


def get_selected_hooks(names: Iterable[str], extra: Iterable[HookDescriptor] = ()) -> list[HookFactory]:
    """The factories of the hooks *names*, in that order (duplicates dropped).

    :raises UsageError: when a name is not a known hook.
    """
    return [factory for _, factory in select_hooks(names, extra)]


def check_hook_descriptors(hooks: Sequence[Any] | None) -> tuple[Any, ...]:
    """``Runner(hooks=...)``: a list or tuple of descriptors, each with a
    ``name`` and a ``load()`` (RuntimeError otherwise, as pyperf)."""
    if hooks is None:
        return ()
    if not isinstance(hooks, (list, tuple)):
        raise RuntimeError("hooks must be a list or a tuple of hook descriptors")
    for hook in hooks:
        if not hasattr(hook, "name") or not callable(getattr(hook, "load", None)):
            raise RuntimeError(f"invalid hook descriptor {hook!r}: it needs a 'name' and a 'load()'")
    return tuple(hooks)
