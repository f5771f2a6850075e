"""``python -m perf collect_metadata``: the metadata a worker would record.

Prints the metadata of this host and interpreter; with ``-o FILE``, also
writes it as a one-run benchmark named ``metadata`` (value 1.0), as pyperf
does.  ``--affinity`` pins the process first (CPU metadata depends on it);
by default the isolated CPUs are used when there are any.
"""

from __future__ import annotations

import argparse
import contextlib
import os

from perf.errors import OutputExistsError, UsageError

HELP = "Collect and display the metadata of this host and Python (optionally into a JSON file)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from perf.measure.arguments import cpu_list

    parser.add_argument("--affinity", type=cpu_list, metavar="CPU_LIST", help="pin the process to these CPUs first")
    parser.add_argument("-o", "--output", metavar="FILE", help="also write the metadata to FILE (must not exist)")


def run(args: argparse.Namespace) -> int:
    from perf.model.benchmark import Benchmark
    from perf.model.run import Run
    from perf.platform.cpus import get_isolated_cpus, parse_cpu_list, set_cpu_affinity
    from perf.render.metadata import format_metadata_lines
    from perf.storage import files

    if args.output and os.path.lexists(args.output):
        raise OutputExistsError(args.output)
    if args.affinity:
        try:
            pinned = set_cpu_affinity(parse_cpu_list(args.affinity))
        except OSError as exc:
            raise UsageError(f"--affinity {args.affinity}: {exc.strerror or exc}") from None
        if not pinned:
            raise UsageError("--affinity: CPU affinity is not available here (install psutil)")
    else:
        isolated = get_isolated_cpus()
        if isolated:
            with contextlib.suppress(OSError):  # else: the unpinned process, as pyperf
                set_cpu_affinity(isolated)
    run = Run([1.0], metadata={"name": "metadata"})
    metadata = run.get_metadata()
    print("Metadata:")
    for line in format_metadata_lines({key: value for key, value in metadata.items() if key != "name"}):
        print(line)
    if args.output:
        files.dump(Benchmark([run]), args.output)
    return 0
