"""Study mode of bench/busy_compare.py (issue 21): every perf worker also
times each candidate probe of bench/probe_candidates.py, next to its own
probe, and records them as ``probe_<name>_before``/``_after``.

Put this folder on PYTHONPATH (``busy_compare.py record --study``); perf
passes PYTHONPATH on to its workers.  Bench only: nothing in perf knows.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    import probe_candidates

    from perf.measure import interference
except ImportError:  # an interpreter without perf on its path
    pass
else:
    _run_probe = interference.Witness.run_probe
    _metadata = interference.Witness.metadata

    def run_probe(self):
        _run_probe(self)
        if getattr(self, "probe", None) is None:
            return
        if not hasattr(self, "candidates"):
            self.candidates = probe_candidates.build()
            self.candidate_times = []
        self.candidate_times.append(probe_candidates.measure_all(self.candidates))

    def metadata(self, nvalues):
        result = _metadata(self, nvalues)
        times = getattr(self, "candidate_times", [])
        if len(times) == 2:
            for name in times[0]:
                result[f"probe_{name}_before"] = times[0][name]
                result[f"probe_{name}_after"] = times[1][name]
        return result

    interference.Witness.run_probe = run_probe
    interference.Witness.metadata = metadata
