"""perf.model.run.Run: validation, metadata collection, calibration
predicates and derived figures (doc/compatibility.rst, Run)."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

import perf.collect
from perf.errors import ResultError
from perf.model.run import Run


def make_run(values: Any = (1.0,), warmups: Any = None, **metadata: Any) -> Run:
    return Run(values, warmups=warmups, metadata=metadata, collect_metadata=False)


# --- construction --------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        [1.0],
        [1, 2, 3],
        (0.5, 1e-9),
        [1e300],
        [],  # a calibration run, when it has warmups
    ],
)
def test_valid_values(values: list[float]) -> None:
    run = Run(values, warmups=[(1, 1.0)], collect_metadata=False)
    assert run.values == tuple(values)


def test_values_from_a_generator() -> None:
    run = Run((value for value in [1.0, 2.0]), collect_metadata=False)
    assert run.values == (1.0, 2.0)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([0], "values[0]: a value must be a finite number > 0, got 0"),
        ([1.0, 0.0], "values[1]: a value must be a finite number > 0, got 0.0"),
        ([-1.0], "values[0]: a value must be a finite number > 0, got -1.0"),
        ([math.nan], "values[0]: a value must be a finite number > 0, got nan"),
        ([math.inf], "values[0]: a value must be a finite number > 0, got inf"),
        ([True], "values[0]: a value must be a finite number > 0, got True"),
        ([1.0, 2.0, "3"], "values[2]: a value must be a finite number > 0, got '3'"),
        ([None], "values[0]: a value must be a finite number > 0, got None"),
        ("123", "values must be a sequence of numbers, got str"),
        (b"123", "values must be a sequence of numbers, got bytes"),
        ({1.0: 1.0}, "values must be a sequence of numbers, got dict"),
    ],
)
def test_invalid_values(values: Any, message: str) -> None:
    with pytest.raises(ResultError, match=re.escape(message)):
        Run(values, collect_metadata=False)


@pytest.mark.parametrize(
    ("warmups", "expected"),
    [
        ([(1, 0.5)], ((1, 0.5),)),
        ([(1, 0)], ((1, 0),)),  # a warmup value may be zero
        ([[2, 0.25], [4, 0.125]], ((2, 0.25), (4, 0.125))),  # list pairs come from JSON
        (((8, 1.0),), ((8, 1.0),)),
        ([], ()),
    ],
)
def test_valid_warmups(warmups: Any, expected: tuple[tuple[int, float], ...]) -> None:
    run = Run([1.0], warmups=warmups, collect_metadata=False)
    assert run.warmups == expected
    assert all(type(pair) is tuple for pair in run.warmups)


@pytest.mark.parametrize(
    ("warmups", "message"),
    [
        ([(0, 1.0)], "warmups[0]: loops must be an int >= 1, got 0"),
        ([(1, 1.0), (-1, 1.0)], "warmups[1]: loops must be an int >= 1, got -1"),
        ([(1.0, 1.0)], "warmups[0]: loops must be an int >= 1, got 1.0"),
        ([(True, 1.0)], "warmups[0]: loops must be an int >= 1, got True"),
        ([("1", 1.0)], "warmups[0]: loops must be an int >= 1, got '1'"),
        ([(1, -0.5)], "warmups[0]: value must be a finite number >= 0, got -0.5"),
        ([(1, math.nan)], "warmups[0]: value must be a finite number >= 0, got nan"),
        ([(1, math.inf)], "warmups[0]: value must be a finite number >= 0, got inf"),
        ([(1, False)], "warmups[0]: value must be a finite number >= 0, got False"),
        ([(1, "1")], "warmups[0]: value must be a finite number >= 0, got '1'"),
        ([1.0], "warmups[0]: a warmup must be a (loops, value) pair, got 1.0"),
        ([(1, 2.0, 3.0)], "warmups[0]: a warmup must be a (loops, value) pair, got (1, 2.0, 3.0)"),
        ([(1,)], "warmups[0]: a warmup must be a (loops, value) pair, got (1,)"),
        ([{1: 2.0}], "warmups[0]: a warmup must be a (loops, value) pair, got {1: 2.0}"),
        ("12", "warmups must be a sequence of (loops, value) pairs, got str"),
        ({1: 1.0}, "warmups must be a sequence of (loops, value) pairs, got dict"),
    ],
)
def test_invalid_warmups(warmups: Any, message: str) -> None:
    with pytest.raises(ResultError, match=re.escape(message)):
        Run([1.0], warmups=warmups, collect_metadata=False)


@pytest.mark.parametrize(("values", "warmups"), [(None, None), (1.0, None), ([1.0], 3)])
def test_not_iterable_is_a_type_error(values: Any, warmups: Any) -> None:
    with pytest.raises(TypeError):
        Run(values, warmups=warmups, collect_metadata=False)


@pytest.mark.parametrize("warmups", [None, [], ()])
def test_values_and_warmups_cannot_both_be_empty(warmups: Any) -> None:
    with pytest.raises(ResultError, match=re.escape("a run needs values or warmups: both are empty")):
        Run([], warmups=warmups, collect_metadata=False)


def test_warmups_only_is_a_valid_run() -> None:
    run = Run([], warmups=[(1, 0.5)], collect_metadata=False)
    assert run.values == ()
    assert run.warmups == ((1, 0.5),)


def test_invalid_metadata_is_rejected() -> None:
    with pytest.raises(ResultError, match=re.escape("metadata 'loops': must be >= 1, got 0")):
        Run([1.0], metadata={"loops": 0}, collect_metadata=False)


def test_metadata_must_be_a_mapping() -> None:
    with pytest.raises(ResultError, match=re.escape("metadata must be a dict, got list")):
        Run([1.0], metadata=[("name", "bench")], collect_metadata=False)  # type: ignore[arg-type]


def test_metadata_is_validated_and_stripped() -> None:
    run = make_run(name=" bench ", loops=4)
    assert run.get_metadata() == {"name": "bench", "loops": 4}


@pytest.mark.parametrize("metadata", [None, {}])
def test_no_metadata(metadata: Any) -> None:
    assert Run([1.0], metadata=metadata, collect_metadata=False).get_metadata() == {}


def test_metadata_dict_is_not_kept_by_reference() -> None:
    metadata = {"name": "bench"}
    run = Run([1.0], metadata=metadata, collect_metadata=False)
    metadata["name"] = "changed"
    assert run.get_metadata()["name"] == "bench"


# --- metadata collection -------------------------------------------------------


def test_collect_metadata_on_this_system() -> None:
    run = Run([1.0], metadata={"name": "bench"})
    metadata = run.get_metadata()
    for key in ("date", "python_implementation", "platform", "perf_version"):
        assert key in metadata
    assert metadata["name"] == "bench"


def test_collect_metadata_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(perf.collect, "collect_metadata", lambda: {"hostname": "collected"})
    assert Run([1.0]).get_metadata() == {"hostname": "collected"}


def test_user_metadata_overrides_collected_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    collected = {"hostname": "collected", "date": "2024-01-02 03:04:05", "platform": "Linux"}
    monkeypatch.setattr(perf.collect, "collect_metadata", lambda: dict(collected))
    run = Run([1.0], metadata={"hostname": "mine", "name": "bench"})
    assert run.get_metadata() == {
        "hostname": "mine",
        "date": "2024-01-02 03:04:05",
        "platform": "Linux",
        "name": "bench",
    }


def test_collected_metadata_is_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(perf.collect, "collect_metadata", lambda: {"load_avg_1min": -1.0})
    with pytest.raises(ResultError, match=re.escape("metadata 'load_avg_1min': must be >= 0, got -1.0")):
        Run([1.0])


def test_collect_metadata_false_collects_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail() -> dict[str, Any]:
        raise AssertionError("collect_metadata() must not be called")

    monkeypatch.setattr(perf.collect, "collect_metadata", fail)
    assert make_run(name="bench").get_metadata() == {"name": "bench"}


def test_list_metadata_is_not_shared_with_the_caller() -> None:
    tags = ["numeric"]
    run = make_run(name="bench", tags=tags)
    tags.append("all")
    assert run.get_metadata()["tags"] == ["numeric"]


@pytest.mark.parametrize(("key", "value"), [("tags", ["numeric"]), ("tags", [])])
def test_get_metadata_lists_are_copies(key: str, value: list[str]) -> None:
    run = make_run(name="bench", **{key: list(value)})
    run.get_metadata()[key].append("x")
    assert run.get_metadata()[key] == value


# --- accessors -----------------------------------------------------------------


def test_values_and_warmups_are_tuples() -> None:
    run = Run([1.0, 2.0], warmups=[[1, 3.0]], collect_metadata=False)
    assert type(run.values) is tuple
    assert type(run.warmups) is tuple
    assert run.values == (1.0, 2.0)
    assert run.warmups == ((1, 3.0),)


def test_warmups_default_to_an_empty_tuple() -> None:
    assert make_run().warmups == ()


def test_get_metadata_returns_a_copy() -> None:
    run = make_run(name="bench")
    copy = run.get_metadata()
    copy["name"] = "changed"
    copy["extra"] = 1
    assert run.get_metadata() == {"name": "bench"}


@pytest.mark.parametrize(
    ("metadata", "loops", "inner_loops", "total_loops"),
    [
        ({}, 1, 1, 1),
        ({"loops": 8}, 8, 1, 8),
        ({"inner_loops": 10}, 1, 10, 10),
        ({"loops": 2**10, "inner_loops": 3}, 1024, 3, 3072),
    ],
)
def test_loops(metadata: dict[str, int], loops: int, inner_loops: int, total_loops: int) -> None:
    run = make_run(**metadata)
    assert run.get_loops() == loops
    assert run.get_inner_loops() == inner_loops
    assert run.get_total_loops() == total_loops


def test_repr() -> None:
    run = make_run((1.0, 2.0), warmups=[(1, 1.0)], name="bench")
    assert repr(run) == "<Run name='bench' values=2 warmups=1>"


# --- immutability --------------------------------------------------------------


def test_slots() -> None:
    assert set(Run.__slots__) == {"_warmups", "_values", "_metadata"}
    run = make_run()
    assert not hasattr(run, "__dict__")
    with pytest.raises(AttributeError):
        run.new_attribute = 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("attribute", ["values", "warmups"])
def test_properties_are_read_only(attribute: str) -> None:
    run = make_run()
    with pytest.raises(AttributeError):
        setattr(run, attribute, (2.0,))


# --- calibration -----------------------------------------------------------------

CALIBRATION_CASES = {
    # name: (values, metadata, is_calibration, loops, recalibration_loops, warmups, recalibration_warmups)
    "values": ((1.0,), {"loops": 4}, False, False, False, False, False),
    "values_with_calibrate_key": ((1.0,), {"calibrate_loops": 4}, False, False, False, False, False),
    "calibrate_loops": ((), {"calibrate_loops": 16, "loops": 16}, True, True, False, False, False),
    "recalibrate_loops": ((), {"recalibrate_loops": 32}, True, False, True, False, False),
    "calibrate_warmups": ((), {"calibrate_warmups": 3}, True, False, False, True, False),
    "recalibrate_warmups": ((), {"recalibrate_warmups": 5}, True, False, False, False, True),
    # files from perf <= 1.1: a run without values and without any key
    "old_file": ((), {"loops": 64}, True, True, False, False, False),
}


@pytest.mark.parametrize("case", sorted(CALIBRATION_CASES))
def test_calibration_predicates(case: str) -> None:
    values, metadata, calibration, loops, reloops, warmups, rewarmups = CALIBRATION_CASES[case]
    run = make_run(values, warmups=[(1, 0.5)], **metadata)
    assert run.is_calibration() is calibration
    assert run.is_calibration_loops() is loops
    assert run.is_recalibration_loops() is reloops
    assert run.is_calibration_warmups() is warmups
    assert run.is_recalibration_warmups() is rewarmups


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"calibrate_loops": 16}, 16),
        ({"recalibrate_loops": 32}, 32),
        ({"calibrate_loops": 16, "loops": 2}, 16),
        ({"loops": 64}, 64),  # perf <= 1.1: the loops of the run
        ({}, 1),
    ],
)
def test_get_calibration_loops(metadata: dict[str, int], expected: int) -> None:
    run = make_run((), warmups=[(1, 0.5)], **metadata)
    assert run.get_calibration_loops() == expected


@pytest.mark.parametrize(
    ("values", "metadata"),
    [((1.0,), {"loops": 4}), ((), {"calibrate_warmups": 3}), ((), {"recalibrate_warmups": 3})],
)
def test_get_calibration_loops_of_other_runs(values: tuple[float, ...], metadata: dict[str, int]) -> None:
    run = make_run(values, warmups=[(1, 0.5)], **metadata)
    with pytest.raises(ResultError, match=re.escape("the run is not a loop calibration")):
        run.get_calibration_loops()


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [({"calibrate_warmups": 3}, 3), ({"recalibrate_warmups": 0}, 0), ({"recalibrate_warmups": 7}, 7)],
)
def test_get_calibration_warmups(metadata: dict[str, int], expected: int) -> None:
    run = make_run((), warmups=[(1, 0.5)], **metadata)
    assert run.get_calibration_warmups() == expected


@pytest.mark.parametrize("metadata", [{}, {"calibrate_loops": 4}, {"loops": 4}])
def test_get_calibration_warmups_of_other_runs(metadata: dict[str, int]) -> None:
    run = make_run((), warmups=[(1, 0.5)], **metadata)
    with pytest.raises(ResultError, match=re.escape("the run is not a warmup calibration")):
        run.get_calibration_warmups()


# --- raw values and duration ---------------------------------------------------------


def test_get_raw_values() -> None:
    run = make_run((1.0, 2.0), warmups=[(2, 0.5), (4, 0.25)], loops=4, inner_loops=3)
    assert run.get_raw_values() == [12.0, 24.0]
    # warmups first, each multiplied by its own loops and the inner loops
    assert run.get_raw_values(warmups=True) == [3.0, 3.0, 12.0, 24.0]


def test_get_raw_values_of_a_calibration_run() -> None:
    run = make_run((), warmups=[(1, 0.5), (2, 0.5)], calibrate_loops=2)
    assert run.get_raw_values() == []
    assert run.get_raw_values(warmups=True) == [0.5, 1.0]


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"duration": 2.5}, 2.5),
        ({"duration": 3}, 3.0),
        ({"duration": 0}, 0.0),
        # no duration: raw values and warmups: 0.5*2 + (1.0 + 2.0)*2
        ({"loops": 2}, 7.0),
        # counts are no seconds: a count run without duration took no known time
        ({"loops": 2, "counter_source": "cachegrind"}, 0.0),
        ({"duration": 14.5, "counter_source": "cachegrind"}, 14.5),
    ],
)
def test_get_duration(metadata: dict[str, float], expected: float) -> None:
    run = make_run((1.0, 2.0), warmups=[(2, 0.5)], **metadata)
    duration = run.get_duration()
    assert duration == expected
    assert isinstance(duration, float)


def test_get_date() -> None:
    assert make_run(date="2024-01-02 03:04:05").get_date() == "2024-01-02 03:04:05"
    assert make_run().get_date() is None


# --- copies with changes -----------------------------------------------------------


def test_remove_warmups() -> None:
    run = make_run((1.0,), warmups=[(1, 0.5)], name="bench")
    copy = run.remove_warmups()
    assert copy is not run
    assert copy.warmups == ()
    assert copy.values == (1.0,)
    assert copy.get_metadata() == {"name": "bench"}
    assert run.warmups == ((1, 0.5),)


def test_remove_warmups_without_warmups_returns_the_run() -> None:
    run = make_run((1.0,))
    assert run.remove_warmups() is run


def test_remove_warmups_keeps_a_calibration_run_valid() -> None:
    run = make_run((), warmups=[(1, 0.5)], calibrate_loops=1)
    assert run.remove_warmups() is run


def test_metadata_must_be_a_mapping_even_when_collecting() -> None:
    with pytest.raises(ResultError, match=re.escape("metadata must be a dict, got list")):
        Run([1.0], metadata=[("name", "b")])  # type: ignore[arg-type]
