"""pytest-benchmark's own usage tests, run against perf's pytest plugin (issue 25).

Downloads pytest-benchmark's source distribution from PyPI (``pip download
--no-deps --no-binary :all: pytest-benchmark==VERSION``, VERSION by default
the one installed beside ``--ptb-python``), extracts its usage tests
unchanged -- tests/test_normal.py, test_pedantic.py, test_sample.py,
test_skip.py, test_with_testcase.py, test_calibration.py -- and its
pytest.ini into a temporary folder (nothing is vendored into this
repository) and runs them with ``--python`` (by default a venv with perf
installed and pytest-benchmark absent, so that the ``benchmark`` fixture is
perf's)::

    python -m pytest -p no:cacheprovider -v -o addopts="-ra --strict-markers --doctest-modules --tb=short"
                     tests/test_normal.py ... --deselect ...

The pytest.ini is pytest-benchmark's own, so its ``filterwarnings = error``
(and its few ignores) holds: a warning the plugin emits fails the test.
Its ``addopts`` are replaced by the ones that matter here (``--nbmake``
needs a plugin these tests do not use; the ``--ignore`` entries name files
that are not copied).  As pytest-benchmark's tox.ini does, PYTHONPATH is
tests/ and COLUMNS is 80.

Deselected, as issue 25 leaves them out: test_pedantic.py's
``test_setup_cprofile`` and ``test_teardown_cprofile`` (cProfile),
test_with_testcase.py's ``TerribleTerribleWayToWritePatchTests`` (weaving
with aspectlib) and test_calibration.py's ``test_calibrate_stuck`` (it sets
the fixture's private attributes).

Run it with ``--python /work/venv-ptb/bin/python`` (pytest-benchmark
itself) to check the harness: everything selected must pass.

Usage::

    python bench/pytest_plugin/pytest_benchmark_tests.py [--python PY] [--version VER] [--sdist FILE]
                                                         [--output FILE] [--keep DIR]
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tarfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.results import Parser
from kit.run import BENCH_LOCK, perf_env, work_folder
from kit.tools import PERF_PYTHON, PTB_PYTHON

FILES = (
    "test_normal.py",
    "test_pedantic.py",
    "test_sample.py",
    "test_skip.py",
    "test_with_testcase.py",
    "test_calibration.py",
)
DESELECTED = (
    "tests/test_pedantic.py::test_setup_cprofile",
    "tests/test_pedantic.py::test_teardown_cprofile",
    "tests/test_with_testcase.py::TerribleTerribleWayToWritePatchTests",
    "tests/test_calibration.py::test_calibrate_stuck",
)
#: pytest-benchmark's addopts less --nbmake and the --ignore entries
ADDOPTS = "-ra --strict-markers --doctest-modules --tb=short"


def installed_version(python: str) -> str:
    code = "import importlib.metadata as m; print(m.version('pytest-benchmark'))"
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"no pytest-benchmark beside {python}: give --version")
    return done.stdout.strip()


def download(version: str, folder: str) -> str:
    command = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:"]
    command += ["-d", folder, f"pytest-benchmark=={version}"]
    subprocess.run(command, check=True)
    archives = [name for name in os.listdir(folder) if name.endswith((".tar.gz", ".zip"))]
    if len(archives) != 1:
        raise SystemExit(f"expected one source archive in {folder}, found {archives}")
    return os.path.join(folder, archives[0])


def extract(sdist: str, folder: str) -> None:
    """pytest.ini and the test files, byte for byte, into *folder*."""
    wanted = {"pytest.ini": "pytest.ini", **{f"tests/{name}": os.path.join("tests", name) for name in FILES}}
    found = set()
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            relative = member.name.split("/", 1)[-1]
            if relative in wanted and member.isfile():
                source = archive.extractfile(member)
                assert source is not None
                target = os.path.join(folder, wanted[relative])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as file:
                    file.write(source.read())
                found.add(relative)
    missing = sorted(set(wanted) - found)
    if missing:
        raise SystemExit(f"not in {os.path.basename(sdist)}: {', '.join(missing)}")


def pytest_command(python: str) -> list[str]:
    command = [python, "-m", "pytest", "-p", "no:cacheprovider", "-v", "-o", f"addopts={ADDOPTS}"]
    command += [f"tests/{name}" for name in FILES]
    for node in DESELECTED:
        command += ["--deselect", node]
    return command


def plugins(python: str) -> str:
    code = (
        "import importlib.metadata as m\n"
        "print(', '.join(sorted(f'{e.name} ({e.value})' for e in m.entry_points(group='pytest11'))) or 'none')"
    )
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=False).stdout.strip()


def main() -> None:
    parser = Parser(__doc__, output=True)
    parser.add_argument("--python", default=PERF_PYTHON, help=f"runs pytest (default: {PERF_PYTHON})")
    parser.add_argument("--version", help=f"pytest-benchmark's version (default: the one beside {PTB_PYTHON})")
    parser.add_argument("--sdist", metavar="FILE", help="an already downloaded source archive (no download)")
    parser.add_argument("--keep", metavar="DIR", help="extract there and keep the files")
    args = parser.parse_args()
    with work_folder(args.keep, "perf-ptb-tests-", "files kept in") as folder:
        sdist = args.sdist
        if sdist is None:
            version = args.version or installed_version(PTB_PYTHON)
            sdist = download(version, os.path.join(folder, "sdist"))
            print(f"pip download --no-deps --no-binary :all: pytest-benchmark=={version}")
        extract(sdist, folder)
        command = pytest_command(args.python)
        print(f"pytest-benchmark's usage tests from {os.path.basename(sdist)}, unchanged")
        print(f"interpreter: {args.python}; its pytest11 plugins: {plugins(args.python)}")
        print(f"in {folder}, with PYTHONPATH=tests COLUMNS=80:")
        print(f"  {shlex.join(command)}", flush=True)
        print()
        env = dict(perf_env("tests", tree=None, lock=BENCH_LOCK), COLUMNS="80")
        start = time.monotonic()
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)
        elapsed = time.monotonic() - start
        print((done.stdout + done.stderr).rstrip())
        print()
        print(f"exit status {done.returncode} after {elapsed:.0f} s")
    sys.exit(0 if done.returncode == 0 else 1)


if __name__ == "__main__":
    main()
