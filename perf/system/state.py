"""The state file of ``perf system tune``: what each change overwrote.

``tune`` records the previous content of every kernel file it is about to
write (byte for byte), the previous value of every model-specific register
bit, and whether each service it stops was running, *before* it changes
anything.  ``reset`` writes those back, in the same order, and removes the
file.  ``tune`` run twice keeps the first value of each entry, so ``reset``
still goes back to the machine as it was before the first ``tune``.

The file lives under ``/run`` by default: like the settings it describes,
it does not survive a reboot.

Must not: print, exit, write anything but the state file.
"""

from __future__ import annotations

import datetime
import json
import os
import tempfile
from dataclasses import asdict, astuple, dataclass, field, fields
from typing import Any, ClassVar, Union

from perf.errors import SystemTuningError

#: where the state is kept (under the injectable root)
DEFAULT_STATE_FILE = "/run/perf/system-tune.json"
#: the "format" field of the file
STATE_FORMAT = "perf-system-state-1"


@dataclass(frozen=True)
class FileEntry:
    """A kernel file and its whole content before ``tune``."""

    kind: ClassVar[str] = "file"
    path: str
    previous: str


@dataclass(frozen=True)
class MsrEntry:
    """One bit of a model-specific register of a CPU before ``tune``."""

    kind: ClassVar[str] = "msr"
    cpu: int
    register: int
    bit: int
    previous: bool


@dataclass(frozen=True)
class ServiceEntry:
    """A service and whether it was running before ``tune``."""

    kind: ClassVar[str] = "service"
    name: str
    previous: bool


Entry = Union[FileEntry, MsrEntry, ServiceEntry]
#: the "kind" of an entry in the file -> its class
KINDS: dict[str, type[Entry]] = {kind.kind: kind for kind in (FileEntry, MsrEntry, ServiceEntry)}
#: the JSON type of each field (exactly: a bool is no register number)
_TYPES = {"str": str, "int": int, "bool": bool}


def _key(entry: Entry) -> tuple[Any, ...]:
    """What an entry is about (its file, bit or service): all but ``previous``."""
    return (entry.kind, *astuple(entry)[:-1])


@dataclass
class SavedState:
    """The entries of a state file, in the order ``tune`` applied them."""

    entries: list[Entry] = field(default_factory=list)
    #: when the first ``tune`` saved it (local time, ISO format)
    created: str = ""

    def add(self, entry: Entry) -> bool:
        """Add *entry* unless its file/bit/service is already recorded
        (the first ``tune`` wins); True when added."""
        if _key(entry) in {_key(saved) for saved in self.entries}:
            return False
        self.entries.append(entry)
        return True


def _encode(entry: Entry) -> dict[str, Any]:
    return {"kind": entry.kind, **asdict(entry)}


def _decode(item: Any) -> Entry:
    if not isinstance(item, dict):
        raise ValueError("an entry is not an object")
    kind = item.get("kind")
    entry_class = KINDS.get(kind) if isinstance(kind, str) else None
    if entry_class is not None:
        values: list[Any] = [item.get(name.name) for name in fields(entry_class)]
        if all(type(value) is _TYPES[str(name.type)] for name, value in zip(fields(entry_class), values)):
            return entry_class(*values)
    raise ValueError(f"invalid entry {json.dumps(item)[:80]}")


def load_state(path: str) -> SavedState | None:
    """The state saved in *path*, or None when there is none; raises
    SystemTuningError when the file exists but cannot be used."""
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise SystemTuningError(f"{path}: cannot read the saved state: {exc}") from None
    try:
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            raise ValueError(f"not a {STATE_FORMAT} file")
        entries = data.get("entries")
        if not isinstance(entries, list):
            raise ValueError("no entry list")
        return SavedState([_decode(item) for item in entries], str(data.get("created", "")))
    except ValueError as exc:
        raise SystemTuningError(f"{path}: cannot use the saved state: {exc}") from None


def save_state(state: SavedState, path: str) -> None:
    """Write *state* atomically (readable by root only); raises
    SystemTuningError."""
    if not state.created:
        state.created = datetime.datetime.now().isoformat(timespec="seconds")
    document = {"format": STATE_FORMAT, "created": state.created, "entries": [_encode(e) for e in state.entries]}
    folder = os.path.dirname(path) or "."
    try:
        os.makedirs(folder, mode=0o755, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=".system-tune-", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump(document, file, indent=1)
                file.write("\n")
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as exc:
        raise SystemTuningError(f"{path}: cannot save the state: {exc.strerror or exc}") from None


def remove_state(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise SystemTuningError(f"{path}: cannot remove the saved state: {exc.strerror or exc}") from None
