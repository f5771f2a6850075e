"""python -m perf history add, reindex, show and changes: output, exit
status and one-line errors."""

from __future__ import annotations

import json
import math
import os

import pytest
from helpers import history_cli as run

import perf
from perf.history.timelines import Change, CommitPoint, Spike, Timeline
from perf.storage import files

COMMIT_A = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
COMMIT_B = "2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c"
COMMIT_C = "3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d"


def write_result(
    path, *, commit=COMMIT_A, date="2026-10-19T12:00:00+02:00", hostname="m1", names=("b1", "b2"), scale=1.0
):
    metadata = {"commit_id": commit, "commit_date": date, "hostname": hostname}
    metadata = {key: value for key, value in metadata.items() if value is not None}
    suite = perf.BenchmarkSuite(
        [
            perf.Benchmark(
                [
                    perf.Run(
                        [scale * (1 + number) * 1e-3 * (1 + 0.01 * process), scale * (1 + number) * 1e-3],
                        metadata={"name": name, **metadata},
                        collect_metadata=False,
                    )
                    for process in range(4)
                ]
            )
            for number, name in enumerate(names)
        ]
    )
    files.dump(suite, str(path))
    return str(path)


@pytest.fixture
def store(tmp_path, capsys):
    """A store with three commits on m1 (b2 missing at the second) and one
    on m2."""
    path = tmp_path / "store"
    sources = [
        write_result(tmp_path / "a.json", commit=COMMIT_A, date="2026-10-17T10:00:00+00:00"),
        write_result(tmp_path / "b.json", commit=COMMIT_B, date="2026-10-18T10:00:00+00:00", names=("b1",)),
        write_result(tmp_path / "c.json", commit=COMMIT_C, date="2026-10-19T10:00:00+00:00", scale=1.5),
        write_result(tmp_path / "d.json", commit=COMMIT_A, date="2026-10-17T10:00:00+00:00", hostname="m2"),
    ]
    assert run(capsys, "add", path, *sources)[0] == 0
    return path


# --- add ------------------------------------------------------------------


def test_add_prints_one_line_per_file(tmp_path, capsys):
    first = write_result(tmp_path / "a.json")
    second = write_result(tmp_path / "b.json", commit=COMMIT_B, date=None, names=("b1",))
    status, out, err = run(capsys, "add", tmp_path / "store", first, second)
    assert (status, err) == (0, "")
    assert out == (
        f"Added {first}: commit 1a2b3c4d (2026-10-19), machine m1, 2 benchmarks\n"
        f"Added {second}: commit 2b3c4d5e (no date), machine m1, 1 benchmark\n"
    )


def test_add_with_options(tmp_path, capsys):
    source = write_result(tmp_path / "a.json", commit=None, date=None)
    status, out, _ = run(
        capsys,
        "add",
        tmp_path / "store",
        source,
        "--commit",
        COMMIT_C,
        "--date",
        "2026-11-03T08:00:00Z",
        "--branch",
        "main",
        "--machine",
        "speed",
    )
    assert status == 0
    assert out == f"Added {source}: commit 3c4d5e6f (2026-11-03), machine speed, 2 benchmarks\n"
    with open(next((tmp_path / "store" / "results" / "speed").glob("*.history.json"))) as fp:
        assert json.load(fp)["branch"] == "main"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda tmp: write_result(tmp / "x.json", commit=None),
            "{file} has no commit: no commit_id metadata (give --commit)",
        ),
        (lambda tmp: (tmp / "x.json").write_text("{}") and str(tmp / "x.json"), "{file}: "),
        (lambda tmp: str(tmp / "missing.json"), "{file}: cannot read: No such file or directory"),
    ],
    ids=["no-commit", "corrupt", "missing"],
)
def test_add_refuses_a_bad_file_and_adds_nothing(store, tmp_path, capsys, make, message):
    good = write_result(tmp_path / "good.json", commit="f" * 40)
    bad = make(tmp_path)
    before = sorted(os.listdir(store / "results" / "m1"))
    status, out, err = run(capsys, "add", store, good, bad)
    assert (status, out) == (1, "")
    assert err.startswith("ERROR: " + message.format(file=bad))
    assert err.count("\n") == 1
    assert sorted(os.listdir(store / "results" / "m1")) == before
    assert "ffffffff" not in run(capsys, "show", store, "-b", "b1")[1]


def test_add_the_same_file_twice(store, tmp_path, capsys):
    source = str(tmp_path / "a.json")
    status, _, err = run(capsys, "add", store, source)
    assert status == 1
    assert err.startswith(f"ERROR: {source} is already in the store (as results/m1/{COMMIT_A}-")
    new = write_result(tmp_path / "new.json", commit="e" * 40)
    status, _, err = run(capsys, "add", tmp_path / "other", new, new)
    assert (status, err) == (1, f"ERROR: {new} is the same file as {new} (given twice)\n")


def test_add_a_bad_date_is_a_usage_error(tmp_path, capsys):
    source = write_result(tmp_path / "a.json")
    status, out, err = run(capsys, "add", tmp_path / "store", source, "--date", "19/10/2026")
    assert (status, out) == (2, "")
    assert err == "ERROR: --date must be an ISO-8601 date (2026-10-19T12:30:00+02:00), got '19/10/2026'\n"
    assert not (tmp_path / "store" / "results" / "m1").exists()


def test_add_to_a_folder_that_is_not_a_store(tmp_path, capsys):
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "notes.txt").write_text("")
    status, _, err = run(capsys, "add", tmp_path / "folder", write_result(tmp_path / "a.json"))
    assert status == 1
    assert (
        err
        == f"ERROR: {tmp_path / 'folder'} is not a perf history store (it has no perf-history.json and is not empty)\n"
    )


def test_nothing_after_double_dash(tmp_path, capsys):
    status, _, err = run(capsys, "add", tmp_path / "store", write_result(tmp_path / "a.json"), "--", "x")
    assert (status, err) == (2, "ERROR: history add takes no command after --: x\n")


# --- reindex --------------------------------------------------------------


def test_reindex(store, capsys):
    os.unlink(store / "index.sqlite")
    status, out, _ = run(capsys, "reindex", store)
    assert (status, out) == (0, f"Reindexed {store}: 4 recordings (2 benchmarks, 2 machines)\n")


@pytest.mark.parametrize("action", ["reindex", "show", "changes"])
def test_a_missing_store(tmp_path, capsys, action):
    status, out, err = run(capsys, action, tmp_path / "nothing")
    assert (status, out) == (1, "")
    assert err == f"ERROR: {tmp_path / 'nothing'}: no such history store (history add creates one)\n"
    assert not (tmp_path / "nothing").exists()


@pytest.mark.parametrize("action", ["reindex", "show", "changes"])
def test_not_a_store(tmp_path, capsys, action):
    source = write_result(tmp_path / "a.json")
    status, _, err = run(capsys, action, source)
    assert status == 1
    assert err == f"ERROR: {source} is not a perf history store (it has no perf-history.json)\n"


# --- show and changes: the real timelines -----------------------------------


def test_show_a_store(store, capsys):
    status, out, err = run(capsys, "show", store, "--machine", "m1")
    assert (status, err) == (0, "")
    assert out.startswith("b1 on m1\n========\n\ncommit        date        ")
    b1 = out.split("b2 on m1")[0]
    assert [line[:12] for line in b1.splitlines()[4:7]] == [COMMIT_A[:12], COMMIT_B[:12], COMMIT_C[:12]]
    b2 = out.split("b2 on m1")[1]
    # b2 was not measured at COMMIT_B: its timeline lacks that commit
    assert COMMIT_B[:12] not in b2
    assert [line[:12] for line in b2.splitlines()[4:6]] == [COMMIT_A[:12], COMMIT_C[:12]]
    assert "2026-10-17" in b1
    assert "m2" not in out


def test_show_one_benchmark_on_every_machine(store, capsys):
    status, out, _ = run(capsys, "show", store, "-b", "b2")
    assert status == 0
    titles = [line for line in out.splitlines() if " on " in line]
    assert titles == ["b2 on m1", "b2 on m2"]


def test_changes_without_any(store, capsys):
    status, out, _ = run(capsys, "changes", store, "-b", "b1", "--machine", "m2")
    assert (status, out) == (0, "No change detected in 1 timeline.\n")
    status, out, _ = run(capsys, "changes", store, "--json", "--machine", "m2")
    assert (status, json.loads(out)) == (0, [])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-b", "b11"], "unknown benchmark: b11 (did you mean b1?)"),
        (["-b", "b1", "-b", "nothing_like_it"], "unknown benchmark: nothing_like_it (benchmarks: b1, b2)"),
        (["--machine", "m22"], "unknown machine: m22 (did you mean m2?)"),
        (["--machine", "speed"], "unknown machine: speed (machines: m1, m2)"),
    ],
)
@pytest.mark.parametrize("action", ["show", "changes"])
def test_unknown_names(store, capsys, action, args, message):
    status, out, err = run(capsys, action, store, *args)
    assert (status, out, err) == (2, "", f"ERROR: {message}\n")


def test_show_an_empty_store(tmp_path, capsys):
    from perf.history.store import HistoryStore

    HistoryStore.open_or_create(str(tmp_path / "store")).close()
    status, out, _ = run(capsys, "show", tmp_path / "store")
    assert (status, out) == (0, f"No recording in {tmp_path / 'store'}.\n")
    status, _, err = run(capsys, "show", tmp_path / "store", "-b", "x")
    assert (status, err) == (2, "ERROR: unknown benchmark: x (the store has no recording)\n")


# --- show and changes: the text, from hand-built timelines ------------------


def point(commit, mean, processes=20, spread=0.01, date="2026-10-17T10:00:00+02:00"):
    return CommitPoint(commit, date, mean, mean * (1 - spread), mean * (1 + spread), processes, 1)


def step_timeline(benchmark="call_method", machine="speed-1"):
    commits = (
        point(COMMIT_A, 17.0e-3),
        point(COMMIT_B, 29.0e-3, date="2026-10-19T09:00:00Z"),
        point(COMMIT_C, 40.0e-3, date=None),
        point("4" * 40, 17.1e-3, processes=1, spread=math.inf),
    )
    changes = (
        Change(benchmark, machine, COMMIT_A, COMMIT_B, 1, 29.0 / 17.0, 1.69, 1.72, "slower"),
        Change(benchmark, machine, COMMIT_C, "4" * 40, 3, 0.4275, 0.42, 0.43, "faster"),
    )
    spikes = (Spike(benchmark, machine, COMMIT_C, 2, 1.38),)
    return Timeline(benchmark, machine, "second", commits, changes, spikes)


@pytest.fixture
def fake_timelines(store, monkeypatch):
    """``timelines()`` returns these (the store is a real one, for the
    names' checks); records the arguments it was given."""
    calls = []
    found = []

    def timelines(store_object, benchmarks=None, machine=None, detect=True):
        calls.append((benchmarks, machine))
        return list(found)

    monkeypatch.setattr("perf.history.timelines.timelines", timelines)
    return found, calls


def test_show_text(store, capsys, fake_timelines):
    found, calls = fake_timelines
    found += [step_timeline(), Timeline("quiet", "speed-1", "byte", (point(COMMIT_A, 2048.0),), (), ())]
    status, out, _ = run(capsys, "show", store, "-b", "b1", "--machine", "m1")
    assert status == 0
    assert calls == [(["b1"], "m1")]
    assert out == (
        "call_method on speed-1\n"
        "======================\n"
        "\n"
        "commit        date           mean  95% CI                processes\n"
        "1a2b3c4d5e6f  2026-10-17  17.0 ms  [16.8 ms .. 17.2 ms]         20\n"
        "2b3c4d5e6f7a  2026-10-19  29.0 ms  [28.7 ms .. 29.3 ms]         20  <- change: 1.706x [1.690x .. 1.720x] slower\n"
        "3c4d5e6f7a8b  -           40.0 ms  [39.6 ms .. 40.4 ms]         20  <- spike: 1.380x of its neighbours\n"
        "444444444444  2026-10-17  17.1 ms  -                             1  <- change: 0.427x [0.420x .. 0.430x] faster\n"
        "\n"
        "4 commits: 2 changes, 1 spike\n"
        "\n"
        "quiet on speed-1\n"
        "================\n"
        "\n"
        "commit        date              mean  95% CI                      processes\n"
        "1a2b3c4d5e6f  2026-10-17  2048 bytes  [2028 bytes .. 2068 bytes]         20\n"
        "\n"
        "1 commit\n"
    )


def test_changes_text(store, capsys, fake_timelines):
    found, _ = fake_timelines
    small = Change("b1", "m1", COMMIT_B, COMMIT_C, 2, 1.031, 1.018, 1.044, "slower")
    found += [step_timeline(), Timeline("b1", "m1", "second", (), (small,), ())]
    status, out, _ = run(capsys, "changes", store)
    assert status == 0
    assert out == (
        "benchmark    machine  before        after          ratio  95% CI              direction\n"
        "call_method  speed-1  1a2b3c4d5e6f  2b3c4d5e6f7a  1.706x  [1.690x .. 1.720x]  slower\n"
        "call_method  speed-1  3c4d5e6f7a8b  444444444444  0.427x  [0.420x .. 0.430x]  faster\n"
        "b1           m1       2b3c4d5e6f7a  3c4d5e6f7a8b  1.031x  [1.018x .. 1.044x]  slower\n"
    )


def test_changes_json(store, capsys, fake_timelines):
    found, _ = fake_timelines
    unbounded = Change("b1", "m1", COMMIT_B, COMMIT_C, 2, 2.0, 0.0, math.inf, "slower")
    found += [step_timeline(), Timeline("b1", "m1", "second", (), (unbounded,), ())]
    status, out, _ = run(capsys, "changes", store, "--json")
    assert status == 0
    document = json.loads(out)
    assert [sorted(change) for change in document] == [
        ["after", "before", "benchmark", "ci_high", "ci_low", "direction", "machine", "ratio", "unit"]
    ] * 3
    assert document[0] == {
        "benchmark": "call_method",
        "unit": "second",
        "machine": "speed-1",
        "before": COMMIT_A,
        "after": COMMIT_B,
        "ratio": 29.0 / 17.0,
        "ci_low": 1.69,
        "ci_high": 1.72,
        "direction": "slower",
    }
    assert document[1]["direction"] == "faster"
    assert (document[2]["ci_low"], document[2]["ci_high"]) == (0.0, None)


def test_changes_text_when_there_are_none(store, capsys, fake_timelines):
    found, _ = fake_timelines
    found += [Timeline("b1", "m1", "second", (point(COMMIT_A, 1.0),), (), ())] * 3
    assert run(capsys, "changes", store)[1] == "No change detected in 3 timelines.\n"


def test_changes_finds_a_step(tmp_path, capsys):
    import random

    rng = random.Random(5)
    commits = [f"{number:02d}" * 20 for number in range(12)]
    sources = []
    for number, commit in enumerate(commits):
        level = 1e-3 * (1.3 if number >= 6 else 1.0)
        runs = [
            perf.Run(
                [level * (1 + rng.gauss(0, 0.01)) for _ in range(3)],
                metadata={"name": "b1", "commit_id": commit, "hostname": "m1"},
                collect_metadata=False,
            )
            for _ in range(10)
        ]
        path = str(tmp_path / f"{number}.json")
        files.dump(perf.Benchmark(runs), path)
        sources.append(path)
    for number, source in enumerate(sources):
        assert run(capsys, "add", tmp_path / "store", source, "--date", f"2026-10-{number + 1:02d}")[0] == 0
    status, out, _ = run(capsys, "changes", tmp_path / "store", "--json")
    assert status == 0
    (change,) = json.loads(out)
    assert (change["before"], change["after"], change["direction"]) == (commits[5], commits[6], "slower")
    assert change["ci_low"] < 1.3 < change["ci_high"]
    status, out, _ = run(capsys, "show", tmp_path / "store")
    assert f"{commits[6][:12]}  2026-10-07" in out
    assert out.splitlines()[10].endswith(" slower")


@pytest.mark.parametrize("existing_folder", [False, True], ids=["missing", "empty"])
def test_a_failed_add_to_a_new_store_leaves_no_store(tmp_path, capsys, existing_folder):
    path = tmp_path / "store"
    if existing_folder:
        path.mkdir()
    bad = write_result(tmp_path / "x.json", commit=None)
    status, _, err = run(capsys, "add", path, bad)
    assert status == 1
    assert "has no commit" in err
    assert (sorted(os.listdir(path)) if existing_folder else path.exists()) == ([] if existing_folder else False)
    # and the folder can take a store afterwards
    assert run(capsys, "add", path, write_result(tmp_path / "y.json"))[0] == 0
