"""Helper for make_fixtures.sh: ask the real pyperf what it makes of a file.

Run it with the Python of a venv where pyperf 2.10.0 is installed.

Sub-commands:

  expected FILE OUT     write the figures pyperf reports for FILE as JSON
  redump FILE OUT       BenchmarkSuite.load(FILE).dump(OUT, replace=True)
                        (compact JSON, never gzip-compressed)
  add-tags FILE NAME=TAG[,TAG...] ...
                        add 'tags' metadata to benchmarks through pyperf's API
                        and rewrite FILE with BenchmarkSuite.dump()
  downconvert VERSION IN OUT
                        write IN (a JSON format "1.0" file) in the older
                        JSON format VERSION (5 or 6).  This is *our* code,
                        not perf's: it is only used for the files named
                        *_synthetic.json (see README.rst).
  keys FILE...          print the JSON keys found at root / benchmark / run
                        level of each file
"""

import gzip
import json
import sys

import pyperf

PERCENTILES = (0, 5, 25, 50, 75, 95, 100)


def _error(exc):
    return {"error": f"{type(exc).__name__}: {exc}"}


def _call(func, *args):
    try:
        return func(*args)
    except Exception as exc:
        return _error(exc)


def _dates(dates):
    if dates is None:
        return None
    start, end = dates
    return [start.isoformat(" "), end.isoformat(" ")]


def _run_figures(run):
    warmups = run.warmups
    return {
        "values": list(run.values),
        "warmups": [list(item) for item in warmups] if warmups else [],
        "metadata": run.get_metadata(),
        "is_calibration": _call(run._is_calibration),
    }


def _stdev(bench):
    if bench.get_nvalue() < 2:
        return None
    return bench.stdev()


def _bench_figures(bench):
    data = {
        "nrun": _call(bench.get_nrun),
        "nvalue": _call(bench.get_nvalue),
        "values": _call(lambda: list(bench.get_values())),
        "runs": [_run_figures(run) for run in bench.get_runs()],
        "metadata": _call(bench.get_metadata),
        "unit": _call(bench.get_unit),
        "mean": _call(bench.mean),
        "median": _call(bench.median),
        "stdev": _call(_stdev, bench),
        "median_abs_dev": _call(bench.median_abs_dev),
        "percentiles": {str(p): _call(bench.percentile, p) for p in PERCENTILES},
        "dates": _call(lambda: _dates(bench.get_dates())),
        "total_duration": _call(bench.get_total_duration),
        "loops": _call(bench.get_loops),
        "inner_loops": _call(bench.get_inner_loops),
        "total_loops": _call(bench.get_total_loops),
        "nwarmup": _call(bench._get_nwarmup),
        "format_value_mean": _call(lambda: bench.format_value(bench.mean())),
        "repr": repr(bench),
    }
    if hasattr(bench, "required_nprocesses"):
        data["required_nprocesses"] = _call(bench.required_nprocesses)
    return data


def cmd_expected(path, out):
    suite = pyperf.BenchmarkSuite.load(path)
    data = {
        "pyperf_version": pyperf.__version__,
        "benchmark_names": suite.get_benchmark_names(),
        "metadata": _call(suite.get_metadata),
        "dates": _call(lambda: _dates(suite.get_dates())),
        "total_duration": _call(suite.get_total_duration),
        "benchmarks": {bench.get_name(): _bench_figures(bench) for bench in suite},
    }
    with open(out, "w") as fp:
        json.dump(data, fp, indent=2, sort_keys=True)
        fp.write("\n")


def cmd_redump(path, out):
    suite = pyperf.BenchmarkSuite.load(path)
    # pyperf picks gzip from the *output* name, so OUT must not end in .gz
    suite.dump(out, replace=True)


def cmd_add_tags(path, *specs):
    tags = {}
    for spec in specs:
        name, _, value = spec.partition("=")
        tags[name] = value.split(",")
    suite = pyperf.BenchmarkSuite.load(path)
    for bench in suite:
        name = bench.get_name()
        if name in tags:
            bench.update_metadata({"tags": tags.pop(name)})
    if tags:
        raise SystemExit(f"unknown benchmarks: {sorted(tags)}")
    suite.dump(path, replace=True)


def _load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as fp:
        return json.load(fp)


def cmd_downconvert(version, src, dst):
    """Rewrite a format "1.0" file in format 5 or 6.

    Layouts, as read by pyperf 2.10.0 (pyperf/_bench.py) and described by
    perf's changelog (0.8.3: format 5; 0.9.6: format 6; 1.0: warmups
    normalised per loop iteration):

    * format 6: same layout as "1.0", but each warmup is
      [loops, raw_value] with raw_value = value * loops * inner_loops.
    * format 5: no root metadata; the metadata common to all runs of a
      benchmark is in the benchmark's "common_metadata"; run values are
      under "samples" (always written, [] for a calibration run);
      warmups raw as in format 6.
    """
    version = int(version)
    if version not in (5, 6):
        raise SystemExit("version must be 5 or 6")
    data = _load_json(src)
    if data.get("version") != "1.0":
        raise SystemExit(f"{src}: not a format 1.0 file")
    root_md = data.get("metadata", {})
    benchmarks = []
    for bench in data["benchmarks"]:
        bench_md = dict(root_md, **bench.get("metadata", {}))
        runs = []
        for run in bench["runs"]:
            run_md = run.get("metadata", {})
            inner_loops = dict(bench_md, **run_md).get("inner_loops", 1)
            new_run = {}
            if run_md:
                new_run["metadata"] = run_md
            if version == 5:
                new_run["samples"] = run.get("values", [])
            elif run.get("values"):
                new_run["values"] = run["values"]
            if run.get("warmups"):
                new_run["warmups"] = [[loops, value * (loops * inner_loops)] for loops, value in run["warmups"]]
            runs.append(new_run)
        if version == 5:
            new_bench = {"common_metadata": bench_md, "runs": runs}
        else:
            new_bench = {"runs": runs}
            if bench.get("metadata"):
                new_bench["metadata"] = bench["metadata"]
        benchmarks.append(new_bench)
    out = {"benchmarks": benchmarks, "version": version}
    if version == 6 and root_md:
        out["metadata"] = root_md
    with open(dst, "w") as fp:
        json.dump(out, fp, sort_keys=True, separators=(",", ":"))
        fp.write("\n")


def cmd_keys(*paths):
    for path in paths:
        data = _load_json(path)
        bench_keys = set()
        run_keys = set()
        for bench in data["benchmarks"]:
            bench_keys |= set(bench)
            for run in bench["runs"]:
                run_keys |= set(run)
        print("{}: version={!r}".format(path, data.get("version")))
        print(f"  root:      {sorted(data)}")
        print(f"  benchmark: {sorted(bench_keys)}")
        print(f"  run:       {sorted(run_keys)}")


COMMANDS = {
    "expected": cmd_expected,
    "redump": cmd_redump,
    "add-tags": cmd_add_tags,
    "downconvert": cmd_downconvert,
    "keys": cmd_keys,
}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        sys.exit(2)
    COMMANDS[sys.argv[1]](*sys.argv[2:])


if __name__ == "__main__":
    main()
