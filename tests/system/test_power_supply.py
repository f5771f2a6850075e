"""perf.system.power_supply: whether the power cable is plugged, from the
Mains supplies and, without one, from the batteries."""

from __future__ import annotations

from pathlib import Path

import pytest
from system_fakes import INTEL_ON_BATTERY, MACHINES, FakeServiceManager, build, snapshot

from perf.platform.sysfs import SysFS
from perf.system.operation import Context, Messages
from perf.system.power_supply import PowerSupply

SUPPLY = "/sys/class/power_supply"
PLUGGED = Messages(states=["Power supply: the power cable is plugged"])
UNPLUGGED = Messages(
    states=["Power supply: the power cable is unplugged"],
    advices=[
        "Power supply: Plug the power cable: on battery, the firmware and the kernel limit CPU performance "
        "to save power"
    ],
    not_tuned=["Power supply"],
)


def context(root: Path, files: dict[str, str | bytes]) -> Context:
    build(root, files)
    return Context(SysFS(root), FakeServiceManager(), [0, 1, 2, 3], [0, 1, 2, 3], True)


def show(ctx: Context) -> Messages:
    messages = Messages()
    PowerSupply().show(ctx, messages)
    return messages


def without_mains(files: dict[str, str | bytes]) -> dict[str, str | bytes]:
    return {path: text for path, text in files.items() if not path.startswith(f"{SUPPLY}/AC/")}


def test_laptop_on_mains(tmp_path: Path) -> None:
    ctx = context(tmp_path, MACHINES["intel_laptop"])
    assert PowerSupply().available(ctx)
    assert show(ctx) == PLUGGED


def test_laptop_on_battery(tmp_path: Path) -> None:
    ctx = context(tmp_path, INTEL_ON_BATTERY)
    assert PowerSupply().available(ctx)
    assert show(ctx) == UNPLUGGED
    # nothing can plug the cable: tune plans nothing, writes nothing
    before = snapshot(tmp_path)
    assert PowerSupply().tune(ctx, Messages()) == ()
    assert PowerSupply().defaults(ctx, Messages()) == ()
    assert snapshot(tmp_path) == before


def test_mains_offline_wins_over_the_battery_status(tmp_path: Path) -> None:
    files = {**MACHINES["intel_laptop"], f"{SUPPLY}/AC/online": "0\n"}  # battery still says Full
    assert show(context(tmp_path, files)) == UNPLUGGED


def test_one_of_two_mains_online(tmp_path: Path) -> None:
    files = {
        **INTEL_ON_BATTERY,
        f"{SUPPLY}/ADP1/type": "Mains\n",
        f"{SUPPLY}/ADP1/online": "1\n",
    }
    assert show(context(tmp_path, files)) == PLUGGED


@pytest.mark.parametrize(
    ("status", "expected"),
    [("Discharging", UNPLUGGED), ("Charging", PLUGGED), ("Full", PLUGGED), ("Not charging", PLUGGED)],
)
def test_batteries_alone(tmp_path: Path, status: str, expected: Messages) -> None:
    files = {**without_mains(MACHINES["intel_laptop"]), f"{SUPPLY}/BAT0/status": status + "\n"}
    ctx = context(tmp_path, files)
    assert PowerSupply().available(ctx)
    assert show(ctx) == expected


def test_battery_of_a_device_is_ignored(tmp_path: Path) -> None:
    # a desktop whose only power supply is the battery of a wireless mouse
    files = {
        **MACHINES["amd_box"],
        f"{SUPPLY}/hid-mouse-battery/type": "Battery\n",
        f"{SUPPLY}/hid-mouse-battery/scope": "Device\n",
        f"{SUPPLY}/hid-mouse-battery/status": "Discharging\n",
    }
    assert not PowerSupply().available(context(tmp_path, files))


@pytest.mark.parametrize("machine", ["amd_box", "vm", "isolated_split"])
def test_no_power_supply_folder(tmp_path: Path, machine: str) -> None:
    ctx = context(tmp_path, MACHINES[machine])
    assert not PowerSupply().available(ctx)
    assert show(ctx) == Messages()


def test_garbage_online(tmp_path: Path) -> None:
    files = {**MACHINES["intel_laptop"], f"{SUPPLY}/AC/online": "maybe\n"}
    assert show(context(tmp_path, files)) == Messages(
        errors=[f"Power supply: Unexpected value 'maybe' in {SUPPLY}/AC/online"]
    )


def test_missing_online(tmp_path: Path) -> None:
    files = dict(MACHINES["intel_laptop"])
    del files[f"{SUPPLY}/AC/online"]
    assert show(context(tmp_path, files)) == Messages(errors=[f"Power supply: Unable to read {SUPPLY}/AC/online"])
