"""Everything that runs code and produces Runs (the runner, its workers)."""
