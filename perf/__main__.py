"""``python -m perf``: hand the command line to perf.cli."""

import sys

from perf.cli.main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
