"""compare_to --table: a benchmark name with ``|`` keeps every row of the
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
