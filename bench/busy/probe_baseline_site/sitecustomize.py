"""``busy_compare.py record --study baseline`` (issue 21): every perf worker
also times perf's first speed probe (candidate ``python`` of
probe_candidates.py, which busy_compare.py puts on PYTHONPATH with this
folder), so that the probe perf records and the first one are judged on
the same recordings.  Bench only: nothing in perf knows.
"""

import probe_candidates

probe_candidates.install(["python"])
