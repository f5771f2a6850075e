"""Session-wide test settings."""

from __future__ import annotations

import os

import pytest


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
