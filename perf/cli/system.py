"""``python -m perf system [show|tune|reset]``: a quiet machine for
benchmarks, and the machine as it was afterwards.

Exit status: 0 (tuned, or tune/reset done), 1 on errors (not root for
tune/reset: one line, nothing changed), 2 when ``show`` finds the system
not tuned.
"""

from __future__ import annotations

import argparse
import os
import sys

HELP = "Show or tune the system for benchmarks, and reset it to the state before tune."
ACTIONS = ("show", "tune", "reset")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from perf.measure.arguments import cpu_list
    from perf.system.state import DEFAULT_STATE_FILE

    parser.add_argument("action", nargs="?", choices=ACTIONS, default="show", help="what to do (default: show)")
    parser.add_argument(
        "--affinity",
        type=cpu_list,
        metavar="CPU_LIST",
        help="the CPUs benchmarks will run on (default: the isolated CPUs, else all)",
    )
    parser.add_argument(
        "--state-file",
        default=DEFAULT_STATE_FILE,
        metavar="FILE",
        help="where tune saves what it changes and reset reads it (default: %(default)s)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print what tune or reset would write, change nothing")
    # a copy of a machine's /sys, /proc and /dev/cpu instead of this one (tests, trying perf out)
    parser.add_argument("--root", default="/", help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    from perf.errors import CpuBusyError, UsageError
    from perf.platform.cpus import format_cpu_list, parse_cpu_list
    from perf.platform.lock import LOCK_FOLDER, CpuLock
    from perf.platform.services import ServiceManager
    from perf.platform.sysfs import SysFS
    from perf.render.system import format_report
    from perf.system import tuning

    if args.dry_run and args.action == "show":
        raise UsageError("--dry-run applies to tune and reset")
    affinity = parse_cpu_list(args.affinity) if args.affinity else None
    real = os.path.realpath(args.root) == "/"
    # the services of this machine are only touched when tuning this machine
    services = ServiceManager() if real else ServiceManager(systemctl="")
    context = tuning.make_context(SysFS(args.root), services, affinity)
    unknown = set(affinity or ()) - set(context.all_cpus)
    if unknown:
        raise UsageError(
            f"--affinity: CPU {format_cpu_list(unknown)} is not online (online: {format_cpu_list(context.all_cpus)})"
        )
    if args.action == "show":
        report = tuning.show(context)
    else:
        tuning.require_root(context, args.action, args.dry_run)
        folder = None if real else context.sysfs.path(LOCK_FOLDER)
        # held while writing: a run that starts now waits for tune or reset
        command = [os.path.basename(sys.executable), "-m", "perf", "system", args.action]
        lock = CpuLock(context.all_cpus, folder=folder, command=command)
        holders = [] if args.dry_run else lock.acquire(wait=False)
        if holders:
            cpus = format_cpu_list(holder.cpu for holder in holders)
            raise CpuBusyError(
                f"a benchmark is running on CPU {cpus} ({holders[0].describe()}): system {args.action} would "
                "change the machine under it; wait for it to finish"
            )
        try:
            action = tuning.tune if args.action == "tune" else tuning.reset
            report = action(context, os.path.abspath(args.state_file), dry_run=args.dry_run)
        finally:
            lock.release()
    program = f"{os.path.basename(sys.executable) or 'python3'} -m perf"
    print("\n".join(format_report(report, program, args.dry_run)))
    return report.exit_code
