"""The parent side of a run: its plan, the session, the worker processes, the result files.

Imported by the process that starts the workers, never by a worker
measuring: ``perf.measure.child`` does not import it.
"""
