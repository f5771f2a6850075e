"""The examples of the documentation are real: doc/api.rst and
doc/json_format.rst run as doctests.

Each page runs in its own empty working directory, so the files its
examples write (``telco.json``, ``results.json.gz``...) never leak into the
source tree or into another page.
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

# Imported before the test changes the working directory, so that the
# examples' own "import perf" finds the package even when it was importable
# only through a relative sys.path entry.
import perf  # noqa: F401

DOC = Path(__file__).resolve().parent.parent / "doc"


@pytest.mark.parametrize("page", ["api.rst", "json_format.rst"])
def test_doc_examples(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    results = doctest.testfile(
        str(DOC / page),
        module_relative=False,
        encoding="utf-8",
        optionflags=doctest.ELLIPSIS | doctest.REPORT_NDIFF,
        verbose=False,
    )
    assert results.attempted > 0, f"no example found in {page}"
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples of {page} failed (see stdout)"
