"""Ctrl-C held while a JVM starts: pyspark's ``launch_gateway`` interrupted half-way leaves a
JVM that nobody owns (it ignores SIGINT, as pyspark starts it) and prints a Java stack.

``with sigint_held() as interrupted:`` records a SIGINT instead of raising it; the caller
finishes or undoes the start, then raises ``KeyboardInterrupt`` if ``interrupted()``. Used by
the Spark session (:mod:`trackerlab.spark.session`) and the jvm-check probe
(:mod:`trackerlab.jvmcheck.probe`). Core layer: the standard library only.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator

__all__ = ["die_with_parent", "sigint_held", "sigint_watched"]


@contextlib.contextmanager
def sigint_held() -> Iterator[Callable[[], bool]]:
    """Hold Ctrl-C for the block; yield a function telling whether one came. Outside the main
    thread (where Python delivers no signal) it holds nothing. O(1)."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    came: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    try:
        yield lambda: bool(came)
    finally:
        # also drops a handler installed inside the block (SparkContext's calls the JVM from
        # the signal handler, which breaks a py4j call in progress)
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def sigint_watched() -> Iterator[Callable[[], bool]]:
    """Let Ctrl-C raise ``KeyboardInterrupt`` as usual during the block, and yield a function
    telling whether one came: a SIGINT landing inside a py4j call surfaces as a broken call
    ("Answer from Java side is empty"), and the caller turns that back into an interrupt.
    Outside the main thread it watches nothing. O(1)."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    came: list[int] = []

    def handler(signum: int, frame: object) -> None:
        came.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield lambda: bool(came)
    finally:
        signal.signal(signal.SIGINT, previous)


def die_with_parent() -> None:
    """``preexec_fn`` for a child process (a JVM, Maven): the kernel kills it with SIGKILL when
    the thread of the Python process that started it ends, however it ends (SIGTERM and SIGKILL included,
    which run no Python cleanup). Linux only (``prctl(PR_SET_PDEATHSIG)``); elsewhere a no-op.
    O(1)."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1
    except OSError:
        pass
