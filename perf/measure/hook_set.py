"""The hooks of one batch of samples: :class:`HookSet` builds the selected
hooks (:mod:`perf.measure.hooks`), enters them around each timed sample and
tears them down at the end of the batch, when the worker records their
metadata.

Must not: print, exit, time anything (the worker times the samples), or
import importlib.metadata unless hooks are selected.
"""

from __future__ import annotations

from contextlib import ExitStack, suppress
from types import TracebackType
from typing import Iterable

from perf.errors import WorkerError
from perf.measure.hooks import Hook, HookDescriptor, HookError, Metadata, select_hooks


class HookSet:
    """The hooks of one batch of samples.

    Construction builds one instance of each selected hook; each ``with``
    block is one timed sample (hooks entered in order, exited in reverse
    order); :meth:`teardown` ends the batch.

    :raises UsageError: when a name is not a known hook.
    :raises WorkerError: when a hook refuses to start (:class:`HookError`).
    """

    def __init__(self, names: Iterable[str] = (), extra: Iterable[HookDescriptor] = ()) -> None:
        self._hooks: list[tuple[str, Hook]] = []
        for name, factory in select_hooks(names, extra):
            try:
                hook = factory()
            except HookError as exc:
                self._discard()
                raise WorkerError(f"hook {name!r} cannot be set up: {exc}") from exc
            self._hooks.append((name, hook))
        self._stack: ExitStack | None = None

    def _discard(self) -> None:
        """Let the hooks built so far release what they hold (perf_record's
        process and FIFOs); their errors would hide the one being raised."""
        for _, hook in self._hooks:
            with suppress(Exception):
                hook.teardown({})
        self._hooks.clear()

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self._hooks]

    def __len__(self) -> int:
        return len(self._hooks)

    def __enter__(self) -> HookSet:
        with ExitStack() as stack:
            for _, hook in self._hooks:
                stack.enter_context(hook)  # type: ignore[arg-type]
            # every hook entered: keep them for __exit__
            self._stack = stack.pop_all()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        stack, self._stack = self._stack, None
        if stack is None:
            return False
        return bool(stack.__exit__(exc_type, exc, tb))

    def teardown(self, metadata: Metadata) -> None:
        """Call every hook's ``teardown`` (all of them, even after one fails),
        then record ``hooks: "name1, name2"`` in *metadata*."""
        errors: list[BaseException] = []
        for _, hook in self._hooks:
            try:
                hook.teardown(metadata)
            except Exception as exc:
                errors.append(exc)
        if self._hooks:
            metadata["hooks"] = ", ".join(self.names)
        if errors:
            raise errors[0]
