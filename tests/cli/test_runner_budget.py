"""Runner defaults: the budget of the interpreter that runs the workers."""

from __future__ import annotations

import pytest

from perf.cli.runner import Runner
from perf.measure.parent import probe as probe_module
from perf.measure.parent.probe import PythonProbe

#: keep the classes alive: Runner tells them apart by id()
_CLASSES = []


def new_runner(**kwargs):
    """A fresh Runner subclass: only one Runner per class and process."""
    _CLASSES.append(type("TestRunner", (Runner,), {}))
    return _CLASSES[-1](**kwargs)


@pytest.fixture
def cpython(monkeypatch):
    """The running interpreter has no JIT (even when the tests run on PyPy)."""
    import perf.collect.python

    monkeypatch.setattr(perf.collect.python, "python_has_jit", lambda: False)
    monkeypatch.setattr(
        probe_module, "probe_python", lambda python, env: PythonProbe("pypy" if "pypy" in python else "cpython", None)
    )


def budget(args):
    return args.processes, args.values, args.warmups


def test_cpython_defaults(cpython):
    # at most 24 processes, stopped on precision, of one value each (doc/design.rst, R4)
    assert budget(new_runner().parse_args([])) == (24, 1, 1)
    assert budget(new_runner().parse_args(["-p", "24"])) == (24, 2, 1)  # a fixed budget: two values


def test_explicit_options_win_over_presets(cpython):
    assert budget(new_runner().parse_args(["--fast", "-p", "7"])) == (7, 2, 1)
    assert budget(new_runner().parse_args(["--rigorous", "-n", "5"])) == (48, 5, 1)


def test_constructor_values_are_defaults(cpython):
    assert budget(new_runner(values=4, processes=9, warmups=2).parse_args([])) == (9, 4, 2)
    assert budget(new_runner(warmups=None).parse_args([])) == (24, 1, "auto")


def test_compare_to_a_jit_gets_the_jit_budget(cpython, tmp_path):
    pypy = tmp_path / "pypy3"
    pypy.write_text("#!/bin/sh\n")
    pypy.chmod(0o755)
    runner = new_runner()
    args = runner.parse_args(["--compare-to", str(pypy)])
    assert budget(args) == (24, 1, 1)
    reference, changed = (side.options for side in runner.session.plan.sides)
    assert budget(reference) == (6, 10, "auto")
    assert budget(changed) == (24, 1, 1)


def test_compare_to_keeps_explicit_options_on_both_sides(cpython, tmp_path):
    pypy = tmp_path / "pypy3"
    pypy.write_text("#!/bin/sh\n")
    pypy.chmod(0o755)
    runner = new_runner()
    runner.parse_args(["--compare-to", str(pypy), "-p", "4", "-w", "3"])
    reference, changed = (side.options for side in runner.session.plan.sides)
    assert budget(reference) == (4, 10, 3)
    assert budget(changed) == (4, 2, 3)


def test_python_option_selects_the_budget(cpython, tmp_path):
    pypy = tmp_path / "pypy3"
    pypy.write_text("#!/bin/sh\n")
    pypy.chmod(0o755)
    assert budget(new_runner().parse_args(["--python", str(pypy)])) == (6, 10, "auto")


def test_the_help_says_which_values_a_default_run_takes(cpython):
    help_text = " ".join(new_runner().argparser.format_help().split())
    assert "number of values per process (default: 2; 1 without -p or --target-precision)" in help_text
    # a script's own values are the default either way
    help_text = " ".join(new_runner(values=5).argparser.format_help().split())
    assert "number of values per process (default: 5)" in help_text
