"""Figures of results (the optional ``plot`` extra: matplotlib).

Three kinds, each a function from result suites to a matplotlib Figure,
each in its own module:

- :func:`perf.render.plots.distribution.distribution_figure`: histogram +
  density of the values and of the process means, one colour per file,
  one panel per benchmark, a shared axis between files;
- :func:`perf.render.plots.timeline.timeline_figure`: every value in run
  order, coloured by process, warmups marked: drift, warmup curves and
  noisy processes at a glance;
- :func:`perf.render.plots.comparison.compare_figure`: per-benchmark
  ratios with their confidence intervals against a reference file,
  sorted, the equivalence band drawn, the suite's geometric mean on top.

:mod:`perf.render.plots.canvas` holds what they share: importing
matplotlib (:func:`~perf.render.plots.canvas.require_matplotlib`), the
bytes of a figure (:func:`~perf.render.plots.canvas.figure_bytes`), axes
in the unit of a benchmark, titles, legends and notes.  Workers never
import this package.

This package re-exports nothing: import the module that owns a name.

Must not: read files, print, compute statistics (densities and
comparisons come from :mod:`perf.analysis`).
"""
