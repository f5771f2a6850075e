"""``busy_compare.py record --study candidates`` (issue 21): every perf
worker also times each candidate probe of bench/probe_candidates.py, next
to its own probe, recorded as ``probe_<name>_before``/``_after``.

Put this folder on PYTHONPATH; perf passes PYTHONPATH on to its workers.
Bench only: nothing in perf knows.
"""

import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import probe_candidates  # the bench folder, just put on the path

with contextlib.suppress(ImportError):  # an interpreter without perf on its path
    probe_candidates.install()
