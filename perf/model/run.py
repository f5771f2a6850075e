"""Run: the values, warmups and metadata produced by one worker process.

A Run is immutable once built, so benchmarks can share runs freely.  Every
value is validated at construction: numbers (never bool), finite, > 0, and
already divided by the number of loop iterations.

Must not: touch files, format text.  The only upward call is the lazy
import of ``perf.collect`` when ``collect_metadata=True`` (pyperf's API).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence, Union

from perf.errors import ResultError
from perf.model.metadata import COUNTER_KEY, Metadata, copy_metadata, is_number, parse_metadata

Number = Union[int, float]
Warmup = tuple[int, Number]

#: a run's own metadata stored beside the metadata it shares with the other
#: runs of its benchmark (the runs of a loaded file): ``(inherited,
#: positions, *own values)`` stands for ``{**inherited, **own}``, where
#: *positions* maps each own key to the index of its value in the tuple, in
#: insertion order.  *inherited* and *positions* are shared by many runs,
#: and nobody may change them.  With 7 own keys out of 23, the tuple takes
#: 112 bytes where a dict per run takes 830.
SplitMetadata = tuple[Any, ...]

#: metadata keys that mark a run without values as a calibration run
CALIBRATION_KEYS = ("calibrate_loops", "recalibrate_loops", "calibrate_warmups", "recalibrate_warmups")


def check_values(values: Iterable[Any]) -> tuple[Number, ...]:
    """Return *values* as a tuple; each must be a finite number > 0."""
    if isinstance(values, (str, bytes, Mapping)):
        raise ResultError(f"values must be a sequence of numbers, got {type(values).__name__}")
    result = tuple(values)
    for index, value in enumerate(result):
        if not (is_number(value) and 0 < value < math.inf):
            raise ResultError(f"values[{index}]: a value must be a finite number > 0, got {value!r}")
    return result


def check_warmups(warmups: Iterable[Any]) -> tuple[Warmup, ...]:
    """Return *warmups* as a tuple of ``(loops, value)`` pairs.

    *loops* is an int >= 1; *value* a finite number >= 0, normalised per
    loop iteration.
    """
    if isinstance(warmups, (str, bytes, Mapping)):
        raise ResultError(f"warmups must be a sequence of (loops, value) pairs, got {type(warmups).__name__}")
    result = []
    for index, item in enumerate(warmups):
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise ResultError(f"warmups[{index}]: a warmup must be a (loops, value) pair, got {item!r}")
        loops, value = item
        if isinstance(loops, bool) or not isinstance(loops, int) or loops < 1:
            raise ResultError(f"warmups[{index}]: loops must be an int >= 1, got {loops!r}")
        if not (is_number(value) and 0 <= value < math.inf):
            raise ResultError(f"warmups[{index}]: value must be a finite number >= 0, got {value!r}")
        result.append((loops, value))
    return tuple(result)


class Run:
    """The result of one worker process.

    :param values: values normalised per loop iteration, each > 0; empty for
        a calibration run.
    :param warmups: ``(loops, value)`` pairs, value normalised per iteration.
    :param metadata: metadata of this run (validated).
    :param collect_metadata: if true, collect the system's metadata first;
        *metadata* then overrides collected keys.
    """

    __slots__ = ("_metadata", "_values", "_warmups")

    _warmups: tuple[Warmup, ...]
    _values: tuple[Number, ...]
    #: the metadata dict, or (runs loaded from a file) a SplitMetadata tuple:
    #: read it through _get(), _has() and _get_metadata(), never directly
    _metadata: Metadata | SplitMetadata

    def __init__(
        self,
        values: Sequence[Number],
        warmups: Sequence[Warmup] | None = None,
        metadata: Mapping[str, Any] | None = None,
        collect_metadata: bool = True,
    ) -> None:
        checked_values = check_values(values)
        checked_warmups = check_warmups(warmups) if warmups is not None else ()
        if not checked_values and not checked_warmups:
            raise ResultError("a run needs values or warmups: both are empty")
        if metadata is not None and not isinstance(metadata, Mapping):
            raise ResultError(f"metadata must be a dict, got {type(metadata).__name__}")
        if collect_metadata:
            from perf.collect import collect_metadata as collect

            collected: dict[str, Any] = collect()
            if metadata:
                collected.update(metadata)
            metadata = collected
        self._values = checked_values
        self._warmups = checked_warmups
        self._metadata = parse_metadata(metadata) if metadata else {}

    @classmethod
    def _from_checked(
        cls, values: tuple[Number, ...], warmups: tuple[Warmup, ...], metadata: Metadata | SplitMetadata
    ) -> Run:
        """Build a run from parts that were already validated (no copy)."""
        run = cls.__new__(cls)
        run._values = values
        run._warmups = warmups
        run._metadata = metadata
        return run

    def _get(self, key: str, default: Any = None) -> Any:
        """``metadata.get(key, default)`` without building the dict."""
        metadata = self._metadata
        if isinstance(metadata, dict):
            return metadata.get(key, default)
        position = metadata[1].get(key)
        if position is not None:
            return metadata[position]
        return metadata[0].get(key, default)

    def _has(self, key: str) -> bool:
        metadata = self._metadata
        if isinstance(metadata, dict):
            return key in metadata
        return key in metadata[1] or key in metadata[0]

    def _get_metadata(self) -> Metadata:
        """The metadata dict (shared, or built for the call: never change it)."""
        metadata = self._metadata
        if isinstance(metadata, dict):
            return metadata
        merged = dict(metadata[0])
        merged.update(zip(metadata[1], metadata[2:]))
        return merged

    def __repr__(self) -> str:
        name = self._get("name")
        return f"<Run name={name!r} values={len(self._values)} warmups={len(self._warmups)}>"

    @property
    def values(self) -> tuple[Number, ...]:
        """Values normalised per loop iteration (empty for calibration)."""
        return self._values

    @property
    def warmups(self) -> tuple[Warmup, ...]:
        """``(loops, value)`` pairs; an empty tuple when there is none."""
        return self._warmups

    def get_metadata(self) -> Metadata:
        """A copy of the run's metadata (lists such as ``tags`` copied too)."""
        return copy_metadata(self._get_metadata())

    def get_loops(self) -> int:
        return int(self._get("loops", 1))

    def get_inner_loops(self) -> int:
        return int(self._get("inner_loops", 1))

    def get_total_loops(self) -> int:
        return int(self._get("loops", 1)) * int(self._get("inner_loops", 1))

    # --- calibration --------------------------------------------------

    def is_calibration(self) -> bool:
        """A run without values calibrates loops or warmups."""
        return not self._values

    def is_calibration_loops(self) -> bool:
        if not self.is_calibration():
            return False
        if self._has("calibrate_loops"):
            return True
        # Files from perf <= 1.1 mark a loop calibration by having no key.
        return not any(self._has(key) for key in CALIBRATION_KEYS[1:])

    def is_recalibration_loops(self) -> bool:
        return self.is_calibration() and self._has("recalibrate_loops")

    def is_calibration_warmups(self) -> bool:
        return self.is_calibration() and self._has("calibrate_warmups")

    def is_recalibration_warmups(self) -> bool:
        return self.is_calibration() and self._has("recalibrate_warmups")

    def get_calibration_loops(self) -> int:
        for key in ("calibrate_loops", "recalibrate_loops"):
            if self._has(key):
                return int(self._get(key))
        if self.is_calibration_loops():
            return self.get_loops()
        raise ResultError("the run is not a loop calibration")

    def get_calibration_warmups(self) -> int:
        for key in ("calibrate_warmups", "recalibrate_warmups"):
            if self._has(key):
                return int(self._get(key))
        raise ResultError("the run is not a warmup calibration")

    # --- derived figures ----------------------------------------------

    def get_raw_values(self, warmups: bool = False) -> list[float]:
        """Values multiplied back by their loop counts (seconds per value)."""
        raw: list[float] = []
        if warmups:
            inner_loops = self.get_inner_loops()
            raw.extend(value * (loops * inner_loops) for loops, value in self._warmups)
        total_loops = self.get_total_loops()
        raw.extend(value * total_loops for value in self._values)
        return raw

    def get_duration(self) -> float:
        """``duration`` metadata, else the sum of raw values and warmups (0
        for counts: instructions are no seconds)."""
        duration = self._get("duration")
        if duration is not None:
            return float(duration)
        if self._get(COUNTER_KEY) is not None:
            return 0.0
        return math.fsum(self.get_raw_values(warmups=True))

    def get_date(self) -> str | None:
        date: str | None = self._get("date")
        return date

    # --- copies with changes ------------------------------------------

    def _replace(
        self,
        values: tuple[Number, ...] | None = None,
        keep_warmups: bool = True,
        metadata: Metadata | None = None,
    ) -> Run:
        return Run._from_checked(
            self._values if values is None else values,
            self._warmups if keep_warmups else (),
            self._metadata if metadata is None else metadata,
        )

    def remove_warmups(self) -> Run:
        if not self._warmups or not self._values:
            return self
        return self._replace(keep_warmups=False)

    def _with_metadata(self, metadata: Metadata) -> Run:
        """A copy with *metadata* (already validated) merged in."""
        if "inner_loops" in metadata:
            current = self._get("inner_loops")
            if current is not None and metadata["inner_loops"] != current:
                raise ResultError("inner_loops metadata cannot be modified")
        return self._replace(metadata={**self._get_metadata(), **metadata})
