"""Session-wide test settings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: tests under this folder start real subprocesses (python -m perf ...)
INTEGRATION_FOLDER = Path(__file__).resolve().parent / "integration"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test under tests/integration/ ``integration``, whether or
    not its module says so, before ``-m`` selects: ``pytest -m "not
    integration"`` (the quick development loop) then never starts a
    subprocess test.  ``tryfirst`` puts this before the deselection."""
    for item in items:
        if INTEGRATION_FOLDER in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(autouse=True, scope="session")
def private_lock_folder(tmp_path_factory):
    """perf runs started by the tests lock CPUs in a folder of this test
    session: two test sessions (tox -p) do not wait for each other, and a
    benchmark running on the machine does not block the tests."""
    folder = tmp_path_factory.mktemp("perf-lock")
    previous = os.environ.get("PERF_LOCK_DIR")
    os.environ["PERF_LOCK_DIR"] = str(folder)
    yield folder
    if previous is None:
        del os.environ["PERF_LOCK_DIR"]
    else:
        os.environ["PERF_LOCK_DIR"] = previous


@pytest.fixture
def no_jit_budget(monkeypatch):
    """The runner's budget of an interpreter without a JIT (24 processes of
    2 values), whatever interpreter runs the tests: on PyPy, options are
    completed with the JIT's 6 processes of 10 values."""
    from perf.collect import python

    monkeypatch.setattr(python, "python_has_jit", lambda: False)


@pytest.fixture
def fake_valgrind(tmp_path_factory, monkeypatch):
    """A fake valgrind first on PATH (tests/fake_valgrind.py): exact counts, fast."""
    import shutil

    import fake_valgrind as fake

    folder = tmp_path_factory.mktemp("fake-valgrind")
    path = folder / "valgrind"
    path.write_text(fake.SHEBANG + Path(fake.__file__).read_text())
    path.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    assert shutil.which("valgrind") == str(path)
    fake.calls = lambda: (folder / fake.CALLS).read_text().splitlines() if (folder / fake.CALLS).exists() else []
    return fake


@pytest.fixture
def no_valgrind(tmp_path_factory, monkeypatch):
    """A PATH where valgrind cannot be found."""
    monkeypatch.setenv("PATH", str(tmp_path_factory.mktemp("empty-path")))
