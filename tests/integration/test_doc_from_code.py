"""The examples of doc/api.rst's section on running benchmarks from code
run here: they start real worker processes (tests/test_docs.py runs the
rest of the page)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import FROM_CODE, doc_section, run_doctests


@pytest.mark.usefixtures("no_jit_budget")  # the page shows CPython's budget
def test_from_code_examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run_doctests(doc_section("api.rst", FROM_CODE), FROM_CODE)
