"""A worker's environment: kept variables, padding, layout warnings."""

from __future__ import annotations

import os
import random

import pytest
from helpers import make_tree

import perf
from perf.measure import environment
from perf.measure.environment import (
    MAX_PADDING,
    PADDING_VARIABLE,
    layout_warnings,
    padding_length,
    perf_source_folder,
    random_padding,
    worker_environment,
)

ENVIRON = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/me",
    "TMPDIR": "/var/tmp",
    "PYTHONPATH": "/lib/a",
    "LANG": "fr_FR.UTF-8",
    "LC_ALL": "C",
    "LC_TIME": "en_GB.UTF-8",
    "SECRET_TOKEN": "hunter2",
    "PYTHONHASHSEED": "0",
    "EDITOR": "vi",
}

ASLR_OFF_WARNING = (
    "ASLR is disabled (/proc/sys/kernel/randomize_va_space = 0): every worker gets the same memory "
    "layout, so the result holds for that layout only"
)


# -- worker_environment ------------------------------------------------------------


def test_base_and_locale_variables_are_kept_others_dropped():
    env = worker_environment(ENVIRON)
    assert env == {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/me",
        "TMPDIR": "/var/tmp",
        "PYTHONPATH": "/lib/a",
        "LANG": "fr_FR.UTF-8",
        "LC_ALL": "C",
        "LC_TIME": "en_GB.UTF-8",
        PADDING_VARIABLE: "",
    }


def test_windows_and_temporary_variables_are_base_variables():
    environ = {"TEMP": "t1", "TMP": "t2", "COMSPEC": "cmd", "SystemRoot": "C:", "SYSTEMROOT": "C:", "OTHER": "x"}
    env = worker_environment(environ)
    del env[PADDING_VARIABLE]
    assert env == {name: value for name, value in environ.items() if name != "OTHER"}


def test_the_gil_and_cpu_count_of_free_threaded_builds_are_passed_on():
    # pyperf >= 2.7 passes both: PYTHON_GIL=1 on a free-threaded build, and
    # the CPU count the interpreter reports (os.process_cpu_count, 3.13)
    env = worker_environment({**ENVIRON, "PYTHON_GIL": "1", "PYTHON_CPU_COUNT": "3"})
    assert (env["PYTHON_GIL"], env["PYTHON_CPU_COUNT"]) == ("1", "3")
    assert "PYTHON_GIL" not in worker_environment(ENVIRON)  # not set: not invented


def test_no_locale_drops_the_locale_variables():
    env = worker_environment(ENVIRON, locale=False)
    assert set(env) == {"HOME", PADDING_VARIABLE, "PATH", "PYTHONPATH", "TMPDIR"}


def test_inherit_adds_named_variables_that_exist():
    env = worker_environment(ENVIRON, inherit=["SECRET_TOKEN", "NOT_SET", "PYTHONHASHSEED"])
    assert env["SECRET_TOKEN"] == "hunter2"
    assert env["PYTHONHASHSEED"] == "0"
    assert "NOT_SET" not in env
    assert "EDITOR" not in env


def test_inherit_works_without_locale():
    env = worker_environment(ENVIRON, inherit=["LANG"], locale=False)
    assert env["LANG"] == "fr_FR.UTF-8"
    assert "LC_ALL" not in env


def test_copy_env_keeps_everything():
    env = worker_environment(ENVIRON, copy_env=True, locale=False, padding=3)
    assert env == {**ENVIRON, PADDING_VARIABLE: "xxx"}


def test_the_given_environ_is_not_modified():
    environ = dict(ENVIRON)
    worker_environment(environ, copy_env=True, padding=5, extra_path="/src")
    assert environ == ENVIRON


@pytest.mark.parametrize("padding", [0, 1, 100, MAX_PADDING])
def test_padding_length(padding):
    env = worker_environment({}, padding=padding)
    assert env == {PADDING_VARIABLE: "x" * padding}
    assert padding_length(env) == padding


@pytest.mark.parametrize("padding", [-1, MAX_PADDING + 1, 10**6])
def test_padding_out_of_bounds(padding):
    with pytest.raises(ValueError, match=rf"padding must be in \[0, 4095\], got {padding}"):
        worker_environment({}, padding=padding)


def test_padding_replaces_an_inherited_padding():
    env = worker_environment({PADDING_VARIABLE: "x" * 50}, copy_env=True, padding=2)
    assert env[PADDING_VARIABLE] == "xx"


def test_extra_path_without_pythonpath():
    assert worker_environment({"PATH": "/bin"}, extra_path="/src")["PYTHONPATH"] == "/src"


def test_extra_path_prepended_to_pythonpath():
    env = worker_environment({"PYTHONPATH": os.pathsep.join(["/a", "/b"])}, extra_path="/src")
    assert env["PYTHONPATH"] == os.pathsep.join(["/src", "/a", "/b"])


def test_extra_path_added_once():
    value = os.pathsep.join(["/a", "/src"])
    env = worker_environment({"PYTHONPATH": value}, extra_path="/src")
    assert env["PYTHONPATH"] == value
    again = worker_environment(env, extra_path="/src")
    assert again["PYTHONPATH"] == value


def test_extra_path_with_an_empty_pythonpath():
    assert worker_environment({"PYTHONPATH": ""}, extra_path="/src")["PYTHONPATH"] == "/src"


def test_extra_path_with_copy_env():
    env = worker_environment({"PYTHONPATH": "/a", "X": "1"}, copy_env=True, extra_path="/src")
    assert env == {"PYTHONPATH": os.pathsep.join(["/src", "/a"]), "X": "1", PADDING_VARIABLE: ""}


def test_no_extra_path_leaves_pythonpath_alone():
    assert "PYTHONPATH" not in worker_environment({"PATH": "/bin"})
    assert worker_environment({"PYTHONPATH": "/a"}, extra_path=None)["PYTHONPATH"] == "/a"


# -- padding_length / random_padding ----------------------------------------------


def test_padding_length_outside_a_worker():
    assert padding_length({}) is None
    assert padding_length({PADDING_VARIABLE: ""}) == 0
    assert padding_length({PADDING_VARIABLE: "x" * 12}) == 12


def test_padding_length_reads_os_environ_by_default(monkeypatch):
    monkeypatch.setenv(PADDING_VARIABLE, "x" * 33)
    assert padding_length() == 33
    monkeypatch.delenv(PADDING_VARIABLE)
    assert padding_length() is None


def test_random_padding_is_reproducible_with_a_seed():
    assert random_padding(random.Random(42)) == random.Random(42).randint(0, 4095)
    first = [random_padding(random.Random(7)) for _ in range(3)]
    assert len(set(first)) == 1


def test_random_padding_covers_0_to_4095():
    rng = random.Random(1234)
    draws = [random_padding(rng) for _ in range(40_000)]
    assert min(draws) == 0
    assert max(draws) == MAX_PADDING == 4095
    assert all(isinstance(draw, int) for draw in draws)
    assert len(set(draws)) > 4000


# -- layout_warnings ------------------------------------------------------------


def aslr_tree(tmp_path, value):
    return make_tree(tmp_path, {"proc/sys/kernel/randomize_va_space": value})


@pytest.fixture
def linux(monkeypatch):
    monkeypatch.setattr(environment.sys, "platform", "linux")


def test_aslr_disabled(tmp_path, linux):
    assert layout_warnings({}, aslr_tree(tmp_path, "0\n")) == [ASLR_OFF_WARNING]


@pytest.mark.parametrize("value", ["2\n", "1\n"])
def test_aslr_enabled(tmp_path, linux, value):
    assert layout_warnings({}, aslr_tree(tmp_path, value)) == []


def test_aslr_unreadable(tmp_path, linux):
    assert layout_warnings({}, make_tree(tmp_path, {})) == []


def test_aslr_not_read_outside_linux(tmp_path, monkeypatch):
    monkeypatch.setattr(environment.sys, "platform", "darwin")
    assert layout_warnings({}, aslr_tree(tmp_path, "0\n")) == []


def test_fixed_hash_seed(tmp_path, linux):
    sysfs = aslr_tree(tmp_path, "2\n")
    assert layout_warnings({"PYTHONHASHSEED": "123"}, sysfs) == [
        "PYTHONHASHSEED=123 is passed on to workers: every worker uses the same hash seed, "
        "so the result holds for that seed only"
    ]


@pytest.mark.parametrize("env", [{"PYTHONHASHSEED": "random"}, {}, {"OTHER": "1"}])
def test_random_or_unset_hash_seed(tmp_path, linux, env):
    assert layout_warnings(env, aslr_tree(tmp_path, "2\n")) == []


def test_both_warnings_in_order(tmp_path, linux):
    warnings = layout_warnings({"PYTHONHASHSEED": "0"}, aslr_tree(tmp_path, "0\n"))
    assert len(warnings) == 2
    assert warnings[0] == ASLR_OFF_WARNING
    assert warnings[1].startswith("PYTHONHASHSEED=0 is passed on to workers")


def test_layout_warnings_of_a_worker_environment(tmp_path, linux):
    """The hash seed is only a concern when it reaches the workers."""
    sysfs = aslr_tree(tmp_path, "2\n")
    assert layout_warnings(worker_environment(ENVIRON), sysfs) == []
    inherited = worker_environment(ENVIRON, inherit=["PYTHONHASHSEED"])
    assert len(layout_warnings(inherited, sysfs)) == 1


# -- perf_source_folder ------------------------------------------------------------


def test_perf_source_folder_of_a_source_tree():
    folder = perf_source_folder()
    package = os.path.dirname(os.path.abspath(perf.__file__))
    assert folder == os.path.dirname(package)
    assert os.path.isfile(os.path.join(folder, "perf", "measure", "environment.py"))


@pytest.mark.parametrize("installed", ["site-packages", "dist-packages"])
def test_perf_source_folder_of_an_installed_perf(monkeypatch, installed):
    fake = os.path.join(os.sep, "usr", "lib", "python3", installed, "perf", "measure", "environment.py")
    monkeypatch.setattr(environment, "__file__", fake)
    assert perf_source_folder() is None


def test_perf_source_folder_of_another_checkout(monkeypatch):
    fake = os.path.join(os.sep, "home", "me", "src", "perf", "measure", "environment.py")
    monkeypatch.setattr(environment, "__file__", fake)
    assert perf_source_folder() == os.path.join(os.sep, "home", "me", "src")
