"""Decoding (strict, every version) and encoding (factored "1.0") of suites."""

from __future__ import annotations

import json
import re

import pytest

from perf.errors import FileFormatError
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.storage.json_format import decode_suite, encode_suite


def document(runs=None, bench_metadata=None, suite_metadata=None, version="1.0", extra=None):
    bench = {"metadata": {"name": "bench"} if bench_metadata is None else bench_metadata}
    bench["runs"] = runs if runs is not None else [{"values": [1.0, 2.0]}]
    data = {"version": version, "benchmarks": [bench]}
    if suite_metadata is not None:
        data["metadata"] = suite_metadata
    data.update(extra or {})
    return data


def named(name, *values, **metadata):
    return Run(values, metadata={"name": name, **metadata}, collect_metadata=False)


BAD_DOCUMENTS = [
    pytest.param([], "expected a JSON object at the top level, got an array", id="not-object"),
    pytest.param({"benchmarks": []}, "top level: missing key 'version': not a perf result file", id="no-version"),
    pytest.param(
        {"version": "2.0", "benchmarks": []},
        "version: unsupported format version '2.0' (readable: 5, 6 and '1.0')",
        id="unknown-version",
    ),
    pytest.param(
        {"version": 6.0, "benchmarks": []},
        "version: unsupported format version 6.0 (readable: 5, 6 and '1.0')",
        id="float-version",
    ),
    pytest.param(
        {"version": True, "benchmarks": []},
        "version: unsupported format version True (readable: 5, 6 and '1.0')",
        id="bool-version",
    ),
    pytest.param({"version": "1.0"}, "top level: missing key 'benchmarks'", id="no-benchmarks"),
    pytest.param({"version": "1.0", "benchmarks": []}, "benchmarks: the array is empty", id="empty-benchmarks"),
    pytest.param(
        {"version": "1.0", "benchmarks": {}}, "benchmarks: expected an array, got an object", id="benchmarks-type"
    ),
    pytest.param(document(extra={"foo": 1}), "top level: unknown key 'foo'", id="extra-root-key"),
    pytest.param(document(suite_metadata=[]), "metadata: expected an object, got an array", id="metadata-type"),
    pytest.param(
        {"version": "1.0", "benchmarks": [{"metadata": {"name": "a"}, "runs": [{"values": [1.0]}], "x": 1}]},
        "benchmarks[0]: unknown key 'x'",
        id="extra-benchmark-key",
    ),
    pytest.param(
        {"version": "1.0", "benchmarks": [{"metadata": {"name": "a"}}]},
        "benchmarks[0]: missing key 'runs'",
        id="no-runs",
    ),
    pytest.param(
        {"version": "1.0", "benchmarks": ["x"]},
        "benchmarks[0]: expected a JSON object, got a string",
        id="benchmark-type",
    ),
    pytest.param(document(runs=[]), "benchmarks[0].runs: the array is empty", id="empty-runs"),
    pytest.param(
        document(runs=[{}]), "benchmarks[0].runs[0]: a run needs values or warmups: both are empty", id="empty-run"
    ),
    pytest.param(
        document(runs=[{"values": []}]),
        "benchmarks[0].runs[0]: a run needs values or warmups: both are empty",
        id="empty-values",
    ),
    pytest.param(
        document(runs=[{"values": [1.0], "samples": [1.0]}]),
        "benchmarks[0].runs[0]: unknown key 'samples'",
        id="extra-run-key",
    ),
    pytest.param(document(runs=[None]), "benchmarks[0].runs[0]: expected a JSON object, got null", id="run-type"),
    pytest.param(
        document(runs=[{"values": 1.0}]),
        "benchmarks[0].runs[0].values: expected an array, got a number",
        id="values-type",
    ),
    pytest.param(
        document(runs=[{"values": [1.0, -2]}]),
        "benchmarks[0].runs[0].values[1]: a value must be a finite number > 0, got -2",
        id="negative-value",
    ),
    pytest.param(
        document(runs=[{"values": [0]}]),
        "benchmarks[0].runs[0].values[0]: a value must be a finite number > 0, got 0",
        id="zero-value",
    ),
    pytest.param(
        document(runs=[{"values": [float("inf")]}]),
        "benchmarks[0].runs[0].values[0]: a value must be a finite number > 0, got inf",
        id="infinite-value",
    ),
    pytest.param(
        document(runs=[{"values": ["1.0"]}]),
        "benchmarks[0].runs[0].values[0]: a value must be a finite number > 0, got '1.0'",
        id="string-value",
    ),
    pytest.param(
        document(runs=[{"values": [True]}]),
        "benchmarks[0].runs[0].values[0]: a value must be a finite number > 0, got True",
        id="bool-value",
    ),
    pytest.param(
        document(runs=[{"values": [1.0], "warmups": [[0, 1.0]]}]),
        "benchmarks[0].runs[0].warmups[0]: loops must be an int >= 1, got 0",
        id="warmup-loops",
    ),
    pytest.param(
        document(runs=[{"values": [1.0], "warmups": [[1, -1.0]]}]),
        "benchmarks[0].runs[0].warmups[0]: value must be a finite number >= 0, got -1.0",
        id="warmup-value",
    ),
    pytest.param(
        document(runs=[{"values": [1.0], "warmups": [1.0]}]),
        "benchmarks[0].runs[0].warmups[0]: a warmup must be a (loops, value) pair, got 1.0",
        id="warmup-shape",
    ),
    pytest.param(
        document(bench_metadata={}),
        "benchmarks[0].runs[0]: a benchmark must have a name: the first run has no 'name' metadata",
        id="no-name",
    ),
    pytest.param(
        document(bench_metadata={"name": "a", "loops": "x"}),
        "benchmarks[0].metadata: metadata 'loops': expected int, got str 'x'",
        id="metadata-value-type",
    ),
    pytest.param(
        document(runs=[{"values": [1.0], "metadata": {"date": "yesterday"}}]),
        "benchmarks[0].runs[0].metadata: metadata 'date': must be a date 'YYYY-MM-DD HH:MM:SS[.ffffff]', got 'yesterday'",
        id="bad-date",
    ),
    pytest.param(
        document(runs=[{"values": [1.0]}, {"values": [1.0], "metadata": {"unit": "byte"}}]),
        "benchmarks[0].runs[1]: benchmark 'bench': incompatible run: metadata 'unit' is 'byte' in the run "
        "but missing in the benchmark",
        id="mixed-units",
    ),
    pytest.param(
        {
            "version": "1.0",
            "benchmarks": [
                {"metadata": {"name": "a"}, "runs": [{"values": [1.0]}]},
                {"metadata": {"name": "a"}, "runs": [{"values": [2.0]}]},
            ],
        },
        "benchmarks[1]: duplicate benchmark name 'a'",
        id="duplicate-names",
    ),
    pytest.param(
        {"version": 5, "benchmarks": [{"common_metadata": {"name": "a"}, "runs": [{"values": [1.0]}]}]},
        "benchmarks[0].runs[0]: unknown key 'values'",
        id="v5-uses-samples",
    ),
    pytest.param(
        {"version": 6, "benchmarks": [{"common_metadata": {"name": "a"}, "runs": [{"values": [1.0]}]}]},
        "benchmarks[0]: unknown key 'common_metadata'",
        id="v6-uses-metadata",
    ),
]


@pytest.mark.parametrize(("data", "message"), BAD_DOCUMENTS)
def test_bad_documents_raise_one_typed_error_naming_file_and_path(data, message):
    with pytest.raises(FileFormatError, match=re.escape(f"bench.json: {message}")) as info:
        decode_suite(data, "bench.json")
    assert str(info.value) == f"bench.json: {message}"
    assert info.value.filename == "bench.json"
    assert isinstance(info.value, ValueError)  # pyperf raised ValueError


def test_metadata_is_merged_suite_then_benchmark_then_run():
    data = document(
        runs=[{"values": [1.0], "metadata": {"loops": 4}}, {"values": [2.0]}],
        bench_metadata={"name": "b", "loops": 2, "hostname": "box"},
        suite_metadata={"hostname": "suite-host", "cpu_count": 2},
    )
    benchmark = decode_suite(data, None).get_benchmark("b")
    first, second = benchmark.get_runs()
    assert first.get_metadata() == {"name": "b", "loops": 4, "hostname": "box", "cpu_count": 2}
    assert second.get_metadata() == {"name": "b", "loops": 2, "hostname": "box", "cpu_count": 2}


def test_format_1_0_warmups_are_kept_per_iteration():
    data = document(runs=[{"values": [1.0], "warmups": [[4, 0.5]], "metadata": {"loops": 4}}])
    run = decode_suite(data, None).get_benchmarks()[0].get_runs()[0]
    assert run.warmups == ((4, 0.5),)


@pytest.mark.parametrize("version", [5, 6])
def test_old_formats_divide_raw_warmups_by_total_loops(version):
    values_key = "samples" if version == 5 else "values"
    metadata_key = "common_metadata" if version == 5 else "metadata"
    data = {
        "version": version,
        "benchmarks": [
            {
                metadata_key: {"name": "b", "inner_loops": 10, "loops": 4},
                "runs": [{values_key: [1.0], "warmups": [[4, 80.0], [2, 40.0]]}],
            }
        ],
    }
    run = decode_suite(data, "old.json").get_benchmarks()[0].get_runs()[0]
    assert run.warmups == ((4, 2.0), (2, 2.0))
    assert run.values == (1.0,)


def test_version_5_has_no_root_metadata():
    data = {"version": 5, "metadata": {}, "benchmarks": [{"runs": [{"samples": [1.0]}]}]}
    with pytest.raises(FileFormatError, match="top level: unknown key 'metadata'"):
        decode_suite(data, "old.json")


def test_calibration_run_with_only_warmups_is_valid():
    data = document(runs=[{"warmups": [[1, 0.1], [2, 0.05]], "metadata": {"calibrate_loops": 2}}, {"values": [1.0]}])
    runs = decode_suite(data, None).get_benchmarks()[0].get_runs()
    assert runs[0].is_calibration_loops()
    assert runs[0].values == ()


def test_encode_factors_metadata_at_three_levels():
    suite = BenchmarkSuite(
        [
            Benchmark([named("a", 1.0, host="h", loops=2), named("a", 2.0, host="h", loops=4)]),
            Benchmark([named("b", 3.0, host="h", loops=8)]),
        ]
    )
    assert encode_suite(suite) == {
        "version": "1.0",
        "metadata": {"host": "h"},
        "benchmarks": [
            {
                "metadata": {"name": "a"},
                "runs": [{"values": (1.0,), "metadata": {"loops": 2}}, {"values": (2.0,), "metadata": {"loops": 4}}],
            },
            {"metadata": {"name": "b", "loops": 8}, "runs": [{"values": (3.0,)}]},
        ],
    }


def test_encode_omits_empty_parts_and_keeps_calibration_warmups():
    calibration = Run([], warmups=[(1, 0.5)], metadata={"name": "a", "calibrate_loops": 1}, collect_metadata=False)
    suite = BenchmarkSuite([Benchmark([calibration, named("a", 1.0)])])
    bench = encode_suite(suite)["benchmarks"][0]
    assert bench["runs"][0] == {"warmups": ((1, 0.5),), "metadata": {"calibrate_loops": 1}}
    assert bench["runs"][1] == {"values": (1.0,)}


def test_encode_decode_round_trip_preserves_everything():
    runs = [
        Run(
            [1.5, 2.5],
            warmups=[(2, 0.25)],
            metadata={"name": "x", "loops": 2, "date": "2024-01-02 03:04:05"},
            collect_metadata=False,
        ),
        Run([3.5], metadata={"name": "x", "loops": 2, "tags": ["a", "b"]}, collect_metadata=False),
    ]
    suite = BenchmarkSuite([Benchmark(runs)])
    data = json.loads(json.dumps(encode_suite(suite)))
    loaded = decode_suite(data, "x.json")
    assert [(r.values, r.warmups, r.get_metadata()) for r in loaded.get_benchmarks()[0].get_runs()] == [
        (r.values, r.warmups, r.get_metadata()) for r in runs
    ]
    assert loaded.filename == "x.json"
