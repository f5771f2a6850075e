"""The state file of system tune: saved before the first write, first tune wins."""

from __future__ import annotations

import json
import os

import pytest

from perf.errors import SystemTuningError
from perf.system.state import (
    STATE_FORMAT,
    FileEntry,
    MsrEntry,
    SavedState,
    ServiceEntry,
    load_state,
    remove_state,
    save_state,
)

ENTRIES = [
    FileEntry("/proc/sys/kernel/perf_event_max_sample_rate", "100000\n"),
    MsrEntry(3, 0x1A0, 38, False),
    ServiceEntry("irqbalance", True),
    FileEntry("/proc/irq/24/smp_affinity", "00000000,00000003\n"),
]


def test_round_trip_keeps_order_and_bytes(tmp_path):
    path = str(tmp_path / "run" / "perf" / "state.json")  # folders created
    save_state(SavedState(list(ENTRIES)), path)
    loaded = load_state(path)
    assert loaded is not None
    assert loaded.entries == ENTRIES
    assert loaded.created  # stamped on the first save
    with open(path) as file:
        assert json.load(file)["format"] == STATE_FORMAT
    assert not [name for name in os.listdir(tmp_path / "run" / "perf") if name.startswith(".")]  # no temporary left


def test_first_value_wins():
    state = SavedState([FileEntry("/a", "old\n")])
    assert not state.add(FileEntry("/a", "tuned\n"))
    assert state.add(FileEntry("/b", "x"))
    assert state.entries == [FileEntry("/a", "old\n"), FileEntry("/b", "x")]
    assert state.add(MsrEntry(0, 0x1A0, 38, True))  # a new bit is added
    assert not state.add(MsrEntry(0, 0x1A0, 38, False))


def test_missing_file_is_no_state(tmp_path):
    assert load_state(str(tmp_path / "none.json")) is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{oops", "cannot read the saved state"),
        ("[]", "not a perf-system-state-1 file"),
        ('{"format": "perf-system-state-1"}', "no entry list"),
        ('{"format": "perf-system-state-1", "entries": [{"kind": "file", "path": 3}]}', "invalid entry"),
        (
            '{"format": "perf-system-state-1", "entries": [{"kind": "msr", "cpu": true, "register": 1, "bit": 2, '
            '"previous": true}]}',
            "invalid entry",
        ),
    ],
)
def test_unusable_state_is_an_error_naming_the_file(tmp_path, content, message):
    path = tmp_path / "state.json"
    path.write_text(content)
    with pytest.raises(SystemTuningError, match=message) as info:
        load_state(str(path))
    assert str(info.value).startswith(f"{path}: ")


def test_save_into_an_unwritable_place_is_an_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SystemTuningError, match="cannot save the state"):
        save_state(SavedState(list(ENTRIES)), str(blocker / "state.json"))


def test_remove(tmp_path):
    path = tmp_path / "state.json"
    save_state(SavedState(list(ENTRIES)), str(path))
    remove_state(str(path))
    assert not path.exists()
    remove_state(str(path))  # already gone: fine
