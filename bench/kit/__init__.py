"""bench's harness: the machinery its experiments share.

* :mod:`kit.results`: the header line that names the script, the commit
  it measured and the machine's load at the top of every output, the
  ``--output`` copy, tables;
* :mod:`kit.run`: perf from this tree in child processes, commands run,
  logged, retried and timed;
* :mod:`kit.load`: the seeded background load of the busy-machine
  experiments (stdlib only: also a script, run by any interpreter);
* :mod:`kit.tools`: the tools compared (perf, pyperf, pytest-benchmark,
  the stdlib's timeit), the interpreters found, the order of the sides
  in a round;
* :mod:`kit.stats`: intervals and tests counted by the experiments;
* :mod:`kit.synthetic`: result files and histories made with perf's API.

A script runs as ``python bench/GROUP/SCRIPT.py``; its first lines put
bench/ on ``sys.path`` and import kit, which puts this repository first:
``import perf`` in a script is the perf it measures.
"""

from __future__ import annotations

import os
import sys

#: bench/
BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the repository: perf's source tree
ROOT = os.path.dirname(BENCH)

if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
