"""perf.pytest_plugin.compat_json: pytest-benchmark's document, storage
folder and compare-fail checks (git on small temporary repositories)."""

from __future__ import annotations

import json
import os
import platform
import re
import struct
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from perf.collect import git as git_module
from perf.errors import ResultFileError, UsageError
from perf.platform.sysfs import SysFS
from perf.pytest_plugin import compat_json
from perf.pytest_plugin.compat_json import (
    autosave_name,
    check_save_name,
    commit_info,
    document,
    dumps,
    find_compare_files,
    load_saved,
    machine_id,
    machine_info,
    measured_by_perf,
    next_save_path,
    parse_storage,
    save,
)

DATE = "2026-10-01T12:00:00+02:00"


def git(path: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": DATE, "GIT_COMMITTER_DATE": DATE}
    completed = subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True, text=True)
    return completed.stdout.strip()


def init(path: Path) -> Path:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test")
    git(path, "config", "user.email", "test@example.org")
    git(path, "config", "commit.gpgsign", "false")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = init(tmp_path / "widget-checkout")
    (path / "module.py").write_text("VERSION = 1\n")
    git(path, "add", "module.py")
    git(path, "commit", "-q", "-m", "first")
    return path


# --- machine_info -----------------------------------------------------------------


def fake_proc(tmp_path: Path, text: str) -> SysFS:
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "cpuinfo").write_text(text)
    return SysFS(tmp_path)


CPUINFO = """\
processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz
flags\t\t: fpu vme

processor\t: 1
vendor_id\t: AuthenticAMD
model name\t: another CPU
"""


def test_machine_info_has_pytest_benchmarks_keys(tmp_path: Path) -> None:
    info = machine_info(fake_proc(tmp_path, CPUINFO))
    assert list(info) == [
        "node",
        "processor",
        "machine",
        "python_compiler",
        "python_implementation",
        "python_implementation_version",
        "python_version",
        "python_build",
        "release",
        "system",
        "cpu",
    ]
    assert info["system"] == platform.system()
    assert info["python_version"] == platform.python_version()
    assert info["python_implementation"] == platform.python_implementation()
    assert isinstance(info["python_build"], list)
    assert len(info["python_build"]) == 2
    assert all(isinstance(part, str) for part in info["python_build"])
    if platform.python_implementation() == "CPython":
        assert info["python_implementation_version"] == platform.python_version()
    # the first CPU's block only
    assert info["cpu"]["brand_raw"] == "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz"
    assert info["cpu"]["vendor_id_raw"] == "GenuineIntel"
    assert info["cpu"]["count"] == os.cpu_count()


@pytest.mark.parametrize(
    ("machine", "arch", "bits"), [("x86_64", "X86_64", 64), ("aarch64", "ARM_8", 64), ("i686", "X86_32", 32)]
)
def test_cpu_arch_from_the_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, machine: str, arch: str, bits: int
) -> None:
    monkeypatch.setattr(platform, "machine", lambda: machine)
    cpu = machine_info(fake_proc(tmp_path, CPUINFO))["cpu"]
    assert (cpu["arch"], cpu["bits"], cpu["arch_string_raw"]) == (arch, bits, machine)


def test_cpu_without_proc_cpuinfo_uses_the_processor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "machine", lambda: "vax")
    monkeypatch.setattr(platform, "processor", lambda: "Some CPU Family 6")
    cpu = machine_info(SysFS(tmp_path))["cpu"]
    assert cpu == {"count": os.cpu_count(), "arch_string_raw": "vax", "brand_raw": "Some CPU Family 6"}


def test_machine_info_is_json(tmp_path: Path) -> None:
    info = machine_info(fake_proc(tmp_path, CPUINFO))
    assert json.loads(json.dumps(info)) == info


# --- commit_info --------------------------------------------------------------------


def test_commit_info_in_a_checkout(repo: Path) -> None:
    info = commit_info(str(repo))
    assert info == {
        "id": git(repo, "rev-parse", "HEAD"),
        "time": DATE,
        "author_time": DATE,
        "dirty": False,
        "project": "widget-checkout",
        "branch": "main",
    }
    assert list(info) == ["id", "time", "author_time", "dirty", "project", "branch"]
    assert re.fullmatch("[0-9a-f]{40}", info["id"])


def test_commit_info_dirty_tagged_detached_from_a_subfolder(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "tag", "v1.0")
    git(repo, "checkout", "-q", "--detach")
    (repo / "module.py").write_text("VERSION = 2\n")
    (repo / "sub").mkdir()
    info = commit_info(str(repo / "sub"))
    assert (info["id"], info["dirty"], info["branch"]) == (head, True, "(detached head)")


def test_commit_info_project_from_the_origin_remote(repo: Path) -> None:
    git(repo, "remote", "add", "origin", "git@github.com:someone/gadget.git")
    assert commit_info(str(repo))["project"] == "gadget"
    git(repo, "remote", "set-url", "origin", "https://example.org/group/tool")
    assert commit_info(str(repo))["project"] == "tool"


def test_commit_info_outside_a_checkout(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    assert commit_info(str(folder)) == {
        "id": "unversioned",
        "time": None,
        "author_time": None,
        "dirty": False,
        "project": "plain",
        "branch": "(unknown)",
    }


def test_commit_info_when_git_fails(tmp_path: Path) -> None:
    # no commit yet: git describe fails
    path = init(tmp_path / "empty")
    info = commit_info(str(path))
    assert list(info) == ["id", "time", "author_time", "dirty", "error", "project", "branch"]
    assert (info["id"], info["time"], info["author_time"], info["dirty"]) == ("unknown", None, None, False)
    assert info["error"].startswith("CalledProcessError(128, ")
    assert (info["project"], info["branch"]) == ("empty", "(unknown)")


def test_commit_info_without_git_or_on_a_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    info = commit_info(str(tmp_path))
    assert info["id"] == "unknown"
    assert info["error"].startswith("FileNotFoundError(")
    assert info["project"] == tmp_path.name

    def slow(command: list[str], timeout: float | None = None, **kwargs: object) -> None:
        raise subprocess.TimeoutExpired(command, timeout or 0.0)

    monkeypatch.setattr(git_module.subprocess, "run", slow)
    info = commit_info(str(tmp_path))
    describe = ["git", "describe", "--dirty", "--always", "--long", "--abbrev=40"]
    assert (info["id"], info["error"]) == ("unknown", f"TimeoutExpired({describe}, {compat_json.GIT_TIMEOUT})")


# --- document and dumps ---------------------------------------------------------------


def test_document_keys_and_utc_datetime() -> None:
    paris = timezone(timedelta(hours=1))
    doc = document(
        {"node": "n"}, {"id": "x"}, [{"name": "test_a"}], "5.2.3", datetime(2026, 11, 27, 4, 51, 29, 123456, paris)
    )
    assert list(doc) == ["machine_info", "commit_info", "benchmarks", "datetime", "version"]
    assert doc["datetime"] == "2026-11-27T03:51:29.123456+00:00"
    assert (doc["machine_info"], doc["commit_info"], doc["benchmarks"], doc["version"]) == (
        {"node": "n"},
        {"id": "x"},
        [{"name": "test_a"}],
        "5.2.3",
    )
    # a naive time is taken as UTC; no time is now, in UTC
    assert document({}, {}, [], "5.2.3", datetime(2026, 1, 2, 3, 4, 5))["datetime"] == "2026-01-02T03:04:05+00:00"
    assert datetime.fromisoformat(document({}, {}, [], "5.2.3")["datetime"]).utcoffset() == timedelta(0)


class Opaque:
    def __repr__(self) -> str:
        return "<Opaque thing>"


def test_dumps_indents_escapes_and_marks_the_unserializable() -> None:
    text = dumps({"benchmarks": [{"extra_info": {"object": Opaque(), "text": "caf\u00e9"}}]})
    assert '"object": "UNSERIALIZABLE[<Opaque thing>]"' in text
    assert '"text": "caf\\u00e9"' in text
    assert text.isascii()
    assert text.splitlines()[1] == '    "benchmarks": ['
    assert json.loads(text) == {
        "benchmarks": [{"extra_info": {"object": "UNSERIALIZABLE[<Opaque thing>]", "text": "caf\u00e9"}}]
    }


# --- storage ------------------------------------------------------------------------------


def test_parse_storage(tmp_path: Path) -> None:
    cwd = str(tmp_path)
    assert parse_storage(compat_json.DEFAULT_STORAGE, cwd) == tmp_path / ".benchmarks"
    assert parse_storage("results/bench", cwd) == tmp_path / "results" / "bench"
    assert parse_storage("file:///srv/bench", cwd) == Path("/srv/bench")
    assert parse_storage("/srv/bench", cwd) == Path("/srv/bench")


def test_parse_storage_relative_to_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert parse_storage("file://./.benchmarks") == tmp_path / ".benchmarks"


def test_parse_storage_refuses_other_storages() -> None:
    url = "elasticsearch+http://localhost:9200/benchmark/benchmark"
    with pytest.raises(UsageError) as info:
        parse_storage(url)
    assert str(info.value) == f"perf: only file storage is supported (got '{url}')"
    with pytest.raises(UsageError, match=r"^Storage must be in form of file://path or elasticsearch\+http"):
        parse_storage("http://example.org/x")


def test_machine_id() -> None:
    expected = (
        f"{platform.system()}-{platform.python_implementation()}-"
        f"{sys.version_info[0]}.{sys.version_info[1]}-{struct.calcsize('P') * 8}bit"
    )
    assert machine_id() == expected
    assert machine_id() == "-".join(
        [
            platform.system(),
            platform.python_implementation(),
            ".".join(platform.python_version_tuple()[:2]),
            platform.architecture()[0],
        ]
    )


@pytest.mark.parametrize("name", ["baseline", "my run 2", "v1.2_rc"])
def test_check_save_name_accepts(name: str) -> None:
    assert check_save_name(name) == name


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Can't be empty."),
        ("a/b:c", "Must not contain any of these characters: /:*?<>|\\ (it has '/:')"),
        ("x|y?", "Must not contain any of these characters: /:*?<>|\\ (it has '?|')"),
        ("back\\slash", "Must not contain any of these characters: /:*?<>|\\ (it has '\\\\')"),
    ],
)
def test_check_save_name_refuses(name: str, message: str) -> None:
    with pytest.raises(UsageError) as info:
        check_save_name(name)
    assert str(info.value) == message


def test_autosave_name() -> None:
    commit = {"id": "a" * 40, "dirty": False}
    moment = datetime(2015, 8, 15, 21, 57, 24, 999, timezone.utc)
    assert autosave_name(commit, moment) == "a" * 40 + "_20150815_215724"
    assert autosave_name({**commit, "dirty": True}, moment) == "a" * 40 + "_20150815_215724_uncommitted-changes"
    # in UTC whatever the zone of the time given
    tokyo = moment.astimezone(timezone(timedelta(hours=9)))
    assert autosave_name({"id": "unversioned", "dirty": False}, tokyo) == "unversioned_20150815_215724"


def touch(path: Path, text: str = "{}") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_next_save_path_numbers_from_0001_and_creates_nothing(tmp_path: Path) -> None:
    storage = tmp_path / ".benchmarks"
    assert next_save_path(storage, "base") == storage / machine_id() / "0001_base.json"
    assert not storage.exists()


def test_next_save_path_follows_the_highest_counter(tmp_path: Path) -> None:
    folder = tmp_path / machine_id()
    for name in ["0001_a.json", "0007_b.json", "0003_c.json", "12345_d.json", "abcd_e.json", "0042_f.txt"]:
        touch(folder / name)
    touch(tmp_path / "Other-PyPy-3.9-64bit" / "0050_x.json")
    touch(tmp_path / "0060_old.json")
    assert next_save_path(tmp_path, "next") == folder / "0008_next.json"


def test_next_save_path_counts_old_files_in_the_storage_itself(tmp_path: Path) -> None:
    touch(tmp_path / "0004_old.json")
    assert next_save_path(tmp_path, "new") == tmp_path / machine_id() / "0005_new.json"


def test_save_creates_the_folders_and_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / ".benchmarks" / machine_id() / "0001_x.json"
    save(path, '{"a": 1}')
    assert path.read_text() == '{"a": 1}'
    with pytest.raises(ResultFileError):
        save(path, "{}")
    assert path.read_text() == '{"a": 1}'


@pytest.fixture
def storage(tmp_path: Path) -> Path:
    root = tmp_path / ".benchmarks"
    mine = root / machine_id()
    for name in ["0001_base.json", "0002_next.json", "0010_later.json"]:
        touch(mine / name)
    touch(root / "Other-PyPy-3.9-64bit" / "0001_pypy.json")
    touch(root / "Other-PyPy-3.9-64bit" / "0005_pypy.json")
    touch(root / "0003_old.json")
    touch(mine / "notes.txt")
    return root


def test_compare_without_a_value_is_the_last_saved_run(storage: Path) -> None:
    assert find_compare_files(storage, None) == [storage / machine_id() / "0010_later.json"]
    # by file name across this machine's folder and the storage itself
    touch(storage / "0011_old.json")
    assert find_compare_files(storage, None) == [storage / "0011_old.json"]


def test_compare_without_a_value_and_nothing_saved(tmp_path: Path) -> None:
    assert find_compare_files(tmp_path / "missing", None) == []
    assert find_compare_files(tmp_path, None) == []


def test_compare_by_prefix(storage: Path) -> None:
    mine = storage / machine_id()
    assert find_compare_files(storage, "0001") == [mine / "0001_base.json"]
    assert find_compare_files(storage, "0001_base") == [mine / "0001_base.json"]
    assert find_compare_files(storage, "000") == [
        mine / "0001_base.json",
        mine / "0002_next.json",
        storage / "0003_old.json",
    ]
    assert find_compare_files(storage, "00*") == [
        mine / "0001_base.json",
        mine / "0002_next.json",
        storage / "0003_old.json",
        mine / "0010_later.json",
    ]
    # names start with the 4-digit counter
    assert find_compare_files(storage, "1") == []
    assert find_compare_files(storage, "0099") == []
    assert find_compare_files(storage, "") == []


def test_compare_by_platform_and_name_globs(storage: Path) -> None:
    other = storage / "Other-PyPy-3.9-64bit"
    mine = storage / machine_id()
    assert find_compare_files(storage, "Other-*/0005") == [other / "0005_pypy.json"]
    assert find_compare_files(storage, "*/0001") == sorted(
        [other / "0001_pypy.json", mine / "0001_base.json"], key=lambda path: (path.name, path.parent)
    )
    # the storage's own files match the name glob too
    assert find_compare_files(storage, "Other-*/0003") == [storage / "0003_old.json"]
    assert find_compare_files(storage, "Nothing-*/0001") == []


def test_compare_an_existing_file(storage: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = touch(storage.parent / "kept" / "report.json")
    assert find_compare_files(storage, str(elsewhere)) == [elsewhere]
    assert find_compare_files(storage, "kept/report.json", cwd=str(storage.parent)) == [elsewhere]
    monkeypatch.chdir(storage.parent / "kept")
    assert find_compare_files(storage, "report.json") == [elsewhere]


@pytest.mark.parametrize("value", ["a/b/c", "/no/such/file", "/nosuch"])
def test_compare_refuses_other_paths(storage: Path, value: str) -> None:
    with pytest.raises(UsageError) as info:
        find_compare_files(storage, value)
    assert str(info.value) == (
        f"'{value}' isn't an existing file or acceptable glob. Expected 'platform-glob/filename-glob' or 'filename-glob'."
    )


SAVED = {
    "machine_info": {"node": "n"},
    "commit_info": {"id": "unversioned"},
    "benchmarks": [
        {"name": "test_a", "fullname": "tests/test_x.py::test_a", "stats": {"min": 0.5, "mean": 0.25}},
        {"name": "test_b", "fullname": "tests/test_x.py::test_b", "stats": {"mean": 0.5, "ops": 3.0}},
        {"name": "test_c", "fullname": "tests/test_x.py::test_c", "stats": {"mean": 0}},
    ],
    "datetime": "2026-01-02T03:04:05+00:00",
    "version": "3.0.0",
}


def test_load_saved_adds_ops_to_old_files(tmp_path: Path) -> None:
    path = touch(tmp_path / "0001_old.json", json.dumps(SAVED))
    loaded = load_saved(path)
    assert [bench["stats"]["ops"] for bench in loaded["benchmarks"]] == [4.0, 3.0, 0.0]
    assert loaded["benchmarks"][0]["stats"] == {"min": 0.5, "mean": 0.25, "ops": 4.0}
    assert loaded["version"] == "3.0.0"


def test_save_then_load(tmp_path: Path) -> None:
    doc = document({"node": "n"}, {"id": "x"}, [{"fullname": "t::a", "stats": {"mean": 1e-6, "ops": 1e6}}], "5.2.3")
    path = next_save_path(tmp_path, "run")
    save(path, dumps(doc))
    assert load_saved(path) == doc


def test_measured_by_perf_reads_perfs_marker() -> None:
    assert not measured_by_perf(SAVED)  # pytest-benchmark's: no "perf" object, its own version
    marked = {"fullname": "t::a", "stats": {"mean": 1.0}, "perf": {"measured_in": "worker processes"}}
    assert measured_by_perf({**SAVED, "benchmarks": [marked]})
    assert measured_by_perf({**SAVED, "version": "perf 3.0.0"})  # entries made by a conftest.py hook
    assert not measured_by_perf({**SAVED, "benchmarks": [{**marked, "perf": "x"}]})


def json_error(text: str) -> str:
    try:
        json.loads(text)
    except ValueError as error:
        return str(error)
    raise AssertionError(f"{text!r} is JSON")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not json", f"not JSON: {json_error('not json')}"),  # the message differs on PyPy
        ("[1, 2]", "not a JSON object"),
        ('{"machine_info": {}}', "no 'benchmarks' list"),
        ('{"benchmarks": [{"name": "x"}]}', "benchmark 0 has no 'fullname'"),
        ('{"benchmarks": [{"fullname": "t::x"}]}', "benchmark 't::x' has no 'stats' with a 'mean'"),
        (
            '{"benchmarks": [{"fullname": "t::x", "stats": {"mean": "1"}}]}',
            "benchmark 't::x' has no 'stats' with a 'mean'",
        ),
    ],
)
def test_load_saved_refuses_other_files(tmp_path: Path, text: str, reason: str) -> None:
    path = touch(tmp_path / "0001_bad.json", text)
    with pytest.raises(UsageError) as info:
        load_saved(path)
    assert str(info.value) == f"{path}: not a pytest-benchmark file ({reason})"


def test_load_saved_of_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r": cannot be read \(No such file or directory\)$"):
        load_saved(tmp_path / "0001_gone.json")
