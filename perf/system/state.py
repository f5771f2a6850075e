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
from dataclasses import dataclass, field
from typing import Any, Union

from perf.errors import SystemTuningError

#: where the state is kept (under the injectable root)
DEFAULT_STATE_FILE = "/run/perf/system-tune.json"
#: the "format" field of the file
STATE_FORMAT = "perf-system-state-1"


@dataclass(frozen=True)
class FileEntry:
    """A kernel file and its whole content before ``tune``."""

    path: str
    previous: str

    @property
    def key(self) -> str:
        return f"file:{self.path}"


@dataclass(frozen=True)
class MsrEntry:
    """One bit of a model-specific register of a CPU before ``tune``."""

    cpu: int
    register: int
    bit: int
    previous: bool

    @property
    def key(self) -> str:
        return f"msr:{self.cpu}:{self.register:#x}:{self.bit}"


@dataclass(frozen=True)
class ServiceEntry:
    """A service and whether it was running before ``tune``."""

    name: str
    previous: bool

    @property
    def key(self) -> str:
        return f"service:{self.name}"


Entry = Union[FileEntry, MsrEntry, ServiceEntry]


@dataclass
class SavedState:
    """The entries of a state file, in the order ``tune`` applied them."""

    entries: list[Entry] = field(default_factory=list)
    #: when the first ``tune`` saved it (local time, ISO format)
    created: str = ""

    def keys(self) -> set[str]:
        return {entry.key for entry in self.entries}

    def add(self, entry: Entry) -> bool:
        """Add *entry* unless its file/bit/service is already recorded
        (the first ``tune`` wins); True when added."""
        if entry.key in self.keys():
            return False
        self.entries.append(entry)
        return True


def _encode(entry: Entry) -> dict[str, Any]:
    if isinstance(entry, FileEntry):
        return {"kind": "file", "path": entry.path, "previous": entry.previous}
    if isinstance(entry, MsrEntry):
        return {
            "kind": "msr",
            "cpu": entry.cpu,
            "register": entry.register,
            "bit": entry.bit,
            "previous": entry.previous,
        }
    return {"kind": "service", "name": entry.name, "previous": entry.previous}


def _decode(item: Any) -> Entry:
    if not isinstance(item, dict):
        raise ValueError("an entry is not an object")
    kind = item.get("kind")
    if kind == "file" and isinstance(item.get("path"), str) and isinstance(item.get("previous"), str):
        return FileEntry(item["path"], item["previous"])
    if kind == "msr":
        cpu, register, bit = (item.get(name) for name in ("cpu", "register", "bit"))
        if (
            all(type(value) is int for value in (cpu, register, bit))
            and isinstance(cpu, int)
            and isinstance(register, int)
            and isinstance(bit, int)
            and isinstance(item.get("previous"), bool)
        ):
            return MsrEntry(cpu, register, bit, item["previous"])
    if kind == "service" and isinstance(item.get("name"), str) and isinstance(item.get("previous"), bool):
        return ServiceEntry(item["name"], item["previous"])
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
