"""doc/architecture.rst's package layout matches the perf package.

The layout is the first ``code-block:: text`` of the "Package layout"
section: a tree whose lines are ``name/`` (a subpackage) or ``name.py``
(a module), indented two spaces per level under ``perf/``, each followed
by a one-line description.  A subpackage line stands for its
``__init__.py``; listing the ``__init__.py`` under it as well is allowed
(``collect/__init__.py`` holds ``collect_metadata()``), and the root
``perf/__init__.py`` is listed as a module.

Every module of the package must be in the tree, with a description, and
every name in the tree must exist: a module added, moved or split is
documented in the same change, and the page never names a module that is
gone.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "perf"
PAGE = ROOT / "doc" / "architecture.rst"

_INDENT = 2
_LINE = re.compile(r"^(?P<indent> *)(?P<name>[\w.]+/?)(?:\s+(?P<description>\S.*))?$")


def layout_block(text: str) -> list[str]:
    """The lines of the first ``code-block:: text`` after the "Package
    layout" title, without the directive's own indentation."""
    lines = text.splitlines()
    start = lines.index("Package layout")
    directive = next(i for i in range(start, len(lines)) if lines[i].strip() == ".. code-block:: text")
    block: list[str] = []
    for line in lines[directive + 1 :]:
        if line and not line.startswith(" "):
            break
        block.append(line)
    content = [line for line in block if line.strip()]
    margin = min(len(line) - len(line.lstrip(" ")) for line in content)
    return [line[margin:] for line in content]


def documented_entries(text: str) -> dict[str, str]:
    """``{'perf/model/run.py': description, 'perf/model/': description,
    ...}`` from the layout block (paths relative to the repository root;
    a subpackage ends with ``/``)."""
    entries: dict[str, str] = {}
    parents: list[str] = []
    for line in layout_block(text):
        match = _LINE.match(line)
        assert match, f"doc/architecture.rst, package layout: cannot read {line!r}"
        indent = len(match["indent"])
        assert indent % _INDENT == 0, f"doc/architecture.rst, package layout: odd indentation: {line!r}"
        depth = indent // _INDENT
        assert depth <= len(parents), f"doc/architecture.rst, package layout: {line!r} has no parent"
        del parents[depth:]
        path = "".join(parents) + match["name"]
        entries[path] = (match["description"] or "").strip()
        if match["name"].endswith("/"):
            parents.append(match["name"])
    return entries


def package_entries() -> set[str]:
    """Every module of the package as the tree names it: ``perf/x/`` for
    a subpackage's ``__init__.py``, ``perf/x/y.py`` for a module."""
    entries: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(ROOT)
        if "__pycache__" in relative.parts:
            continue
        if path.name == "__init__.py" and path.parent != PACKAGE:
            entries.add(relative.parent.as_posix() + "/")
        else:
            entries.add(relative.as_posix())
    return entries


def test_the_layout_block_is_read() -> None:
    entries = documented_entries(PAGE.read_text(encoding="utf-8"))
    assert "perf/" in entries
    assert "perf/__init__.py" in entries
    assert "perf/model/run.py" in entries


def test_every_module_is_in_the_layout() -> None:
    documented = documented_entries(PAGE.read_text(encoding="utf-8"))
    # a subpackage's __init__.py may also be listed by name under it
    named = set(documented) | {path.removesuffix("__init__.py") for path in documented if path.endswith("/__init__.py")}
    missing = sorted(package_entries() - named)
    assert not missing, (
        "modules missing from the package layout of doc/architecture.rst "
        f"(add each with a one-line description): {', '.join(missing)}"
    )


def test_every_name_in_the_layout_exists() -> None:
    documented = documented_entries(PAGE.read_text(encoding="utf-8"))
    stale = []
    for path in documented:
        # a subpackage exists when its __init__.py does
        target = ROOT / path / "__init__.py" if path.endswith("/") else ROOT / path
        if not target.is_file():
            stale.append(path)
    assert not stale, f"doc/architecture.rst names what the package does not have: {', '.join(sorted(stale))}"


def test_every_module_has_a_description() -> None:
    documented = documented_entries(PAGE.read_text(encoding="utf-8"))
    bare = sorted(path for path, description in documented.items() if not description and path != "perf/")
    assert not bare, f"doc/architecture.rst, package layout: no description for {', '.join(bare)}"
