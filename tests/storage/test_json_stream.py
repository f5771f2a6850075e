"""perf.storage.json_stream: the fast decoder of format "1.0" text builds what the reference decoder
builds, and leaves everything else (errors included) to it."""

from __future__ import annotations

import gzip
import json
import pathlib
import re

import pytest
from test_json_format import BAD_DOCUMENTS

from perf.errors import FileFormatError
from perf.storage import files, json_format, json_stream
from perf.storage.json_format import decode_suite
from perf.storage.json_stream import SlowPathNeeded, decode_text

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"
RESULT_FILES = sorted(
    path.name for path in DATA.glob("*.json") if not path.name.endswith((".expected.json", ".redump.json"))
)


def describe(suite):
    """Everything a suite shows, metadata key order included."""
    lines = [suite.filename, list(suite.get_metadata().items())]
    for benchmark in suite:
        lines.append((benchmark.get_name(), list(benchmark.get_metadata().items()), benchmark.get_dates()))
        lines.extend((run.values, run.warmups, list(run.get_metadata().items())) for run in benchmark.get_runs())
    return lines


def reference(text, name):
    return describe(decode_suite(json.loads(text, parse_constant=json_format.reject_constant), name))


@pytest.mark.parametrize("name", RESULT_FILES)
def test_builds_what_the_reference_builds(name):
    text = (DATA / name).read_text()
    if json.loads(text)["version"] != "1.0":
        with pytest.raises(SlowPathNeeded):
            decode_text(text, name)
        return
    for layout in (text, json.dumps(json.loads(text), indent=4)):
        assert describe(decode_text(layout, name)) == reference(layout, name)


@pytest.mark.parametrize("name", RESULT_FILES)
def test_streams_a_file_across_chunks(name, monkeypatch, tmp_path):
    monkeypatch.setattr(json_stream, "_CHUNK", 7)  # every value is cut somewhere
    text = (DATA / name).read_text()
    (tmp_path / name).write_bytes(gzip.compress(text.encode()))
    for path in (DATA / name, tmp_path / name):
        suite = files.load(str(path))
        assert describe(suite) == reference(text, str(path))


def is_json(document):
    try:
        json.dumps(document, allow_nan=False)
    except ValueError:  # an infinity
        return False
    return True


@pytest.mark.parametrize(("document", "message"), [param.values for param in BAD_DOCUMENTS if is_json(param.values[0])])
def test_errors_are_the_reference_errors(document, message, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    with pytest.raises(SlowPathNeeded):
        decode_text(path.read_text(), str(path))
    with pytest.raises(FileFormatError, match="^" + re.escape(f"{path}: {message}") + "$"):
        files.load(str(path))


def document(runs, bench_metadata=None, suite_metadata=None):
    data = {"version": "1.0", "benchmarks": [{"metadata": bench_metadata or {"name": "b"}, "runs": runs}]}
    if suite_metadata is not None:
        data["metadata"] = suite_metadata
    return json.dumps(data)


@pytest.mark.parametrize(
    "text",
    [
        # the reference strips the string
        document([{"values": [1.0], "metadata": {"cpu_freq": " 1 MHz "}}]),
        # runs must agree on a checked key: the reference compares them
        document([{"values": [1.0], "metadata": {"hostname": "a"}}, {"values": [2.0], "metadata": {"hostname": "a"}}]),
        # a date the shape check does not know
        document([{"values": [1.0], "metadata": {"date": "2026-01-02T03:04:05"}}]),
    ],
)
def test_unusual_valid_documents_go_to_the_reference(text, tmp_path):
    path = tmp_path / "unusual.json"
    path.write_text(text)
    suite = files.load(str(path))
    assert describe(suite) == reference(text, str(path))


def test_the_name_may_come_from_the_suite_metadata():
    text = document([{"values": [1.0], "metadata": {"date": "2026-01-02 03:04:05.000006"}}], {}, {"name": "b"})
    assert describe(decode_text(text, "x")) == reference(text, "x")


def test_loaded_runs_share_the_metadata_of_their_benchmark():
    suite = decode_text((DATA / "suite_tags.json").read_text(), "x")
    for benchmark in suite:
        runs = benchmark.get_runs()
        assert all(run._metadata[0] is runs[0]._metadata[0] for run in runs)
