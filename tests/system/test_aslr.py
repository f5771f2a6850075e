"""perf.system.aslr: the state of /proc/sys/kernel/randomize_va_space and
the writes planned to get full randomization back."""

from __future__ import annotations

from pathlib import Path

import pytest
from system_fakes import MACHINES, FakeServiceManager, build, snapshot

from perf.platform.sysfs import SysFS
from perf.system.aslr import ASLR
from perf.system.operation import Context, FileChange, Messages

PATH = "/proc/sys/kernel/randomize_va_space"
ADVICE = (
    "ASLR: Enable full randomization (write 2 into /proc/sys/kernel/randomize_va_space): "
    "each worker process then runs with a new memory layout"
)
ENABLE = FileChange(PATH, "2", "Full randomization enabled")


def context(root: Path, files: dict[str, str | bytes]) -> Context:
    build(root, files)
    return Context(SysFS(root), FakeServiceManager(), [0, 1], [0, 1], True)


def show(ctx: Context) -> Messages:
    messages = Messages()
    ASLR().show(ctx, messages)
    return messages


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_full_randomization_on_every_fake_machine(tmp_path: Path, machine: str) -> None:
    ctx = context(tmp_path, MACHINES[machine])
    assert ASLR().available(ctx)
    assert show(ctx) == Messages(states=["ASLR: Full randomization"])
    assert ASLR().tune(ctx, Messages()) == ()
    assert ASLR().defaults(ctx, Messages()) == ()


@pytest.mark.parametrize(("value", "state"), [("0", "No randomization"), ("1", "Conservative randomization")])
def test_less_than_full_randomization_is_not_tuned(tmp_path: Path, value: str, state: str) -> None:
    ctx = context(tmp_path, {**MACHINES["intel_laptop"], PATH: value + "\n"})
    assert show(ctx) == Messages(states=[f"ASLR: {state}"], advices=[ADVICE], not_tuned=["ASLR"])


@pytest.mark.parametrize("value", ["0", "1"])
def test_tune_and_defaults_plan_writing_2(tmp_path: Path, value: str) -> None:
    ctx = context(tmp_path, {**MACHINES["vm"], PATH: value + "\n"})
    before = snapshot(tmp_path)
    messages = Messages()
    assert ASLR().tune(ctx, messages) == (ENABLE,)
    assert ASLR().defaults(ctx, messages) == (ENABLE,)
    assert messages == Messages()
    assert snapshot(tmp_path) == before  # planned, not written


@pytest.mark.parametrize("value", ["3\n", "-1\n", "full\n", "\n", "+2\n"])
def test_garbage_is_an_error(tmp_path: Path, value: str) -> None:
    ctx = context(tmp_path, {**MACHINES["amd_box"], PATH: value})
    assert show(ctx) == Messages(errors=[f"ASLR: Unexpected value {value.rstrip()!r} in {PATH}"])
    # nothing planned on an unknown value (the show after tune reports it)
    messages = Messages()
    assert ASLR().tune(ctx, messages) == ()
    assert ASLR().defaults(ctx, messages) == ()
    assert messages == Messages()


def test_missing_file(tmp_path: Path) -> None:
    files = dict(MACHINES["isolated_split"])
    del files[PATH]
    ctx = context(tmp_path, files)
    assert not ASLR().available(ctx)
    assert show(ctx) == Messages(errors=[f"ASLR: Unable to read {PATH}"])
    assert ASLR().tune(ctx, Messages()) == ()
