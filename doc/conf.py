"""Sphinx configuration of the perf documentation.

Build with (warnings are errors)::

    sphinx-build -W -b html doc /tmp/doc-html

The pages describe the API with hand-written directives, so building the
documentation never imports perf: the version is read from the source.
"""

from __future__ import annotations

import os
import re

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read_version() -> str:
    """``VERSION = (3, 0, 0)`` in perf/__init__.py -> ``'3.0.0'``."""
    with open(os.path.join(_ROOT, "perf", "__init__.py"), encoding="utf-8") as fp:
        match = re.search(r"^VERSION\s*=\s*\(([^)]*)\)", fp.read(), re.MULTILINE)
    if match is None:
        raise RuntimeError("VERSION = (...) not found in perf/__init__.py")
    return ".".join(part.strip() for part in match.group(1).split(",") if part.strip())


project = "perf"
author = "the perf authors"
copyright = "the perf authors"
version = release = _read_version()

extensions: list[str] = []
root_doc = "index"
source_suffix = {".rst": "restructuredtext"}
exclude_patterns = ["_build"]
default_role = None
nitpicky = False
highlight_language = "text"
pygments_style = "sphinx"

html_theme = "alabaster"
html_title = f"perf {release}"
html_static_path: list[str] = []
