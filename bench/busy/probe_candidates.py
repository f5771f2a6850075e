"""Candidate speed probes for issue 21 (study only; the kept one lives in
perf.measure.child.interference).

Each candidate is a small fixed workload, timed as the worker times its
probe (the best of 3 runs).  ``python`` is the probe of issue 14 (runs in
the interpreter: a dict, a sort, memory copies); the others spend their
time in native code of shared system libraries (zlib's checksums,
inflate and deflate, libc's memcpy through a bytearray slice), called a
few times so that the interpreter's share of the time is small.

Plain Python 3.6+ and PyPy, standard library only: workers of any
interpreter import it.
"""

import time
import zlib

REPEAT = 3


def _text(size):
    """Deterministic, compressible bytes (about 3:1 with zlib), the same in
    every interpreter, built in C (repr of a list of ints)."""
    numbers = list(range(1000, 1000 + 37 * size, 37))
    return repr(numbers).encode("ascii")[:size]


def build(names=None):
    """name -> workload (a function of no argument); *names*: only these."""
    zeros = bytes(1 << 18)
    text = _text(1 << 15)
    blob = zlib.compress(text, 6)
    small = _text(1 << 13)
    source, target = bytearray(1 << 19), bytearray(1 << 19)
    big_source, big_target = bytearray(1 << 22), bytearray(1 << 22)
    big_target[:] = big_source  # touch the pages once

    def python():
        table = {}
        for number in range(600):
            table[number] = number * number % 97
        ordered = sorted(table.values())
        for _ in range(2):
            target[:] = source
            source[:] = target
        return len(ordered)

    def crc32():
        return zlib.crc32(zeros)

    def adler32():
        return zlib.adler32(zeros)

    def inflate():
        return len(zlib.decompress(blob))

    def deflate():
        return len(zlib.compress(small, 1))

    def copy_l2():
        for _ in range(2):
            target[:] = source
            source[:] = target

    def copy_l3():
        big_target[:] = big_source
        big_source[:] = big_target

    workloads = {
        "python": python,
        "crc32": crc32,
        "adler32": adler32,
        "inflate": inflate,
        "deflate": deflate,
        "copy_l2": copy_l2,
        "copy_l3": copy_l3,
    }
    return workloads if names is None else dict((name, workloads[name]) for name in names)


def best(workload, clock=time.perf_counter, repeat=REPEAT):
    result = float("inf")
    for _ in range(repeat):
        start = clock()
        workload()
        result = min(result, clock() - start)
    return result


def measure_all(workloads):
    """name -> seconds (best of REPEAT), in a fixed order."""
    return dict((name, best(workload)) for name, workload in sorted(workloads.items()))


def install(names=None):
    """Make every perf worker of this process also time the candidates
    *names* (all by default) next to its own probe, recorded as
    ``probe_<name>_before``/``_after`` (called by the sitecustomize of
    probe_study_site/ and probe_baseline_site/, in every process started
    with them on PYTHONPATH: nothing when it has no perf)."""
    try:
        from perf.measure.child import interference
    except ImportError:
        return

    run_probe = interference.Witness.run_probe
    metadata = interference.Witness.metadata

    def run_probes(self):
        run_probe(self)
        if getattr(self, "probe", None) is None:
            return
        if not hasattr(self, "candidates"):
            self.candidates = build(names)
            self.candidate_times = []
        self.candidate_times.append(measure_all(self.candidates))

    def with_candidates(self, nvalues):
        result = metadata(self, nvalues)
        times = getattr(self, "candidate_times", [])
        if len(times) == 2:
            for name in times[0]:
                result[f"probe_{name}_before"] = times[0][name]
                result[f"probe_{name}_after"] = times[1][name]
        return result

    interference.Witness.run_probe = run_probes
    interference.Witness.metadata = with_candidates
