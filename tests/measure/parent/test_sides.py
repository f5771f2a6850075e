"""The sides of a --compare-to run: their labels and the files they name.

Interpreters are paths only (nothing runs); a virtual environment is a
folder holding ``pyvenv.cfg``, and the versions come from fake probes.
"""

from __future__ import annotations

import argparse
import sys

import pytest

from perf.measure.parent.probe import PythonProbe
from perf.measure.parent.sides import python_labels, side_labels, side_paths, version_label

V3117 = "3.11.7 (64-bit) revision fa7a6f2303"
V3121 = "3.12.1 (64-bit)"


def venv_python(root, name, python="python"):
    """The interpreter of a virtual environment *name* under *root* (its
    folder holds pyvenv.cfg; the interpreter itself need not exist)."""
    folder = root / name
    folder.mkdir()
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return str(folder / "bin" / python)


# -- files -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, expected",
    [
        ("a.json", ("a-ref.json", "a-changed.json")),
        ("out/a.json.gz", ("out/a-ref.json.gz", "out/a-changed.json.gz")),
        ("a", ("a-ref", "a-changed")),
    ],
)
def test_compare_to_writes_one_file_per_side(path, expected):
    assert side_paths(path) == expected


@pytest.mark.parametrize(
    "labels, expected",
    [
        (("3.11", "3.12"), ("ab-3.11.json", "ab-3.12.json")),
        (("3.11.7", "3.12.1"), ("ab-3.11.7.json", "ab-3.12.1.json")),
        (("python3.11", "pypy3"), ("ab-python3.11.json", "ab-pypy3.json")),
        (("PyPy 7.3.13", "3.10.13"), ("ab-PyPy-7.3.13.json", "ab-3.10.13.json")),
        (("main branch", "my/fix"), ("ab-main-branch.json", "ab-my-fix.json")),
        ((".venv", "vperf"), ("ab-.venv.json", "ab-vperf.json")),  # the label as it is, its dot too
        (("-x.", "y-"), ("ab-x.json", "ab-y.json")),  # no dash after the stem's, no dot before .json
        (("a b", "a/b"), ("ab-ref.json", "ab-changed.json")),  # the same file name
        (("...", "x"), ("ab-ref.json", "ab-changed.json")),  # nothing left of a label
        (("x" * 41, "y"), ("ab-ref.json", "ab-changed.json")),  # too long
    ],
)
def test_side_files_are_named_after_the_labels(labels, expected):
    assert side_paths("ab.json", labels) == expected


# -- labels from paths ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "reference, changed, expected",
    [
        ("/usr/bin/python3.11", "/usr/bin/python3.12", ("python3.11", "python3.12")),  # pyperf's labels
        ("/a/venv/bin/python", "/b/venv/bin/python", ("a", "b")),  # no pyvenv.cfg there: project folders
        ("/root/.pyenv/versions/3.11.7/bin/python", "/root/.pyenv/versions/3.12.1/bin/python", ("3.11.7", "3.12.1")),
        ("/usr/bin/python3", "/usr/local/bin/python3", ("usr", "local")),
        ("/opt/python", "/opt/python", ("ref", "changed")),
        ("/python", "/x/python", ("ref", "changed")),
    ],
)
def test_python_labels_tell_the_sides_apart(reference, changed, expected):
    assert python_labels(reference, changed) == expected
    # labels the paths give are kept whatever the versions
    assert python_labels(reference, changed, (V3117, V3121)) == (
        expected if expected != ("ref", "changed") else ("3.11.7", "3.12.1")
    )


# -- labels from versions ------------------------------------------------------------------


def test_virtual_environments_are_labelled_by_version(tmp_path):
    """.venv and vperf (pyperf: ab-venv.json) say nothing of what differs:
    the versions do."""
    reference, changed = venv_python(tmp_path, ".venv"), venv_python(tmp_path, "vperf")
    assert python_labels(reference, changed, (V3117, V3121)) == ("3.11.7", "3.12.1")
    assert side_paths("ab.json", python_labels(reference, changed, (V3117, V3121))) == (
        "ab-3.11.7.json",
        "ab-3.12.1.json",
    )


def test_one_virtual_environment_is_enough_to_use_the_versions(tmp_path):
    """pyenv's 3.12.1 against a .venv: the version of the .venv, not its name."""
    pyenv = "/root/.pyenv/versions/3.12.1/bin/python"
    assert python_labels(pyenv, venv_python(tmp_path, ".venv"), (V3121, V3117)) == ("3.12.1", "3.11.7")


def test_a_file_name_without_version_uses_the_versions(tmp_path):
    """``--compare-to python3.12`` run from a virtual environment's
    ``python``: pyperf labels them python3.12 and python."""
    venv = venv_python(tmp_path, ".venv")
    assert python_labels("/usr/bin/python3.12", venv, (V3121, V3117)) == ("3.12.1", "3.11.7")
    assert python_labels("/usr/bin/pypy3", "/usr/bin/python3.11", ("PyPy 7.3.13 (Python 3.10.13)", V3117)) == (
        "PyPy 7.3.13",
        "3.11.7",
    )


def test_the_same_version_keeps_distinct_path_labels(tmp_path):
    """Two virtual environments of one interpreter: their folder names are
    distinct and stable; the same version twice would not be."""
    reference, changed = venv_python(tmp_path, ".venv"), venv_python(tmp_path, "vperf")
    assert python_labels(reference, changed, (V3117, V3117)) == (".venv", "vperf")
    assert python_labels(reference, changed, (V3117, None)) == (".venv", "vperf")  # a version unknown
    assert python_labels(reference, changed, (V3117, "3.11.7 (64-bit) revision 0123456789")) == (".venv", "vperf")


def test_the_same_interpreter_is_ref_and_changed():
    assert python_labels("/usr/bin/python3", "/usr/bin/python3", (V3117, V3117)) == ("ref", "changed")


@pytest.mark.parametrize(
    "metadata, expected",
    [
        (V3117, "3.11.7"),
        ("3.14.0a1+ (64-bit) revision 8cf1cc3", "3.14.0a1+"),
        ("PyPy 7.3.13 (Python 3.10.13) (64-bit)", "PyPy 7.3.13"),
        ("3.12.1", "3.12.1"),
    ],
)
def test_version_label_is_the_version_part_of_the_metadata(metadata, expected):
    assert version_label(metadata) == expected


# -- the labels of a run's options -----------------------------------------------------------


def options_of(compare_to, python, python_names=None):
    return argparse.Namespace(compare_to=compare_to, python=python, python_names=python_names)


def test_side_labels_take_the_versions_from_the_probes(tmp_path):
    reference, changed = venv_python(tmp_path, ".venv"), venv_python(tmp_path, "vperf")
    probes = {reference: PythonProbe("cpython", {"python_version": V3117}), changed: PythonProbe("cpython", {})}
    options = options_of(reference, changed)
    assert side_labels(options, probes=probes) == (".venv", "vperf")  # one version unknown
    probes[changed] = PythonProbe("cpython", {"python_version": V3121})
    assert side_labels(options, probes=probes) == ("3.11.7", "3.12.1")
    probes[changed] = PythonProbe("cpython", None)  # its perf could not say
    assert side_labels(options, probes=probes) == (".venv", "vperf")


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="PyPy's label is its own version")
def test_side_labels_know_the_version_of_this_interpreter(tmp_path, monkeypatch):
    """This interpreter is not probed: its version is its own."""
    import platform

    reference = venv_python(tmp_path, ".venv")
    monkeypatch.setattr(sys, "executable", venv_python(tmp_path, "here"))
    probes = {reference: PythonProbe("cpython", {"python_version": "2.7.18 (64-bit)"})}
    assert side_labels(options_of(reference, sys.executable), probes=probes) == ("2.7.18", platform.python_version())


def test_python_names_always_win(tmp_path):
    reference, changed = venv_python(tmp_path, ".venv"), venv_python(tmp_path, "vperf")
    probes = {
        python: PythonProbe("cpython", {"python_version": v}) for python, v in [(reference, V3117), (changed, V3121)]
    }
    assert side_labels(options_of(reference, changed, ("old", "new")), probes=probes) == ("old", "new")
