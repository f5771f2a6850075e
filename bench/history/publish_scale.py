"""How long ``history publish`` takes on a fleet's store, and how fast its
pages open (issue 33).

Builds a synthetic store of BENCHMARKS benchmarks x COMMITS commits x
MACHINES machines (bench/kit/synthetic.py: 10 processes of 2 values, two
planted steps), then times, each as its own ``python -m perf`` process:

* ``history publish`` into a new folder;
* ``history publish`` again, nothing changed (it rewrites nothing);
* ``history publish`` after one more commit on one machine;
* ``history changes`` and ``history show`` on the same store, the
  floor: what reading the store and detecting the changes costs;

then the size of the site, and the time headless Chromium takes to load
the overview and the largest benchmark page (``--dump-dom``: the page,
its script run), against ``about:blank`` (Chromium's own start-up).

Usage::

    python bench/history/publish_scale.py [--benchmarks 50] [--commits 300] [--machines 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit import synthetic
from kit.results import header_line
from kit.run import perf_env


def perf(*args: str) -> float:
    """Seconds one ``python -m perf ARGS`` process took."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "perf", *args],
        check=True,
        env=perf_env(),
        stdout=subprocess.DEVNULL,
        cwd=tempfile.gettempdir(),
    )
    return time.perf_counter() - start


def browser(url: str, profile: str) -> float:
    start = time.perf_counter()
    command = [
        "chromium",
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        f"--user-data-dir={profile}",
        "--dump-dom",
        url,
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    return time.perf_counter() - start


def add_history(store: str, folder: str, history: list, machine: str, first: int = 0) -> int:
    """Write the recordings of *history* and add them to *store* (through
    the API: one ``history add`` process per commit would take minutes)."""
    from perf.history.store import HistoryStore
    from perf.storage import files

    with HistoryStore.open_or_create(store) as opened:
        for index, recording in enumerate(history[first:], first):
            path = os.path.join(folder, f"{machine}-{index:04d}.json")
            files.dump(recording.suite, path)
            opened.add([path], commit=recording.commit, date=recording.date, branch="main", machine=machine)
    return len(history) - first


def write_store(folder: str, benchmarks: int, commits: int, machines: int) -> str:
    store = os.path.join(folder, "store")
    start = time.perf_counter()
    added = 0
    for machine in range(machines):
        added += add_history(store, folder, history(machine, benchmarks, commits), f"bench-{machine + 1}")
    print(f"  store: {added} result files added in {time.perf_counter() - start:.1f} s (through the API)")
    return store


def history(machine: int, benchmarks: int, commits: int) -> list:
    """One machine's recordings: the same commits on every machine, two planted steps."""
    steps = [synthetic.Step(3, commits // 2, 1.10), synthetic.Step(None, commits * 3 // 4, 0.95)]
    recordings = synthetic.make_history(
        100 + machine, commits=commits, benchmarks=benchmarks, processes=10, values=2, steps=steps
    )
    return [recording._replace(commit=synthetic.commit_id(index, 0)) for index, recording in enumerate(recordings)]


def size_of(folder: str) -> tuple[int, int]:
    total = count = 0
    for root, _, names in os.walk(folder):
        for name in names:
            total += os.path.getsize(os.path.join(root, name))
            count += 1
    return count, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmarks", type=int, default=50)
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--machines", type=int, default=3)
    parser.add_argument("--keep", help="build the store and site in this folder, and keep them")
    args = parser.parse_args()
    print(header_line())
    folder = args.keep or tempfile.mkdtemp(prefix="perf-publish-")
    try:
        store = write_store(folder, args.benchmarks, args.commits, args.machines)
        site = os.path.join(folder, "site")
        changes, show = perf("history", "changes", store), perf("history", "show", store)
        print(f"  history changes: {changes:.2f} s   history show: {show:.2f} s")
        print(f"  history publish, new folder: {perf('history', 'publish', store, site):.2f} s")
        print(f"  history publish, nothing changed: {perf('history', 'publish', store, site):.2f} s")
        add_history(store, folder, history(0, args.benchmarks, args.commits + 1), "bench-1", first=args.commits)
        print(f"  history publish, one more commit on one machine: {perf('history', 'publish', store, site):.2f} s")
        count, total = size_of(site)
        pages = sorted(
            (os.path.getsize(os.path.join(site, "b", name)), name) for name in os.listdir(os.path.join(site, "b"))
        )
        overview_size = os.path.getsize(os.path.join(site, "index.html"))
        print(
            f"  site: {count} files, {total / 1e6:.1f} MB; overview {overview_size / 1e3:.0f} kB, "
            f"largest benchmark page {pages[-1][0] / 1e3:.0f} kB"
        )
        if shutil.which("chromium"):
            profile = os.path.join(folder, "profile")
            blank = min(browser("about:blank", profile) for _ in range(3))
            overview = min(browser("file://" + os.path.join(site, "index.html"), profile) for _ in range(3))
            page = min(browser("file://" + os.path.join(site, "b", pages[-1][1]), profile) for _ in range(3))
            listed = min(browser("file://" + os.path.join(site, "changes.html"), profile) for _ in range(3))
            print(
                f"  headless Chromium, best of 3: about:blank {blank:.2f} s, overview {overview:.2f} s, "
                f"largest benchmark page {page:.2f} s, changes {listed:.2f} s"
            )
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
