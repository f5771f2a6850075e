"""The examples of the documentation are real: doc/api.rst and
doc/json_format.rst run as doctests.  api.rst's section on running
benchmarks from code starts worker processes: it runs in
tests/integration/test_doc_from_code.py, not here.

Each page runs in its own empty working directory, so the files its
examples write (``telco.json``, ``results.json.gz``...) never leak into the
source tree or into another page.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import FROM_CODE, doc_page, doc_section, run_doctests

# Imported before the test changes the working directory, so that the
# examples' own "import perf" finds the package even when it was importable
# only through a relative sys.path entry.
import perf  # noqa: F401


@pytest.mark.parametrize("page", ["api.rst", "json_format.rst"])
def test_doc_examples(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = doc_page(page)
    if page == "api.rst":
        text = text.replace(doc_section(page, FROM_CODE), "")
    run_doctests(text, page)


def test_the_from_code_section_is_cut_out_exactly() -> None:
    """The unit run leaves out the from-code section, and only it."""
    section = doc_section("api.rst", FROM_CODE)
    assert section.startswith(FROM_CODE + "\n---")
    assert "api.run(" in section
    assert "Runs from code: the session" not in section
    assert doc_page("api.rst").count(section) == 1
