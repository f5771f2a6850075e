"""The HTML report of ``python -m perf report``: one self-contained page.

:func:`perf.render.html.page.render_report` turns result suites (already
selected), the comparison of ``compare_to`` and the figures of
:mod:`perf.render.plots` into one HTML5 document that needs nothing else:
the style sheet is inline, there is no script, and each figure is an SVG
image embedded in an ``<img>`` as a ``data:`` URI in base64.  Embedding
the SVG as an image, rather than inline, keeps each figure's ids and style
sheet to itself (two matplotlib figures share clip path and glyph ids) and
keeps the SVG's namespace and DOCTYPE URLs out of the page: the output
references no URL at all.

The modules:

- :mod:`perf.render.html.page`: the page, its figures and style sheet;
- :mod:`perf.render.html.comparison`: the comparison table and its notes;
- :mod:`perf.render.html.sections`: the files, the results of one file,
  the stability warnings and the metadata;
- :mod:`perf.render.html.markup`: escaping, elements and tables, the
  ``data:`` URI of an image.

This package re-exports nothing: import the module that owns a name.

Must not: read files, print, compute statistics (the numbers come from the
model, :mod:`perf.analysis` and the caller's comparisons).
"""
