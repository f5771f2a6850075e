"""The markup of the HTML report: escaped text, elements, tables, lists,
and the ``data:`` URI of an SVG image.

Every text is escaped here; the markup is also well-formed XML (void
elements closed with ``/>``, no named entity but XML's).  The base64 text
of an image is cut into lines of 76 characters, and wherever the letters
``http`` would meet in it a line break is put between them (``data:``
URLs ignore white space), so that "no URL" can be checked by looking for
``http`` in the page.

Must not: know what the report shows (the sections of
:mod:`perf.render.html.sections` and :mod:`perf.render.html.comparison`
do), read files, or print.
"""

from __future__ import annotations

import base64
import html
import re
from typing import Sequence

__all__ = ["NONE", "bullet_list", "cell", "element", "escape", "row", "svg_data_uri", "table"]

#: what is missing in a cell
NONE = "\u2014"


def escape(value: object) -> str:
    """*value* as text in the page (quotes too: attribute values)."""
    return html.escape(str(value), quote=True)


def element(tag: str, content: str, **attributes: str) -> str:
    """``<tag a="v">content</tag>``; *content* is markup (already escaped),
    attribute values are escaped here (``class_`` for ``class``)."""
    attrs = "".join(f' {name.rstrip("_")}="{escape(value)}"' for name, value in attributes.items())
    return f"<{tag}{attrs}>{content}</{tag}>"


def cell(text: str, tag: str = "td", **attributes: str) -> str:
    return element(tag, escape(text), **attributes)


def row(cells: Sequence[str]) -> str:
    return "<tr>" + "".join(cells) + "</tr>"


def table(headers: Sequence[str], rows: Sequence[str], footer: Sequence[str] = (), **attributes: str) -> str:
    parts = ["<thead>", row([cell(header, "th") for header in headers]), "</thead>", "<tbody>", *rows, "</tbody>"]
    if footer:
        parts.extend(["<tfoot>", *footer, "</tfoot>"])
    return element("table", "\n".join(parts), **attributes)


def bullet_list(items: Sequence[str], **attributes: str) -> str:
    """A ``<ul>`` of plain texts."""
    return element("ul", "".join(cell(item, "li") for item in items), **attributes)


def svg_data_uri(svg: str) -> str:
    """*svg* as a ``data:image/svg+xml;base64,`` URI in lines of 76
    characters, with a line break inside every ``http`` of the base64 text."""
    encoded = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    lines = "\n".join(encoded[start : start + 76] for start in range(0, len(encoded), 76))
    return "data:image/svg+xml;base64," + re.sub("(?i)(ht)(tp)", "\\1\n\\2", lines)
