"""compare_to --table, and what is printed around it.

A benchmark name with ``|`` keeps every row of the
Markdown table in its columns (result files cannot hold a line break in a
name: tests/render/test_render_compare.py checks the tables with one)."""

from __future__ import annotations

from golden import DATA, run

COMPARE = DATA / "compare"


def renamed(tmp_path):
    """ref.json and changed.json with call_slower named 'a|b' and
    call_faster named '|x|'."""
    paths = []
    for stem in ("ref", "changed"):
        text = (COMPARE / f"{stem}.json").read_text()
        text = text.replace('"call_slower"', '"a|b"').replace('"call_faster"', '"|x|"')
        path = tmp_path / f"{stem}.json"
        path.write_text(text)
        paths.append(str(path))
    return paths


def table(capsys, tmp_path, *options):
    ref, changed = renamed(tmp_path)
    status, out, err = run(capsys, "compare_to", "--table", "-q", "-b", "a|b", "-b", "|x|", *options, ref, changed)
    assert (status, err) == (0, "")
    # the benchmarks are tagged 'calls': a section for the tag, then all
    tagged, all_benchmarks = out.split("\nAll benchmarks:\n===============\n\n")
    assert tagged == "Benchmarks with tag 'calls':\n============================\n\n" + all_benchmarks
    return all_benchmarks


def test_markdown_table_escapes_pipes(tmp_path, capsys):
    assert table(capsys, tmp_path, "--table-format", "md") == (
        "| Benchmark      | ref     | changed                         |\n"
        "|----------------|:-------:|:-------------------------------:|\n"
        "| a\\|b           | 1.99 us | 1.11x slower [1.10x .. 1.12x]   |\n"
        "| \\|x\\|          | 4.99 us | 1.25x faster [1.24x .. 1.26x]   |\n"
        "| Geometric mean | (ref)   | 1.06x faster [1.055x .. 1.066x] |\n"
    )


def test_rest_table_keeps_pipes_inside_cells(tmp_path, capsys):
    assert table(capsys, tmp_path) == (
        "+----------------+---------+---------------------------------+\n"
        "| Benchmark      | ref     | changed                         |\n"
        "+================+=========+=================================+\n"
        "| a|b            | 1.99 us | 1.11x slower [1.10x .. 1.12x]   |\n"
        "+----------------+---------+---------------------------------+\n"
        "| |x|            | 4.99 us | 1.25x faster [1.24x .. 1.26x]   |\n"
        "+----------------+---------+---------------------------------+\n"
        "| Geometric mean | (ref)   | 1.06x faster [1.055x .. 1.066x] |\n"
        "+----------------+---------+---------------------------------+\n"
    )


# -- nothing significant (issue 23: a table that printed nothing) ----------------------


def same_files(tmp_path, names, incomplete=None):
    """Two files with the same values: no benchmark differs; *incomplete*:
    the runs of the changed file are marked so."""
    from perf.model.benchmark import Benchmark
    from perf.model.run import Run
    from perf.model.suite import BenchmarkSuite

    def runs(name):
        values = [[1.0 + (process * 7 + value) % 5 / 100 for value in range(3)] for process in range(10)]
        return [Run(v, metadata={"name": name, "loops": 1}, collect_metadata=False) for v in values]

    paths = []
    for stem in ("ref", "changed"):
        path = tmp_path / f"{stem}.json"
        benchmarks = [Benchmark(runs(name)) for name in names]
        if incomplete and stem == "changed":
            for benchmark in benchmarks:
                benchmark.update_metadata({"incomplete": incomplete})
        BenchmarkSuite(benchmarks).dump(str(path))
        paths.append(str(path))
    return paths


def compare(capsys, paths, *options):
    status, out, err = run(capsys, "compare_to", *options, *paths)
    assert (status, err) == (0, "")
    return out


def test_a_table_without_significant_row_keeps_the_geometric_mean_and_names_the_others(tmp_path, capsys):
    paths = same_files(tmp_path, ["x", "y"])
    for quiet in ([], ["-q"]):
        out = compare(capsys, paths, "--table", *quiet)
        assert "| Geometric mean | (ref) | no change [0.996x .. 1.004x] (no change) |" in out.splitlines()
        # pyperf's table names the hidden benchmarks, even with -q
        assert "Benchmark hidden because not significant (2): x, y" in out.splitlines()


def test_a_verbose_table_has_a_row_for_every_benchmark(tmp_path, capsys):
    out = compare(capsys, same_files(tmp_path, ["x", "y"]), "--table", "-v").splitlines()
    rows = [line.split("|")[1].strip() for line in out if line.startswith("| ")]
    assert rows == ["Benchmark", "x", "y", "Geometric mean"]
    assert "not significant" in out[3]
    assert not any(line.startswith("Benchmark hidden") for line in out)


def test_quiet_output_is_never_empty(tmp_path, capsys):
    """-q with one benchmark that does not differ: pyperf prints nothing;
    perf says which benchmark it hid, in every layout."""
    paths = same_files(tmp_path, ["x"])
    for layout in ([], ["--table"], ["-G"]):
        assert compare(capsys, paths, "-q", *layout) == "Benchmark hidden because not significant (1): x\n", layout


def test_an_incomplete_file_is_a_warning_but_not_with_quiet(tmp_path, capsys):
    paths = same_files(tmp_path, ["x"], incomplete="interrupted after 10 of 24 processes")
    out = compare(capsys, paths).splitlines()
    assert out[-1] == "WARNING: x (changed) is incomplete: interrupted after 10 of 24 processes"
    assert "incomplete" not in compare(capsys, paths, "-q")
