"""``busy_compare.py record --study baseline`` (issue 21): every perf worker
also times perf's first speed probe (candidate ``python`` of
bench/probe_candidates.py), so that the probe perf records and the first
one are judged on the same recordings.  Bench only: nothing in perf knows.
"""

import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import probe_candidates  # the bench folder, just put on the path

with contextlib.suppress(ImportError):  # an interpreter without perf on its path
    probe_candidates.install(["python"])
