"""``busy_compare.py record --study candidates`` (issue 21): every perf
worker also times each candidate probe of probe_candidates.py (which
busy_compare.py puts on PYTHONPATH with this folder), next to its own
probe, recorded as ``probe_<name>_before``/``_after``.  Bench only:
nothing in perf knows.
"""

import probe_candidates

probe_candidates.install()
