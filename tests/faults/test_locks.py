"""Two (or eight) writers racing for a folder lock: never two holders, never a stuck lock.

Before issue 16 the sweep's ``.lock`` held a pid written when the file closed: a racing
process read pid 0, called the lock stale and deleted it (2+ holders in 124 of 150 trials),
and a stale lock whose pid had been reused blocked forever.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO
from trackerlab.core.durable import FolderLock
from trackerlab.core.errors import UsageError
from trackerlab.spark.store import LOCK, SweepStore

WRITERS = 8
ROUNDS = 40


def _contend(path: str, log: str, barrier, rounds: int) -> None:
    """Try the lock ``rounds`` times; while holding it, append (start, end) to ``log``."""
    barrier.wait()
    for _ in range(rounds):
        lock = FolderLock(path, "busy")
        try:
            lock.acquire()
        except UsageError:
            time.sleep(0.0005)
            continue
        start = time.monotonic_ns()
        time.sleep(0.002)
        end = time.monotonic_ns()
        lock.release()
        with open(log, "a") as f:
            f.write(f"{os.getpid()} {start} {end}\n")


def test_racing_writers_never_hold_the_lock_together(tmp_path):
    path, log = tmp_path / "folder.lock", tmp_path / "holders.txt"
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(WRITERS)
    procs = [
        ctx.Process(target=_contend, args=(str(path), str(log), barrier, ROUNDS))
        for _ in range(WRITERS)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    spans = sorted(tuple(map(int, line.split()[1:])) for line in log.read_text().splitlines())
    assert len(spans) >= 10  # the lock was taken, and often
    holders = {line.split()[0] for line in log.read_text().splitlines()}
    assert len(holders) >= 2  # by several processes
    for (_, e1), (s2, _) in itertools.pairwise(spans):
        assert s2 >= e1, "two processes held the lock at once"
    assert not path.exists()  # released: no stale file left behind


def test_a_second_sweep_is_refused_and_a_dead_holder_blocks_nothing(tmp_path):
    store = SweepStore(tmp_path / "sweep")
    store.lock()
    other = SweepStore(tmp_path / "sweep")
    with pytest.raises(UsageError, match="another sweep is writing to"):
        other.lock()
    store.unlock()
    other.lock()  # free again
    other.unlock()
    # a holder that died (SIGKILL): the kernel released its flock; its file and pid stay
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys, time\n"
            "from trackerlab.spark.store import SweepStore\n"
            f"SweepStore({str(store.root)!r}).lock()\n"
            "print('held', flush=True)\n"
            "time.sleep(60)\n",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(UsageError, match="another sweep"):
        SweepStore(store.root).lock()
    holder.kill()
    holder.wait(timeout=30)
    assert (store.root / LOCK).exists()  # left behind with a dead pid inside
    (store.root / LOCK).write_text(f"{os.getpid()}\n")  # even "our own" or a reused pid
    again = SweepStore(store.root)
    again.lock()  # taken at once: nothing guesses from the pid
    again.unlock()
