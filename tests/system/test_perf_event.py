"""perf.system.perf_event: the maximum sample rate of perf events, and the
writes planned to lower it to 1 per second and to put the default back."""

from __future__ import annotations

from pathlib import Path

import pytest
from system_fakes import MACHINES, FakeServiceManager, build, snapshot

from perf.platform.sysfs import SysFS
from perf.system.operation import Context, FileChange, Messages
from perf.system.perf_event import PerfEvent

PATH = "/proc/sys/kernel/perf_event_max_sample_rate"
ADVICE = (
    "Perf event: Set the maximum sample rate to 1 per second "
    "(write 1 into /proc/sys/kernel/perf_event_max_sample_rate) so that perf events rarely interrupt benchmarks"
)
TUNE = FileChange(PATH, "1", "Max sample rate set to 1 per second")
DEFAULT = FileChange(PATH, "100000", "Max sample rate set to 100000 per second")


def context(root: Path, files: dict[str, str | bytes]) -> Context:
    build(root, files)
    return Context(SysFS(root), FakeServiceManager(), [0, 1], [0, 1], True)


def show(ctx: Context) -> Messages:
    messages = Messages()
    PerfEvent().show(ctx, messages)
    return messages


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_default_rate_is_not_tuned(tmp_path: Path, machine: str) -> None:
    ctx = context(tmp_path, MACHINES[machine])
    assert PerfEvent().available(ctx)
    assert show(ctx) == Messages(
        states=["Perf event: Maximum sample rate: 100000 per second"], advices=[ADVICE], not_tuned=["Perf event"]
    )
    before = snapshot(tmp_path)
    messages = Messages()
    assert PerfEvent().tune(ctx, messages) == (TUNE,)
    assert PerfEvent().defaults(ctx, messages) == ()  # already the default
    assert messages == Messages()
    assert snapshot(tmp_path) == before


def test_rate_1_is_tuned(tmp_path: Path) -> None:
    ctx = context(tmp_path, {**MACHINES["intel_laptop"], PATH: "1\n"})
    assert show(ctx) == Messages(states=["Perf event: Maximum sample rate: 1 per second"])
    assert PerfEvent().tune(ctx, Messages()) == ()
    assert PerfEvent().defaults(ctx, Messages()) == (DEFAULT,)


def test_rate_lowered_by_the_kernel(tmp_path: Path) -> None:
    # the kernel lowers the rate by itself when sampling takes too long
    ctx = context(tmp_path, {**MACHINES["amd_box"], PATH: "39750\n"})
    assert show(ctx) == Messages(
        states=["Perf event: Maximum sample rate: 39750 per second"], advices=[ADVICE], not_tuned=["Perf event"]
    )
    assert PerfEvent().tune(ctx, Messages()) == (TUNE,)
    assert PerfEvent().defaults(ctx, Messages()) == (DEFAULT,)


@pytest.mark.parametrize("value", ["fast\n", "-1\n", "1.5\n", "\n", "\u0661\n"])
def test_garbage_is_an_error(tmp_path: Path, value: str) -> None:
    ctx = context(tmp_path, {**MACHINES["vm"], PATH: value})
    assert show(ctx) == Messages(errors=[f"Perf event: Unexpected value {value.rstrip()!r} in {PATH}"])
    messages = Messages()
    assert PerfEvent().tune(ctx, messages) == ()
    assert PerfEvent().defaults(ctx, messages) == ()
    assert messages == Messages()


def test_missing_file(tmp_path: Path) -> None:
    files = dict(MACHINES["vm"])
    del files[PATH]
    ctx = context(tmp_path, files)
    assert not PerfEvent().available(ctx)
    assert show(ctx) == Messages(errors=[f"Perf event: Unable to read {PATH}"])
    assert PerfEvent().tune(ctx, Messages()) == ()
    assert PerfEvent().defaults(ctx, Messages()) == ()
