"""plan_run: the checked options and the sides of a run.

The probe of another interpreter is a fake: nothing is started.
"""

from __future__ import annotations

import re
import sys

import pytest
from helpers import runner_given

from perf.errors import OutputExistsError, UsageError
from perf.measure.options import RunOptions
from perf.measure.parent.probe import PythonProbe
from perf.measure.plan import plan_run
from perf.measure.values import GivenBudget


def fake_probe(python, env):
    return PythonProbe("pypy" if "pypy" in python else "cpython", {"python_executable": python})


def executable(tmp_path, name):
    path = tmp_path / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def plan_of(argv, mode="script", script=("bench.py",), program=None):
    return plan_run(
        runner_given(argv), mode, script, defaults=GivenBudget(), program=program or (), jit=False, probe=fake_probe
    )


def test_one_side_runs_the_script_with_this_interpreter():
    plan = plan_of(["-p", "3"])
    (side,) = plan.sides
    assert (side.kind, side.python, side.script, side.label) == ("interpreter", sys.executable, ("bench.py",), None)
    assert side.options.processes == 3
    assert plan.labels is None


def test_compare_to_gives_two_labelled_sides_each_with_its_budget(tmp_path):
    pypy = executable(tmp_path, "pypy3")
    plan = plan_of(["--compare-to", pypy])
    reference, changed = plan.sides
    assert (reference.python, changed.python) == (pypy, sys.executable)
    assert plan.labels == (reference.label, changed.label)
    assert reference.label == "pypy3"
    assert (reference.options.processes, reference.options.warmups) == (6, "auto")  # the JIT budget
    assert (changed.options.processes, changed.options.warmups) == (24, 1)
    assert set(plan.probes) == {pypy}


def test_virtual_environments_are_labelled_by_the_versions_their_probes_said(tmp_path):
    """The probes' versions label the sides, and name the files of -o,
    checked before the run."""
    pythons = []
    for name in (".venv", "vperf"):
        (tmp_path / name / "bin").mkdir(parents=True)
        (tmp_path / name / "pyvenv.cfg").write_text("home = /usr/bin\n")
        pythons.append(executable(tmp_path, f"{name}/bin/python"))
    versions = dict(zip(pythons, ("3.12.1 (64-bit)", "3.11.7 (64-bit) revision fa7a6f2303")))

    def probe(python, env):
        return PythonProbe("cpython", {"python_version": versions[python]})

    argv = ["--compare-to", pythons[0], "--python", pythons[1], "-o", str(tmp_path / "ab.json")]
    plan = plan_run(runner_given(argv), "script", ("bench.py",), defaults=GivenBudget(), jit=False, probe=probe)
    assert plan.labels == ("3.12.1", "3.11.7")
    assert [side.label for side in plan.sides] == ["3.12.1", "3.11.7"]
    (tmp_path / "ab-3.11.7.json").write_text("{}")
    with pytest.raises(OutputExistsError, match=re.escape(f"{tmp_path / 'ab-3.11.7.json'}: the file already exists")):
        plan_run(runner_given(argv), "script", ("bench.py",), defaults=GivenBudget(), jit=False, probe=probe)


def test_command_sides_are_programs_run_by_this_interpreter():
    plan = plan_of(["--compare-to", "true --old"], mode="command", script=("-m", "perf", "command"), program=["true"])
    reference, changed = plan.sides
    assert (reference.kind, reference.program, changed.program) == ("program", ("true", "--old"), ("true",))
    assert reference.python == changed.python == sys.executable
    assert plan.labels == ("true --old", "true")


def test_a_script_from_the_command_line_cannot_be_rerun_by_workers():
    with pytest.raises(UsageError, match="save it to a file instead of using python -c or stdin"):
        plan_of([], script=("-c",))


def test_a_worker_plans_no_side_and_probes_nothing(tmp_path):
    plan = plan_of(["--worker", "--python", executable(tmp_path, "pypy3")])
    assert plan.sides == ()
    assert plan.probes == {}


# -- typed options: RunOptions.create and plan_run ------------------------------------


@pytest.mark.usefixtures("no_jit_budget")
def test_typed_options_plan_as_the_command_line():
    from perf.measure.options import RunOptions
    from perf.measure.plan import plan_run

    options = RunOptions.create(processes=3, values=2, min_time=0.01, hook=["perf_record"])
    expected = plan_of(["-p", "3", "-n", "2", "--min-time", "0.01", "--hook", "perf_record"])
    assert plan_run(options, "script", ("bench.py",), jit=False, probe=fake_probe) == expected


@pytest.mark.usefixtures("no_jit_budget")
def test_typed_options_of_a_comparison_give_each_side_its_budget(tmp_path, monkeypatch):
    from perf.measure.options import RunOptions
    from perf.measure.parent import probe
    from perf.measure.plan import plan_run

    monkeypatch.setattr(probe, "probe_python", fake_probe)
    pypy = executable(tmp_path, "pypy3")
    options = RunOptions.create(compare_to=pypy, values=5)
    plan = plan_run(options, "script", ("bench.py",), jit=False, probe=fake_probe)
    assert plan == plan_of(["--compare-to", pypy, "-n", "5"])
    reference, changed = plan.sides
    assert (reference.options.processes, reference.options.values, reference.options.warmups) == (6, 5, "auto")
    assert (changed.options.processes, changed.options.values, changed.options.warmups) == (24, 5, 1)


@pytest.mark.usefixtures("no_jit_budget")
def test_typed_options_of_command(tmp_path):
    from perf.measure.options import RunOptions
    from perf.measure.plan import plan_run

    options = RunOptions.create(mode="command", compare_to="true --old")
    plan = plan_run(options, "command", ("-m", "perf", "command"), program=["true"], jit=False)
    expected = plan_of(
        ["--compare-to", "true --old"], mode="command", script=("-m", "perf", "command"), program=["true"]
    )
    assert plan == expected


def test_options_with_a_final_budget_keep_it_on_every_side(tmp_path):
    from perf.measure.options import RunOptions
    from perf.measure.plan import plan_run

    pypy = executable(tmp_path, "pypy3")
    plan = plan_run(
        RunOptions(processes=3, values=1, warmups=0, loops=1, compare_to=pypy),
        "script",
        ("bench.py",),
        probe=fake_probe,
    )
    assert [side.options.processes for side in plan.sides] == [3, 3]


def test_typed_options_cannot_plan_a_script_given_on_the_command_line():
    from perf.measure.options import RunOptions
    from perf.measure.plan import plan_run

    with pytest.raises(UsageError, match="save it to a file instead of using python -c or stdin"):
        plan_run(RunOptions.create(), "script", ("-c",))


def test_given_options_left_out_have_their_defaults():
    assert plan_run(
        RunOptions.create(processes=3), "script", ("bench.py",), defaults=GivenBudget(), jit=False
    ) == plan_of(["-p", "3"])


def test_every_road_checks_the_hook_names():
    """The Runner, the API and history plan through plan_run: an unknown
    hook is refused before anything runs, whoever asks."""
    with pytest.raises(UsageError, match=r"^--hook: unknown hook 'nope' \(known: .*perf_record"):
        plan_run(RunOptions(hook=("nope",)), "script", ("bench.py",), jit=False, probe=fake_probe)
    plan = plan_run(RunOptions(hook=("perf_record",)), "script", ("bench.py",), jit=False, probe=fake_probe)
    assert plan.options.hook == ("perf_record",)
