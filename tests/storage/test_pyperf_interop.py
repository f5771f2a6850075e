"""Result files move between perf and pyperf in both directions.

tests/data holds files written by real pyperf 2.10.0 (and synthetic format 5
and 6 files), each with F.expected.json: the figures pyperf reports for it
(see tests/data/README.rst).  perf must read the same names, runs, values,
statistics, dates and metadata; its compact re-dump must be byte-identical
to pyperf's; and pyperf must read what perf writes.
"""

from __future__ import annotations

import datetime
import json
import pathlib
import re

import pytest

import perf
from perf.errors import ResultError
from perf.storage import files

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"
FIXTURES = sorted(path.name.removesuffix(".expected.json") for path in DATA.glob("*.expected.json"))
PERCENTILES = (0, 5, 25, 50, 75, 95, 100)


def expected_of(name):
    return json.loads((DATA / f"{name}.expected.json").read_text())


def dates_text(dates):
    return None if dates is None else [date.isoformat(" ") for date in dates]


def test_fixtures_cover_every_kind_of_file():
    assert {
        "timeit.json",
        "suite_tags.json",
        "track_memory.json",
        "timeit.json.gz",
        "calibration_only.json",
        "command.json",
        "timeit_inner_loops.json",
        "format_v5_synthetic.json",
        "format_v6_synthetic.json",
    } <= set(FIXTURES)


@pytest.mark.parametrize("name", FIXTURES)
def test_perf_reads_what_pyperf_reads(name):
    expected = expected_of(name)
    suite = perf.BenchmarkSuite.load(str(DATA / name))
    assert suite.get_benchmark_names() == expected["benchmark_names"]
    assert suite.get_metadata() == expected["metadata"]
    assert dates_text(suite.get_dates()) == expected["dates"]
    assert suite.get_total_duration() == pytest.approx(expected["total_duration"], rel=1e-12)
    for bench_name, figures in expected["benchmarks"].items():
        check_benchmark(suite.get_benchmark(bench_name), figures)


def check_benchmark(bench, figures):
    assert bench.get_nrun() == figures["nrun"]
    assert bench.get_nvalue() == figures["nvalue"]
    assert list(bench.get_values()) == figures["values"]
    assert bench.get_metadata() == figures["metadata"]
    assert bench.get_unit() == figures["unit"]
    assert repr(bench) == figures["repr"]
    assert dates_text(bench.get_dates()) == figures["dates"]
    assert bench.get_total_duration() == pytest.approx(figures["total_duration"], rel=1e-12)
    assert bench.required_nprocesses() == figures["required_nprocesses"]
    for run, expected_run in zip(bench.get_runs(), figures["runs"]):
        assert list(run.values) == expected_run["values"]
        assert [list(warmup) for warmup in run.warmups] == expected_run["warmups"]
        assert run.get_metadata() == expected_run["metadata"]
        assert run.is_calibration() == expected_run["is_calibration"]
    if not figures["values"]:
        check_calibration_only(bench, figures)
        return
    for method in ("loops", "inner_loops", "total_loops"):
        assert getattr(bench, f"get_{method}")() == figures[method]
    assert bench.get_nwarmup() == figures["nwarmup"]
    for method in ("mean", "median", "median_abs_dev"):
        assert getattr(bench, method)() == pytest.approx(figures[method], rel=1e-12), method
    if figures["stdev"] is None:
        with pytest.raises(ResultError):
            bench.stdev()
    else:
        assert bench.stdev() == pytest.approx(figures["stdev"], rel=1e-12)
    for p in PERCENTILES:
        assert bench.percentile(p) == pytest.approx(figures["percentiles"][str(p)], rel=1e-12)
    assert bench.format_value(bench.mean()) == figures["format_value_mean"]


def check_calibration_only(bench, figures):
    """pyperf crashes on these (ZeroDivisionError, StatisticsError); perf
    raises one clear error for statistics and still reports loop counts."""
    assert figures["mean"] == {"error": "StatisticsError: mean requires at least one data point"}
    assert figures["loops"]["error"].startswith("ZeroDivisionError")
    with pytest.raises(ResultError, match="has no values \\(only calibration runs\\)"):
        bench.mean()
    assert bench.get_loops() == bench.get_runs()[0].get_loops() == figures["metadata"]["loops"]
    assert bench.get_nwarmup() == len(bench.get_runs()[0].warmups)


@pytest.mark.parametrize("name", FIXTURES)
def test_compact_redump_is_byte_identical_to_pyperf(name):
    suite = files.load(str(DATA / name))
    assert files.dumps(suite) == (DATA / f"{name}.redump.json").read_text()


def test_old_formats_read_like_the_file_they_were_converted_from():
    v6 = perf.BenchmarkSuite.load(str(DATA / "format_v6_inner_loops_synthetic.json"))
    v5 = perf.BenchmarkSuite.load(str(DATA / "format_v5_inner_loops_synthetic.json"))
    original = perf.BenchmarkSuite.load(str(DATA / "timeit_inner_loops.json"))
    assert files.dumps(v6) == files.dumps(v5) == files.dumps(original)


# --- perf writes, pyperf reads --------------------------------------------------


@pytest.fixture
def pyperf():
    return pytest.importorskip("pyperf")


@pytest.mark.pyperf
@pytest.mark.parametrize("name", FIXTURES)
@pytest.mark.parametrize("compact", [True, False], ids=["compact", "indent"])
def test_pyperf_reads_what_perf_writes(pyperf, tmp_path, name, compact):
    output = tmp_path / ("out.json.gz" if name.endswith(".gz") else "out.json")
    perf.BenchmarkSuite.load(str(DATA / name)).dump(str(output), compact=compact)
    expected = expected_of(name)
    suite = pyperf.BenchmarkSuite.load(str(output))
    assert suite.get_benchmark_names() == expected["benchmark_names"]
    assert suite.get_metadata() == expected["metadata"]
    for bench in suite:
        figures = expected["benchmarks"][bench.get_name()]
        assert list(bench.get_values()) == figures["values"]
        assert bench.get_metadata() == figures["metadata"]
        assert [run.get_metadata() for run in bench.get_runs()] == [run["metadata"] for run in figures["runs"]]
        assert [[list(w) for w in run.warmups] for run in bench.get_runs()] == [
            run["warmups"] for run in figures["runs"]
        ]
        if figures["values"]:
            assert bench.mean() == pytest.approx(figures["mean"], rel=1e-12)


@pytest.mark.pyperf
def test_pyperf_reads_a_benchmark_built_by_perf(pyperf, tmp_path):
    """Runs with collected metadata, warmups, a calibration run and tags."""
    calibration = perf.Run([], warmups=[(1, 0.5), (2, 0.25)], metadata={"name": "b", "calibrate_loops": 2})
    runs = [calibration] + [
        perf.Run([value, value * 1.01], warmups=[(2, value)], metadata={"name": "b", "loops": 2})
        for value in (0.001, 0.0011, 0.0012)
    ]
    bench = perf.Benchmark(runs)
    bench.update_metadata({"tags": ["fast", "demo"]})
    path = tmp_path / "built.json"
    perf.add_runs(str(path), bench)
    loaded = pyperf.Benchmark.load(str(path))
    assert loaded.get_values() == bench.get_values()
    assert loaded.get_metadata() == bench.get_metadata()
    assert loaded.mean() == pytest.approx(bench.mean(), rel=1e-12)
    assert loaded.stdev() == pytest.approx(bench.stdev(), rel=1e-12)
    assert loaded.get_dates() == bench.get_dates()
    assert [run.get_metadata() for run in loaded.get_runs()] == [run.get_metadata() for run in bench.get_runs()]
    assert isinstance(loaded.get_dates()[0], datetime.datetime)


@pytest.mark.pyperf
def test_pyperf_reads_and_merges_cpu_clock_runs(pyperf, tmp_path):
    """``clock`` is a key pyperf does not know: it loads the runs, and (not
    checking it) would even merge them with wall-clock runs, which perf
    refuses (a checked key of perf only)."""
    cpu = perf.Benchmark([perf.Run([1e-3, 2e-3], metadata={"name": "b", "clock": "cpu"}, collect_metadata=False)])
    path = tmp_path / "cpu.json"
    cpu.dump(str(path))
    loaded = pyperf.Benchmark.load(str(path))
    assert loaded.get_metadata()["clock"] == "cpu"
    wall = pyperf.Benchmark([pyperf.Run([1e-3, 2e-3], metadata={"name": "b"}, collect_metadata=False)])
    wall.add_runs(loaded)
    assert wall.get_nrun() == 2


@pytest.mark.pyperf
def test_pyperf_reads_the_busy_machine_evidence_and_the_loop_overhead(pyperf, tmp_path):
    """The keys perf's workers add (issues 13 and 14) are additive: pyperf
    loads them as plain metadata and computes the same statistics."""
    metadata = {
        "name": "b",
        "unit": "second",
        "loop_overhead": 3.5e-9,
        "cpu_share": 0.9987,
        "involuntary_switches": 3,
        "speed_probe_before": 1.02e-4,
        "speed_probe_after": 1.01e-4,
    }
    runs = [perf.Run([1e-6 * (1 + k / 100), 1.01e-6], metadata=metadata, collect_metadata=False) for k in range(3)]
    bench = perf.Benchmark(runs)
    path = tmp_path / "busy.json"
    bench.dump(str(path))
    loaded = pyperf.Benchmark.load(str(path))
    assert loaded.get_metadata() == bench.get_metadata()
    assert loaded.get_unit() == "second"
    assert loaded.mean() == pytest.approx(bench.mean(), rel=1e-12)


@pytest.mark.pyperf
def test_pyperf_reads_instruction_counts_as_integers(pyperf, tmp_path):
    """Count files (--metric instructions) are pyperf files of unit
    integer: pyperf computes the same figures and merges runs of different
    counters, which perf refuses to load (counter_source is a checked key of
    perf only)."""
    from counts import COUNTS

    path = str(COUNTS / "main.json")
    suite, loaded = perf.BenchmarkSuite.load(path), pyperf.BenchmarkSuite.load(path)
    for mine, theirs in zip(suite, loaded):
        assert (theirs.get_name(), theirs.get_unit()) == (mine.get_name(), "integer")
        assert theirs.mean() == mine.mean() and theirs.get_metadata() == mine.get_metadata()
    document = json.loads(pathlib.Path(path).read_text())
    document["benchmarks"][0]["runs"][1]["metadata"]["counter_source"] = "cachegrind 3.19.0; I1 65536,8,64"
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps(document))
    assert len(pyperf.BenchmarkSuite.load(str(mixed)).get_benchmarks()[0].get_runs()) == 10
    message = "metadata 'counter_source' is 'cachegrind 3.19.0; I1 65536,8,64' in the run"
    with pytest.raises(ResultError, match=re.escape(message)):
        files.load(str(mixed))
