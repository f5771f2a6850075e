"""perf.history.store: the layout, add and its checks, the index kept in
sync with the files, reindex, and the queries."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import sqlite3

import pytest

import perf
from perf.errors import FileFormatError, HistoryStoreError, ResultFileError, UsageError
from perf.history import index, sidecar
from perf.history.store import HistoryStore, Recording
from perf.storage import files

COMMIT_A = "a" * 40
COMMIT_B = "b" * 40
COMMIT_C = "c" * 40


def write_result(
    path,
    *,
    commit=COMMIT_A,
    date="2026-10-19T12:00:00+02:00",
    branch="main",
    hostname="m1",
    benchmarks=("b1", "b2"),
    scale=1.0,
    processes=3,
    extra=None,
):
    """A result file made with perf's API: *processes* runs of 2 values per
    benchmark; metadata given as None is left out."""
    metadata = {"commit_id": commit, "commit_date": date, "commit_branch": branch, "hostname": hostname}
    metadata = {key: value for key, value in metadata.items() if value is not None}
    metadata.update(extra or {})
    suite = []
    for number, name in enumerate(benchmarks):
        runs = [
            perf.Run(
                [scale * (1 + number) * (1.0 + 0.01 * process), scale * (1 + number) * (1.0 + 0.01 * process + 0.002)],
                metadata={"name": name, **metadata},
                collect_metadata=False,
            )
            for process in range(processes)
        ]
        suite.append(perf.Benchmark(runs))
    files.dump(perf.BenchmarkSuite(suite), str(path))
    return str(path)


def snapshot(root):
    """Every file of the store but the index (path -> bytes), and the
    index's rows."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if name.startswith("index.sqlite"):
                continue
            with open(path, "rb") as fp:
                found[os.path.relpath(path, root)] = fp.read()
    folders = sorted(os.path.relpath(folder, root) for folder, _, _ in os.walk(root))
    connection = sqlite3.connect(os.path.join(root, "index.sqlite"))
    try:
        rows = (
            connection.execute("SELECT * FROM recordings ORDER BY path").fetchall(),
            connection.execute("SELECT * FROM points ORDER BY recording, benchmark").fetchall(),
        )
    finally:
        connection.close()
    return found, folders, rows


@pytest.fixture
def store_path(tmp_path):
    return str(tmp_path / "store")


@pytest.fixture
def inputs(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    return folder


def added(store_path, filenames, **options):
    with HistoryStore.open_or_create(store_path) as store:
        return store.add(filenames, **options)


# --- layout ---------------------------------------------------------------


def test_add_creates_the_store_and_keeps_the_file_byte_for_byte(store_path, inputs):
    source = write_result(inputs / "r.json")
    (recording,) = added(store_path, [source])
    with open(os.path.join(store_path, "perf-history.json")) as fp:
        assert json.load(fp) == {"format": "perf-history", "version": 1}
    with open(os.path.join(store_path, ".gitignore")) as fp:
        ignored = fp.read().split()
    assert {"/index.sqlite", "/index.sqlite-*", "*.tmp"} <= set(ignored)
    with open(os.path.join(store_path, ".gitattributes")) as fp:
        assert "results/** -text" in fp.read().splitlines()  # no end-of-line conversion
    data = (inputs / "r.json").read_bytes()
    sha256 = hashlib.sha256(data).hexdigest()
    assert recording.path == f"results/m1/{COMMIT_A}-{sha256[:12]}.json"
    with open(os.path.join(store_path, recording.path), "rb") as fp:
        assert fp.read() == data
    with open(os.path.join(store_path, f"results/m1/{COMMIT_A}-{sha256[:12]}.history.json")) as fp:
        document = json.load(fp)
    assert document == {
        "format": "perf-history-recording",
        "version": 1,
        "file": f"{COMMIT_A}-{sha256[:12]}.json",
        "sha256": sha256,
        "commit": COMMIT_A,
        "date": "2026-10-19T12:00:00+02:00",
        "branch": "main",
        "machine": "m1",
        "original": "r.json",
        "added": recording.added,
    }


def test_a_gzip_file_is_kept_compressed(store_path, inputs):
    source = write_result(inputs / "r.json.gz")
    (recording,) = added(store_path, [source])
    assert recording.path.endswith(".json.gz")
    with open(os.path.join(store_path, recording.path), "rb") as fp:
        assert fp.read() == (inputs / "r.json.gz").read_bytes()
    with HistoryStore(store_path) as store:
        assert store.load(recording).get_benchmark_names() == ["b1", "b2"]
        assert len(store.points()) == 2


def test_add_to_an_empty_folder_creates_the_store(tmp_path, inputs):
    folder = tmp_path / "empty"
    folder.mkdir()
    added(str(folder), [write_result(inputs / "r.json")])
    assert (folder / "perf-history.json").exists()


# --- defaults and options -------------------------------------------------


def test_defaults_come_from_the_metadata(store_path, inputs):
    (recording,) = added(store_path, [write_result(inputs / "r.json", date="2026-10-19T12:00:00Z", branch="dev")])
    assert recording.commit == COMMIT_A
    assert recording.date == "2026-10-19T12:00:00Z"
    assert recording.timestamp == 1792411200.0
    assert recording.branch == "dev"
    assert recording.machine == "m1"


def test_options_override_the_metadata(store_path, inputs):
    (recording,) = added(
        store_path,
        [write_result(inputs / "r.json")],
        commit=COMMIT_B,
        date="2026-10-20",
        branch="fix",
        machine="speed-2",
    )
    assert (recording.commit, recording.date, recording.branch, recording.machine) == (
        COMMIT_B,
        "2026-10-20",
        "fix",
        "speed-2",
    )
    assert recording.timestamp == 1792454400.0
    assert recording.path.startswith(f"results/speed-2/{COMMIT_B}-")


def test_the_file_date_is_not_given_to_another_commit(store_path, inputs):
    (recording,) = added(store_path, [write_result(inputs / "r.json")], commit=COMMIT_B)
    assert (recording.date, recording.timestamp) == (None, None)


def test_the_machine_defaults_to_this_host(store_path, inputs, monkeypatch):
    monkeypatch.setattr("socket.gethostname", lambda: "this-host")
    (recording,) = added(store_path, [write_result(inputs / "r.json", hostname=None)])
    assert recording.machine == "this-host"


def test_the_commit_is_found_in_one_benchmark(store_path, inputs):
    # pyperformance writes metadata per benchmark; only b1's runs have it here
    runs_b1 = [perf.Run([1.0, 1.1], metadata={"name": "b1", "commit_id": COMMIT_C}, collect_metadata=False)] * 2
    runs_b2 = [perf.Run([2.0, 2.1], metadata={"name": "b2"}, collect_metadata=False)] * 2
    files.dump(perf.BenchmarkSuite([perf.Benchmark(runs_b1), perf.Benchmark(runs_b2)]), str(inputs / "r.json"))
    (recording,) = added(store_path, [str(inputs / "r.json")], machine="m")
    assert recording.commit == COMMIT_C


def test_benchmarks_with_different_commits_are_refused(store_path, inputs):
    runs_b1 = [perf.Run([1.0, 1.1], metadata={"name": "b1", "commit_id": COMMIT_A}, collect_metadata=False)] * 2
    runs_b2 = [perf.Run([2.0, 2.1], metadata={"name": "b2", "commit_id": COMMIT_B}, collect_metadata=False)] * 2
    files.dump(perf.BenchmarkSuite([perf.Benchmark(runs_b1), perf.Benchmark(runs_b2)]), str(inputs / "r.json"))
    with pytest.raises(HistoryStoreError, match=r"r\.json: its benchmarks have different commit_id metadata"):
        added(store_path, [str(inputs / "r.json")], machine="m")


@pytest.mark.parametrize(
    ("text", "timestamp"),
    [
        ("2026-10-19", 1792368000.0),
        ("2026-10-19T12:00:00", 1792411200.0),
        ("2026-10-19 12:00:00", 1792411200.0),
        ("2026-10-19T12:00:00Z", 1792411200.0),
        ("2026-10-19T14:00:00+02:00", 1792411200.0),
        ("2026-10-19T12:00:00.500000+00:00", 1792411200.5),
    ],
)
def test_iso_dates(text, timestamp):
    assert sidecar.parse_date(text) == timestamp


@pytest.mark.parametrize("date", ["yesterday", "2026-13-01", "19/10/2026", ""])
def test_a_bad_date_is_a_usage_error_and_creates_nothing(tmp_path, inputs, date):
    source = write_result(inputs / "r.json")
    store_path = tmp_path / "store"
    store_path.mkdir()
    with HistoryStore.open_or_create(str(store_path)) as store:
        before = snapshot(store_path)
        with pytest.raises(UsageError, match="--date"):
            store.add([source], date=date)
    assert snapshot(store_path) == before


def test_a_bad_commit_date_in_the_file_is_refused(store_path, inputs):
    source = write_result(inputs / "r.json", date="last tuesday")
    with pytest.raises(
        HistoryStoreError, match=r"r\.json: its commit_date metadata is not an ISO-8601 date: 'last tuesday'"
    ):
        added(store_path, [source])


def test_an_odd_commit_or_machine_makes_a_safe_path(store_path, inputs):
    (recording,) = added(store_path, [write_result(inputs / "r.json")], commit="../v1 2", machine="../../etc")
    assert recording.commit == "../v1 2"
    assert recording.machine == "../../etc"
    folder, machine_folder, name = recording.path.split("/")
    assert folder == "results"
    assert machine_folder == "_.._etc"
    assert name.startswith("_v1_2-")
    assert os.path.exists(os.path.join(store_path, recording.path))


# --- refused adds: nothing half-added -------------------------------------


@pytest.fixture
def store_with_one(store_path, inputs):
    """A store holding one recording; returns its snapshot."""
    added(store_path, [write_result(inputs / "first.json", commit=COMMIT_C)])
    return snapshot(store_path)


def test_the_same_file_twice_in_one_add(store_path, inputs, store_with_one):
    source = write_result(inputs / "r.json")
    shutil.copy(source, inputs / "copy.json")
    with pytest.raises(HistoryStoreError) as error:
        added(store_path, [source, str(inputs / "copy.json")])
    assert str(error.value) == f"{inputs / 'copy.json'} is the same file as {source} (given twice)"
    assert snapshot(store_path) == store_with_one


def test_the_same_file_in_two_adds(store_path, inputs):
    source = write_result(inputs / "r.json")
    (recording,) = added(store_path, [source])
    before = snapshot(store_path)
    with pytest.raises(HistoryStoreError) as error:
        added(store_path, [source], commit=COMMIT_B, machine="other")
    assert str(error.value) == f"{source} is already in the store (as {recording.path})"
    assert snapshot(store_path) == before


def test_a_file_without_a_commit(store_path, inputs, store_with_one):
    good = write_result(inputs / "good.json")
    bad = write_result(inputs / "bad.json", commit=None)
    with pytest.raises(HistoryStoreError) as error:
        added(store_path, [good, bad])
    assert str(error.value) == f"{bad} has no commit: no commit_id metadata (give --commit)"
    assert snapshot(store_path) == store_with_one


def test_a_corrupt_file(store_path, inputs, store_with_one):
    good = write_result(inputs / "good.json")
    bad = inputs / "bad.json"
    bad.write_text('{"version": "1.0", "benchmarks": [')
    with pytest.raises(FileFormatError) as error:
        added(store_path, [good, str(bad)])
    assert str(error.value).startswith(f"{bad}: ")
    assert "\n" not in str(error.value)
    assert snapshot(store_path) == store_with_one


def test_a_corrupt_gzip_file(store_path, inputs, store_with_one):
    bad = inputs / "bad.json.gz"
    bad.write_bytes(gzip.compress(b'{"version": "1.0", "benchmarks": [')[:-8])
    with pytest.raises(FileFormatError, match=f"^{bad}: truncated or corrupt gzip file"):
        added(store_path, [str(bad)])
    assert snapshot(store_path) == store_with_one


def test_a_missing_file(store_path, inputs, store_with_one):
    with pytest.raises(ResultFileError, match=r"nothing\.json: cannot read"):
        added(store_path, [write_result(inputs / "good.json"), str(inputs / "nothing.json")])
    assert snapshot(store_path) == store_with_one


def test_a_failed_write_removes_the_files_written(store_path, inputs, store_with_one, monkeypatch):
    sources = [write_result(inputs / f"r{number}.json", commit=str(number) * 40) for number in range(3)]
    calls = []
    write_atomic = files.write_atomic

    def failing(path, data, replace=False):
        calls.append(path)
        if len(calls) == 5:
            raise ResultFileError(path, "cannot write: No space left on device")
        write_atomic(path, data, replace=replace)

    monkeypatch.setattr(files, "write_atomic", failing)
    with pytest.raises(ResultFileError, match="No space left"):
        added(store_path, sources, machine="new-machine")
    assert len(calls) == 5
    assert snapshot(store_path) == store_with_one


def test_a_failed_index_removes_the_files_written(store_path, inputs, store_with_one, monkeypatch):
    sources = [write_result(inputs / f"r{number}.json", commit=str(number) * 40) for number in range(3)]
    insert = index.insert
    calls = []

    def failing(connection, entry):
        calls.append(entry)
        if len(calls) == 3:
            raise sqlite3.OperationalError("database or disk is full")
        insert(connection, entry)

    monkeypatch.setattr(index, "insert", failing)
    with pytest.raises(HistoryStoreError, match=r"index\.sqlite: database or disk is full"):
        added(store_path, sources)
    assert snapshot(store_path) == store_with_one


def test_an_interrupted_add_removes_the_files_written(store_path, inputs, store_with_one, monkeypatch):
    sources = [write_result(inputs / f"r{number}.json", commit=str(number) * 40) for number in range(2)]
    insert = index.insert

    def interrupted(connection, entry):
        insert(connection, entry)
        raise KeyboardInterrupt

    monkeypatch.setattr(index, "insert", interrupted)
    with pytest.raises(KeyboardInterrupt):
        added(store_path, sources)
    assert snapshot(store_path) == store_with_one


def test_a_result_file_left_by_a_crashed_add_is_replaced(store_path, inputs, store_with_one):
    source = write_result(inputs / "r.json")
    data = (inputs / "r.json").read_bytes()
    leftover = os.path.join(
        store_path, "results", "m1", sidecar.result_name(COMMIT_A, hashlib.sha256(data).hexdigest(), data)
    )
    with open(leftover, "wb") as fp:
        fp.write(data[:10])  # no sidecar: never indexed
    (recording,) = added(store_path, [source])
    with open(os.path.join(store_path, recording.path), "rb") as fp:
        assert fp.read() == data


def test_add_without_files(store_path):
    with HistoryStore.open_or_create(store_path) as store, pytest.raises(UsageError, match="no result file"):
        store.add([])


# --- not a store ----------------------------------------------------------


def test_a_folder_with_other_files_is_not_a_store(tmp_path, inputs):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(HistoryStoreError) as error:
        HistoryStore.open_or_create(str(folder))
    assert str(error.value) == f"{folder} is not a perf history store (it has no perf-history.json and is not empty)"
    with pytest.raises(HistoryStoreError, match=r"is not a perf history store \(it has no perf-history.json\)$"):
        HistoryStore(str(folder))
    assert os.listdir(folder) == ["notes.txt"]


def test_a_file_is_not_a_store(tmp_path, inputs):
    source = write_result(inputs / "r.json")
    with pytest.raises(HistoryStoreError, match="is not a perf history store"):
        HistoryStore.open_or_create(source)
    with pytest.raises(HistoryStoreError, match="is not a perf history store"):
        HistoryStore(source)


def test_a_missing_store(tmp_path):
    with pytest.raises(HistoryStoreError) as error:
        HistoryStore(str(tmp_path / "nothing"))
    assert str(error.value) == f"{tmp_path / 'nothing'}: no such history store (history add creates one)"
    assert not (tmp_path / "nothing").exists()


def test_an_empty_folder_is_not_a_store_but_add_makes_one(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(HistoryStoreError, match="is not a perf history store"):
        HistoryStore(str(tmp_path / "empty"))
    assert os.listdir(tmp_path / "empty") == []


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ('{"format": "perf-history", "version": 2}', "a history store of version 2 (this perf reads 1)"),
        ('{"format": "other"}', "is not a perf history store (perf-history.json is not its marker)"),
        ("[1, 2", "cannot read the store marker"),
    ],
)
def test_a_foreign_marker(store_path, inputs, marker, message):
    added(store_path, [write_result(inputs / "r.json")])
    with open(os.path.join(store_path, "perf-history.json"), "w") as fp:
        fp.write(marker)
    with pytest.raises(HistoryStoreError, match=message.replace("(", r"\(").replace(")", r"\)")):
        HistoryStore(store_path)


# --- the index: order, points, sync, reindex ------------------------------


def test_recordings_are_in_commit_date_order(store_path, inputs):
    late = write_result(inputs / "late.json", commit=COMMIT_B, date="2026-10-21T00:00:00+00:00")
    # 2026-10-20T23:00:00 in UTC: before late, although its text sorts after
    early = write_result(inputs / "early.json", commit=COMMIT_A, date="2026-10-21T01:00:00+02:00")
    added(store_path, [late, early])
    with HistoryStore(store_path) as store:
        assert [recording.commit for recording in store.recordings()] == [COMMIT_A, COMMIT_B]
        assert [point.recording.commit for point in store.points()] == [COMMIT_A, COMMIT_A, COMMIT_B, COMMIT_B]


def test_a_commit_without_date_is_ordered_by_the_time_of_its_add(store_path, inputs):
    first = write_result(inputs / "first.json", commit=COMMIT_A, date=None)
    dated = write_result(inputs / "dated.json", commit=COMMIT_B, date="2000-01-01T00:00:00Z")
    second = write_result(inputs / "second.json", commit=COMMIT_C, date=None)
    added(store_path, [first])
    added(store_path, [second])
    added(store_path, [dated])
    with HistoryStore(store_path) as store:
        recordings = store.recordings()
    assert [recording.commit for recording in recordings] == [COMMIT_B, COMMIT_A, COMMIT_C]
    assert recordings[1].timestamp is None
    assert recordings[1].added < recordings[2].added


def test_points_hold_the_process_means(store_path, inputs):
    source = write_result(inputs / "r.json", processes=3, scale=2.0)
    added(store_path, [source])
    suite = files.load(source)
    with HistoryStore(store_path) as store:
        points = store.points()
        assert [(point.benchmark, point.unit) for point in points] == [("b1", "second"), ("b2", "second")]
        for point in points:
            assert list(point.process_means) == suite.get_benchmark(point.benchmark).get_process_means()
        assert points[0].recording == store.recordings()[0]
        assert store.benchmark_count(points[0].recording) == 2


def test_a_benchmark_without_values_is_not_indexed(store_path, inputs):
    calibration = perf.Run(
        [], warmups=[(1, 0.5)], metadata={"name": "calibrated", "commit_id": COMMIT_A}, collect_metadata=False
    )
    measured = perf.Run([1.0, 1.5], metadata={"name": "measured", "commit_id": COMMIT_A}, collect_metadata=False)
    files.dump(perf.BenchmarkSuite([perf.Benchmark([calibration]), perf.Benchmark([measured])]), str(inputs / "r.json"))
    (recording,) = added(store_path, [str(inputs / "r.json")], machine="m")
    with HistoryStore(store_path) as store:
        assert store.benchmark_names() == ["measured"]
        assert store.benchmark_count(recording) == 1
        assert store.points()[0].process_means == (1.25,)


def test_a_benchmark_missing_at_some_commits(store_path, inputs):
    added(store_path, [write_result(inputs / "a.json", commit=COMMIT_A, date="2026-10-01", benchmarks=("b1", "b2"))])
    added(store_path, [write_result(inputs / "b.json", commit=COMMIT_B, date="2026-10-02", benchmarks=("b1",))])
    added(store_path, [write_result(inputs / "c.json", commit=COMMIT_C, date="2026-10-03", benchmarks=("b1", "b2"))])
    with HistoryStore(store_path) as store:
        assert [point.recording.commit for point in store.points(["b2"])] == [COMMIT_A, COMMIT_C]
        assert [point.recording.commit for point in store.points(["b1"])] == [COMMIT_A, COMMIT_B, COMMIT_C]
        assert store.benchmark_names() == ["b1", "b2"]


def test_points_and_recordings_of_one_machine(store_path, inputs):
    added(store_path, [write_result(inputs / "a.json", hostname="m1")])
    added(store_path, [write_result(inputs / "b.json", hostname="m2", commit=COMMIT_B)])
    with HistoryStore(store_path) as store:
        assert store.machines() == ["m1", "m2"]
        assert [recording.machine for recording in store.recordings("m2")] == ["m2"]
        assert {point.recording.machine for point in store.points(machine="m1")} == {"m1"}
        assert [point.benchmark for point in store.points(["b2"], "m2")] == ["b2"]
        assert store.points(["nothing"]) == []


def test_many_benchmark_names_are_filtered(store_path, inputs):
    names = [f"bench{number:04d}" for number in range(600)]
    added(store_path, [write_result(inputs / "a.json", benchmarks=names[:3], processes=2)])
    with HistoryStore(store_path) as store:
        assert [point.benchmark for point in store.points(names)] == names[:3]
        assert [point.benchmark for point in store.points(names[1:])] == names[1:3]


def test_reindex_rebuilds_an_identical_index(store_path, inputs):
    added(store_path, [write_result(inputs / "a.json", commit=COMMIT_A, date="2026-10-01")])
    added(store_path, [write_result(inputs / "b.json.gz", commit=COMMIT_B, date=None, hostname="m2")])
    added(store_path, [write_result(inputs / "c.json", commit=COMMIT_C, date="2026-10-03", benchmarks=("b3",))])
    with HistoryStore(store_path) as store:
        before = (store.recordings(), store.points(), store.benchmark_names(), store.machines())
    os.unlink(os.path.join(store_path, "index.sqlite"))
    with HistoryStore(store_path, sync=False) as store:
        assert store.recordings() == []
        assert store.reindex() == 3
        assert (store.recordings(), store.points(), store.benchmark_names(), store.machines()) == before
    os.unlink(os.path.join(store_path, "index.sqlite"))
    with HistoryStore(store_path) as store:  # opening alone brings it in sync
        assert (store.recordings(), store.points(), store.benchmark_names(), store.machines()) == before


def test_a_file_pulled_from_elsewhere_shows_up(tmp_path, inputs):
    here, there = str(tmp_path / "here"), str(tmp_path / "there")
    added(here, [write_result(inputs / "a.json", commit=COMMIT_A, date="2026-10-01")])
    (pulled,) = added(there, [write_result(inputs / "b.json", commit=COMMIT_B, date="2026-10-02", hostname="m2")])
    # what a git pull does: the other machine's file and sidecar appear
    os.makedirs(os.path.join(here, "results", "m2"))
    stem = pulled.path[: -len(".json")]
    for path in (pulled.path, stem + ".history.json"):
        shutil.copy(os.path.join(there, path), os.path.join(here, path))
    with HistoryStore(here) as store:
        assert store.recordings() == [*added_recordings(here, "m1"), pulled]
        assert [point.recording.machine for point in store.points()] == ["m1", "m1", "m2", "m2"]
    # and a file deleted (git rm) goes away
    for path in (pulled.path, stem + ".history.json"):
        os.unlink(os.path.join(here, path))
    with HistoryStore(here) as store:
        assert [recording.machine for recording in store.recordings()] == ["m1"]
        assert store.machines() == ["m1"]
        assert {point.recording.machine for point in store.points()} == {"m1"}


def added_recordings(root, machine):
    with HistoryStore(root, sync=False) as store:
        return store.recordings(machine)


def test_a_result_file_without_sidecar_is_ignored(store_path, inputs):
    added(store_path, [write_result(inputs / "a.json")])
    shutil.copy(inputs / "a.json", os.path.join(store_path, "results", "m1", "stray.json"))
    with HistoryStore(store_path) as store:
        assert len(store.recordings()) == 1


def test_a_damaged_index_is_rebuilt(store_path, inputs):
    added(store_path, [write_result(inputs / "a.json")])
    with open(os.path.join(store_path, "index.sqlite"), "wb") as fp:
        fp.write(b"this is not a database" * 100)
    with HistoryStore(store_path) as store:
        assert [recording.commit for recording in store.recordings()] == [COMMIT_A]


def test_an_index_of_another_version_is_rebuilt(store_path, inputs):
    added(store_path, [write_result(inputs / "a.json")])
    connection = sqlite3.connect(os.path.join(store_path, "index.sqlite"))
    connection.execute("UPDATE info SET value = '0' WHERE key = 'version'")
    connection.execute("DELETE FROM points")
    connection.commit()
    connection.close()
    with HistoryStore(store_path) as store:
        assert len(store.points()) == 2


def test_a_sidecar_without_its_file(store_path, inputs):
    (recording,) = added(store_path, [write_result(inputs / "a.json")])
    os.unlink(os.path.join(store_path, recording.path))
    os.unlink(os.path.join(store_path, "index.sqlite"))
    with pytest.raises(
        HistoryStoreError, match=f"^{recording.path} is missing \\(its sidecar .*history.json is there\\)$"
    ):
        HistoryStore(store_path)


def test_a_changed_file(store_path, inputs):
    (recording,) = added(store_path, [write_result(inputs / "a.json")])
    write_result(os.path.join(store_path, recording.path + ".new"), scale=3.0)
    os.replace(os.path.join(store_path, recording.path + ".new"), os.path.join(store_path, recording.path))
    with HistoryStore(store_path, sync=False) as store, pytest.raises(HistoryStoreError, match="changed: its sha256"):
        store.reindex()
    # the index it had is intact
    with HistoryStore(store_path, sync=False) as store:
        assert store.recordings() == [recording]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"format": "other"}, "not a perf-history-recording document"),
        ({"version": 9}, "version 9"),
        ({"file": "../../x.json"}, "bad file name"),
        ({"sha256": "abc"}, "bad sha256"),
        ({"commit": ""}, "'commit' must be a non-empty string"),
        ({"date": "soon"}, "soon"),
    ],
)
def test_a_bad_sidecar(store_path, inputs, edit, message):
    (recording,) = added(store_path, [write_result(inputs / "a.json")])
    path = os.path.join(store_path, recording.path[: -len(".json")] + ".history.json")
    with open(path) as fp:
        document = json.load(fp)
    document.update(edit)
    with open(path, "w") as fp:
        json.dump(document, fp)
    os.unlink(os.path.join(store_path, "index.sqlite"))
    with pytest.raises(HistoryStoreError, match=f"history.json: not a valid recording sidecar: .*{message}"):
        HistoryStore(store_path)


def test_two_copies_of_one_file_in_the_store(store_path, inputs):
    (recording,) = added(store_path, [write_result(inputs / "a.json")])
    os.makedirs(os.path.join(store_path, "results", "m2"))
    stem = recording.path[: -len(".json")]
    for path in (recording.path, stem + ".history.json"):
        shutil.copy(os.path.join(store_path, path), os.path.join(store_path, path.replace("/m1/", "/m2/")))
    with pytest.raises(HistoryStoreError, match="is the same file as results/m1/"):
        HistoryStore(store_path)


def test_recording_is_the_interface_tuple():
    assert Recording._fields == ("path", "sha256", "commit", "date", "timestamp", "branch", "machine", "added")


def test_the_index_keeps_each_process_speed_probe(store_path, tmp_path):
    def run(probe):
        metadata = {"name": "b", "commit_id": "c" * 40}
        if probe:
            metadata.update(speed_probe_before=probe, speed_probe_after=probe * 1.21)
        return perf.Run([1e-3, 1.1e-3], metadata=metadata, collect_metadata=False)

    files.dump(perf.Benchmark([run(1e-4), run(2e-4)]), str(tmp_path / "probed.json"))
    files.dump(perf.Benchmark([run(1e-4), run(None)]), str(tmp_path / "partly.json"))
    with HistoryStore.open_or_create(store_path) as store:
        store.add([str(tmp_path / "probed.json")])
        store.add([str(tmp_path / "partly.json")], commit="d" * 40)
        probed, partly = store.points()
    assert probed.probes == pytest.approx((1.1e-4, 2.2e-4))
    # a probe missing from one process: none is kept
    assert partly.probes == ()


def test_the_index_keeps_the_session_and_round_of_each_process(store_path, tmp_path):
    def run(pair, seed=41, values=(1e-3, 1.1e-3)):
        metadata = {"name": "b", "commit_id": "c" * 40}
        if pair is not None:
            metadata.update(ab_pair=pair, ab_seed=seed)
        return perf.Run(values, metadata=metadata, collect_metadata=False)

    calibration = perf.Run(
        [], warmups=[(1, 1e-3)], metadata={"name": "b", "loops": 1, "commit_id": "c" * 40}, collect_metadata=False
    )
    files.dump(perf.Benchmark([calibration, run(2), run(1), run(3)]), str(tmp_path / "session.json"))
    files.dump(perf.Benchmark([run(1), run(None)]), str(tmp_path / "partly.json"))
    files.dump(perf.Benchmark([run(1), run(2, seed=42)]), str(tmp_path / "two.json"))
    with HistoryStore.open_or_create(store_path) as store:
        store.add([str(tmp_path / "session.json")])
        store.add([str(tmp_path / "partly.json")], commit="d" * 40)
        store.add([str(tmp_path / "two.json")], commit="e" * 40)
        session, partly, two = store.points()
    # in the order of the process means (the calibration run has no values)
    assert (session.session, session.rounds) == ("41", (2, 1, 3))
    assert len(session.process_means) == 3
    # a process without a round, or two sessions in one file: none is kept
    assert (partly.session, partly.rounds) == ("", ())
    assert (two.session, two.rounds) == ("", ())


def test_the_index_keeps_each_process_cpu_share(store_path, tmp_path):
    def run(share, clock=None):
        metadata = {"name": "b", "commit_id": "c" * 40}
        if share is not None:
            metadata["cpu_share"] = share
        if clock:
            metadata["clock"] = clock
        return perf.Run([1e-3, 1.1e-3], metadata=metadata, collect_metadata=False)

    files.dump(perf.Benchmark([run(0.99), run(0.7)]), str(tmp_path / "wall.json"))
    files.dump(perf.Benchmark([run(0.99), run(None)]), str(tmp_path / "partly.json"))
    files.dump(perf.Benchmark([run(0.99, "cpu"), run(0.7, "cpu")]), str(tmp_path / "cpu.json"))
    with HistoryStore.open_or_create(store_path) as store:
        for name, commit in (("wall", "c"), ("partly", "d"), ("cpu", "e")):
            store.add([str(tmp_path / f"{name}.json")], commit=commit * 40)
        wall, partly, cpu = store.points()
    assert wall.shares == (0.99, 0.7)
    assert partly.shares == ()  # one process without it: none
    assert cpu.shares == ()  # CPU-time values: the time off the CPU is not in them


def test_instruction_counts_are_points_in_instructions():
    # counts keep their display unit: a timeline of their own, shown as instructions
    from counts import count_benchmark

    from perf.model.suite import BenchmarkSuite

    (point,) = sidecar.points(BenchmarkSuite([count_benchmark(instructions=[183002.0, 183010.0])]))
    assert (point.benchmark, point.unit, point.means) == ("sorted", "instructions", (183002.0, 183010.0))
