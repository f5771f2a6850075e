"""Result files: reading every kind of source, atomic writes, add_runs."""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

import perf
from perf.errors import FileFormatError, IncompatibleRunError, ResultFileError
from perf.storage import files

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make_bench(name="bench", values=(1.0, 2.0), **metadata):
    run = perf.Run(values, metadata={"name": name, **metadata}, collect_metadata=False)
    return perf.Benchmark([run])


def all_values(path):
    return {bench.get_name(): bench.get_values() for bench in perf.BenchmarkSuite.load(path)}


# --- reading ------------------------------------------------------------------


def test_load_plain_gzip_and_misnamed_gzip(tmp_path):
    text = files.dumps(make_bench())
    (tmp_path / "a.json").write_text(text)
    (tmp_path / "b.json.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "c.json").write_bytes(gzip.compress(text.encode()))  # detected by content
    for name in ("a.json", "b.json.gz", "c.json"):
        suite = files.load(str(tmp_path / name))
        assert suite.filename == str(tmp_path / name)
        assert suite.get_benchmark("bench").get_values() == (1.0, 2.0)


def test_load_path_objects_and_bytes(tmp_path):
    path = tmp_path / "a.json"
    make_bench().dump(path)
    assert files.load(path).get_benchmark_names() == ["bench"]
    assert files.load(os.fsencode(path)).get_benchmark_names() == ["bench"]


def test_load_stdin(monkeypatch):
    data = gzip.compress(files.dumps(make_bench()).encode())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    suite = perf.BenchmarkSuite.load("-")
    assert suite.filename == "<stdin>"
    assert suite.get_benchmark_names() == ["bench"]


def test_load_file_object_text_and_binary():
    text = files.dumps(make_bench())
    assert files.load(io.StringIO(text)).get_benchmark_names() == ["bench"]
    assert files.load(io.BytesIO(text.encode())).filename == "<file>"


def test_loads_and_benchmark_load(tmp_path):
    text = files.dumps(make_bench())
    assert perf.BenchmarkSuite.loads(text).filename is None
    assert perf.Benchmark.loads(text).get_name() == "bench"
    path = tmp_path / "two.json"
    perf.BenchmarkSuite([make_bench("a"), make_bench("b")]).dump(str(path))
    with pytest.raises(FileFormatError, match=re.escape(f"{path}: expected 1 benchmark, got 2")):
        perf.Benchmark.load(str(path))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"  \n", "the file is empty"),
        (b"hello", "not a valid JSON document: Expecting value: line 1 column 1 (char 0)"),
        (
            b'{"version": "1.0", "benchmarks": [{"runs": [{"values": [NaN]}]}]}',
            "not a valid JSON document: NaN is not a valid value",
        ),
        (
            b'{"version": "1.0", "benchmarks": [{"runs": [{"values": [Infinity]}]}]}',
            "not a valid JSON document: Infinity is not a valid value",
        ),
        (
            b'{"version": "1.0", "x": "\xe9"}',
            "not a UTF-8 text file: 'utf-8' codec can't decode byte 0xe9 in position 25: invalid continuation byte",
        ),
        (
            gzip.compress(b'{"version": "1.0"}')[:-6],
            "truncated or corrupt gzip file: Compressed file ended before the end-of-stream marker was reached",
        ),
        (b"\x1f\x8bnot gzip at all", "truncated or corrupt gzip file: "),
    ],
    ids=["empty", "blank", "not-json", "nan", "infinity", "not-utf8", "truncated-gzip", "corrupt-gzip"],
)
def test_malformed_files_raise_file_format_error(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(FileFormatError, match="^" + re.escape(f"{path}: {message}")):
        perf.BenchmarkSuite.load(str(path))


def test_unreadable_paths_raise_result_file_error(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(ResultFileError, match=re.escape(f"{missing}: cannot read: No such file or directory")):
        files.load(str(missing))
    with pytest.raises(ResultFileError, match=re.escape(f"{tmp_path}: cannot read: Is a directory")) as info:
        files.load(str(tmp_path))
    assert isinstance(info.value, OSError)


# --- writing --------------------------------------------------------------------


def test_dump_is_compact_sorted_with_newline_or_indented(tmp_path):
    bench = make_bench()
    bench.dump(str(tmp_path / "c.json"))
    bench.dump(str(tmp_path / "i.json"), compact=False)
    compact = (tmp_path / "c.json").read_text()
    indented = (tmp_path / "i.json").read_text()
    data = json.loads(compact)
    assert compact == json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"
    assert indented == json.dumps(data, sort_keys=True, indent=4) + "\n"


def test_dump_gzip_round_trip(tmp_path):
    path = tmp_path / "r.json.gz"
    make_bench().dump(str(path))
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    assert json.loads(gzip.decompress(path.read_bytes()))["version"] == "1.0"
    assert perf.Benchmark.load(str(path)).get_values() == (1.0, 2.0)


def test_dump_to_file_object():
    stream = io.StringIO()
    make_bench().dump(stream)
    assert perf.Benchmark.loads(stream.getvalue()).get_values() == (1.0, 2.0)


def test_dump_refuses_to_overwrite_and_leaves_file_intact(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("precious")
    with pytest.raises(ResultFileError, match=re.escape(f"{path}: the file already exists (refusing to overwrite it)")):
        make_bench().dump(str(path))
    assert path.read_text() == "precious"
    assert os.listdir(tmp_path) == ["r.json"]


def test_dump_replace_keeps_permissions(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("old")
    path.chmod(0o640)
    make_bench().dump(str(path), replace=True)
    assert perf.Benchmark.load(str(path)).get_values() == (1.0, 2.0)
    assert path.stat().st_mode & 0o777 == 0o640


def test_dump_into_missing_folder_fails_cleanly(tmp_path):
    path = tmp_path / "no" / "r.json"
    with pytest.raises(ResultFileError, match=re.escape(f"{path}: cannot write: No such file or directory")):
        make_bench().dump(str(path))


def test_interrupted_write_leaves_previous_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "r.json"
    make_bench(values=(5.0,)).dump(str(path))
    before = path.read_bytes()

    def interrupt(fd):
        raise KeyboardInterrupt  # Ctrl-C after the data, before the rename

    monkeypatch.setattr(os, "fsync", interrupt)
    with pytest.raises(KeyboardInterrupt):
        make_bench(values=(1.0,)).dump(str(path), replace=True)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["r.json"]  # no temporary file left


def test_failed_rename_leaves_previous_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "r.json"
    make_bench(values=(5.0,)).dump(str(path))
    before = path.read_bytes()

    def fail(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(ResultFileError, match=re.escape(f"{path}: cannot write: No space left on device")):
        make_bench(values=(1.0,)).dump(str(path), replace=True)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["r.json"]


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform != "linux", reason="needs RLIMIT_FSIZE (Linux)")
def test_full_disk_during_write_leaves_previous_file_intact(tmp_path):
    """A real write failure: the file size limit makes write() fail midway."""
    path = tmp_path / "r.json"
    make_bench(values=(5.0,)).dump(str(path))
    before = path.read_bytes()
    script = textwrap.dedent(f"""
        import resource, signal, perf
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        run = perf.Run([1.0] * 5000, metadata={{"name": "bench"}}, collect_metadata=False)
        try:
            perf.Benchmark([run]).dump({str(path)!r}, replace=True)
        except perf.errors.ResultFileError as exc:
            print(exc)
    """)
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True)
    assert output.stdout == f"{path}: cannot write: File too large\n"
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["r.json"]


# --- add_runs -------------------------------------------------------------------


def test_add_runs_creates_then_merges(tmp_path):
    path = str(tmp_path / "r.json")
    perf.add_runs(path, make_bench("a", (1.0,)))
    perf.add_runs(path, make_bench("a", (2.0,)))
    perf.add_runs(path, perf.BenchmarkSuite([make_bench("b", (3.0,)), make_bench("a", (4.0,))]))
    assert all_values(path) == {"a": (1.0, 2.0, 4.0), "b": (3.0,)}


def test_add_runs_incompatible_run_names_file_and_keeps_it(tmp_path):
    path = tmp_path / "r.json"
    perf.add_runs(str(path), make_bench("a", (1.0,)))
    before = path.read_bytes()
    with pytest.raises(IncompatibleRunError) as info:
        perf.add_runs(str(path), make_bench("a", (1.0,), unit="byte"))
    assert str(info.value) == (
        f"{path}: benchmark 'a': incompatible run: metadata 'unit' is 'byte' in the run but missing in the benchmark"
    )
    assert path.read_bytes() == before


def test_add_runs_to_a_corrupt_file_keeps_it(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("{broken")
    with pytest.raises(FileFormatError):
        perf.add_runs(str(path), make_bench())
    assert path.read_text() == "{broken"


def test_add_runs_rejects_other_types_before_touching_the_file(tmp_path):
    with pytest.raises(TypeError, match="Benchmark or BenchmarkSuite expected, got str"):
        perf.add_runs(str(tmp_path / "r.json"), "bench")
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(sys.platform == "win32", reason="folder locks need fcntl")
def test_concurrent_add_runs_lose_no_run(tmp_path):
    """Two processes append 25 runs each to one file at the same time."""
    path = str(tmp_path / "shared.json")
    script = textwrap.dedent("""
        import sys, perf
        path, worker = sys.argv[1], int(sys.argv[2])
        for index in range(25):
            value = worker * 1000 + index + 1.0
            run = perf.Run([value], metadata={"name": "bench"}, collect_metadata=False)
            perf.add_runs(path, perf.Benchmark([run]))
    """)
    workers = [subprocess.Popen([sys.executable, "-c", script, path, str(worker)], cwd=ROOT) for worker in (1, 2)]
    assert [worker.wait() for worker in workers] == [0, 0]
    values = all_values(path)["bench"]
    assert sorted(values) == sorted(w * 1000 + i + 1.0 for w in (1, 2) for i in range(25))
    assert sorted(os.listdir(tmp_path)) == ["shared.json"]


def test_refused_overwrite_is_a_file_exists_error(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("x")
    with pytest.raises(FileExistsError) as info:  # what pyperf's callers catch
        make_bench().dump(str(path))
    assert info.value.errno == errno.EEXIST
    assert isinstance(info.value, ResultFileError)


def test_dump_replace_through_a_symlink_keeps_the_link(tmp_path):
    target = tmp_path / "real.json"
    link = tmp_path / "link.json"
    make_bench(values=(5.0,)).dump(str(target))
    link.symlink_to(target.name)
    make_bench(values=(1.0,)).dump(str(link), replace=True)
    assert link.is_symlink()
    assert perf.Benchmark.load(str(target)).get_values() == (1.0,)


def test_add_runs_merges_all_or_nothing(tmp_path):
    path = tmp_path / "r.json"
    perf.BenchmarkSuite([make_bench("a", (1.0,)), make_bench("b", (2.0,))]).dump(str(path))
    before = path.read_bytes()
    incoming = perf.BenchmarkSuite([make_bench("a", (3.0,)), make_bench("b", (4.0,), unit="byte")])
    with pytest.raises(IncompatibleRunError):
        perf.add_runs(str(path), incoming)
    assert path.read_bytes() == before
    suite = perf.BenchmarkSuite.load(str(path))
    with pytest.raises(IncompatibleRunError):
        suite.add_runs(incoming)
    assert suite.get_benchmark("a").get_values() == (1.0,)  # nothing merged in memory either


def test_add_runs_through_a_symlink_updates_the_target(tmp_path):
    (tmp_path / "data").mkdir()
    target = tmp_path / "data" / "real.json"
    link = tmp_path / "link.json"
    make_bench("a", (1.0,)).dump(str(target))
    link.symlink_to(target)
    perf.add_runs(str(link), make_bench("a", (2.0,)))
    assert link.is_symlink()
    assert all_values(str(target)) == {"a": (1.0, 2.0)}


def test_dump_with_the_longest_file_name(tmp_path):
    path = tmp_path / ("x" * 250 + ".json")
    make_bench().dump(str(path))
    assert perf.Benchmark.load(str(path)).get_values() == (1.0, 2.0)
