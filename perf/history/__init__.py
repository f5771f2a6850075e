"""Performance history: a store of result files per commit, recording
commits after the fact, and bisection.

* :mod:`perf.history.store`: the store (result files as written, plus a
  SQLite index rebuilt from them);
* :mod:`perf.history.git`: revisions, commit dates and subjects,
  worktrees and builds (git runs through :mod:`perf.collect.git`);
* :mod:`perf.history.record`: ``history record``, a commit at a time;
* :mod:`perf.history.bisect`: ``perf bisect``, interleaved measurements
  of a candidate against the references.

The change-point statistics live in :mod:`perf.analysis.changepoints`.

Must not: print or exit.
"""
