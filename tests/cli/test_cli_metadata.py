"""python -m perf metadata: common metadata, then each benchmark's."""

from __future__ import annotations

import pytest
from golden import (  # noqa: F401 (deterministic: an autouse fixture)
    DATA,
    FIXTURES,
    deterministic,
    perf_additions,
    pyperf_output,
    pyperf_status,
    run,
    summarised_pyperf_output,
    without,
)


@pytest.mark.parametrize("name", FIXTURES)
def test_metadata_matches_pyperf(name, capsys):
    status, out, err = run(capsys, "metadata", str(DATA / name))
    assert (status, err) == (pyperf_status(name, "metadata"), "")
    assert without(out.splitlines(), perf_additions(name)) == summarised_pyperf_output(name, "metadata").splitlines()


def test_metadata_quiet_hides_warnings(capsys):
    status, out, _err = run(capsys, "metadata", "-q", str(DATA / "suite_tags.json"))
    assert status == 0
    assert "WARNING" not in out
    assert out.startswith("Common metadata\n===============\n\n- aslr: Full randomization\n")
    assert (
        "\n\nsort_list\n---------\n\nMetadata:\n- loops: 2^15\n- tags: ['builtins', 'sorting']\n\nbuild_dict\n" in out
    )


def test_metadata_one_selected_benchmark_keeps_its_name(capsys):
    status, out, _err = run(capsys, "metadata", "-q", "-b", "join_str", str(DATA / "suite_tags.json"))
    assert status == 0
    assert out.startswith("Metadata:\n")
    assert "- name: join_str\n" in out


def test_metadata_not_json(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text("{")
    status, out, err = run(capsys, "metadata", str(path))
    assert (status, out) == (1, "")
    assert err.startswith("ERROR: ") and err.count("\n") == 1


def test_metadata_shows_the_clock_of_cpu_clock_runs(tmp_path, capsys):
    from golden import cpu_clock_copy

    path = cpu_clock_copy(tmp_path)
    status, out, _err = run(capsys, "metadata", "-q", str(path))
    assert status == 0
    assert "- clock: cpu (CPU time of the worker thread)\n" in out
