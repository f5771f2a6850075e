"""The child side of a run: one worker process measures one task.

A worker imports this package: it never imports ``perf.measure.parent``
(tests/test_layering.py), which keeps a worker's start-up short.
"""
