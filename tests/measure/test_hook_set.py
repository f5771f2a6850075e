"""perf.measure.hook_set: the selected hooks entered around each sample,
in order, torn down at the end of the batch; a hook that refuses to start
is a WorkerError.  The built-in hooks are tests/measure/test_hooks.py."""

from __future__ import annotations

import pytest
from test_hooks import FakeDescriptor, recording_hook

from perf.errors import UsageError, WorkerError
from perf.measure.hook_set import HookSet
from perf.measure.hooks import HookError


def test_hooks_run_around_each_sample_in_order():
    log = []
    extra = [FakeDescriptor("a", recording_hook("a", log)), FakeDescriptor("b", recording_hook("b", log))]
    hooks = HookSet(["a", "b"], extra)
    assert hooks.names == ["a", "b"]
    assert len(hooks) == 2
    for sample in range(2):
        with hooks:
            log.append(f"sample {sample}")
    metadata = {"name": "bench"}
    hooks.teardown(metadata)
    assert log == [
        "a init",
        "b init",
        "a enter",
        "b enter",
        "sample 0",
        "b exit None",
        "a exit None",
        "a enter",
        "b enter",
        "sample 1",
        "b exit None",
        "a exit None",
        "a teardown",
        "b teardown",
    ]
    assert metadata == {"name": "bench", "a_samples": 2, "b_samples": 2, "hooks": "a, b"}


def test_hooks_see_the_error_of_the_sample():
    log = []
    hooks = HookSet(["a"], [FakeDescriptor("a", recording_hook("a", log))])
    with pytest.raises(ZeroDivisionError), hooks:
        1 / 0  # noqa: B018
    assert log[-1] == "a exit ZeroDivisionError"


def test_hooks_entered_before_a_failing_one_are_exited():
    log = []
    extra = [FakeDescriptor("a", recording_hook("a", log)), FakeDescriptor("b", recording_hook("b", log, "enter"))]
    hooks = HookSet(["a", "b"], extra)
    with pytest.raises(RuntimeError, match="b broke"), hooks:
        log.append("sample")
    assert log == ["a init", "b init", "a enter", "b enter", "a exit RuntimeError"]


def test_hook_error_becomes_a_worker_error():
    log = []
    extra = [
        FakeDescriptor("good", recording_hook("good", log)),
        FakeDescriptor("bad", recording_hook("bad", log, "init")),
    ]
    with pytest.raises(WorkerError) as error:
        HookSet(["good", "bad"], extra)
    assert str(error.value) == "hook 'bad' cannot be set up: bad is not available here"
    assert isinstance(error.value.__cause__, HookError)
    # the hook already built was told to release what it holds
    assert log == ["good init", "good teardown"]


def test_every_teardown_runs_even_when_one_fails():
    log = []
    extra = [FakeDescriptor("a", recording_hook("a", log, "teardown")), FakeDescriptor("b", recording_hook("b", log))]
    hooks = HookSet(["a", "b"], extra)
    metadata = {}
    with pytest.raises(RuntimeError, match="a teardown broke"):
        hooks.teardown(metadata)
    assert log[-2:] == ["a teardown", "b teardown"]
    assert metadata["hooks"] == "a, b"


def test_no_hooks_no_metadata():
    hooks = HookSet()
    with hooks:
        pass
    metadata = {}
    hooks.teardown(metadata)
    assert metadata == {}
    assert len(hooks) == 0


def test_unknown_name_in_hook_set():
    with pytest.raises(UsageError, match="unknown hook 'nope'"):
        HookSet(["nope"])
