"""The cost guard: a run's estimated time and memory, checked before it starts.

A command that can run for hours or fill the machine (``size``, ``simulate``, ``sweep``,
``report``, ``plan --exact``) first builds an :class:`Estimate` from its parameters (its own
per-message costs, measured on the project machine and stated where they are defined) and
calls :func:`check`. When the estimate passes :data:`MAX_SECONDS` or
:data:`MAX_MEMORY_FRACTION` of this machine's memory, the run stops before any work with
one line giving the estimate, the limit and the flag that goes ahead anyway
(:data:`ALLOW_FLAG`; ``TRACKERLAB_ALLOW_LARGE=1`` does the same for scripts and ``make``).

Estimates are deliberately simple (linear in messages, events or samples) and err on the
large side; they exist to stop a typo (``1e18``) from running, not to schedule work.
Core layer: stdlib only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from trackerlab.core.errors import UsageError

MAX_SECONDS = 3600.0
MAX_MEMORY_FRACTION = 0.7
ALLOW_FLAG = "--allow-large"
ALLOW_ENV = "TRACKERLAB_ALLOW_LARGE"


@dataclass(frozen=True)
class Estimate:
    """What a run would cost: ``seconds`` of wall time and peak ``memory_bytes``."""

    what: str
    seconds: float
    memory_bytes: float

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(
            self.what, self.seconds + other.seconds, max(self.memory_bytes, other.memory_bytes)
        )

    def text(self) -> str:
        return f"about {format_seconds(self.seconds)} and {format_bytes(self.memory_bytes)}"


def machine_memory_bytes() -> int:
    """Physical memory, or the cgroup (container) limit when it is lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for limit_file in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            total = min(total, int(text))
    return total


def machine_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def format_seconds(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    if seconds < 2 * 365 * 86400:
        return f"{seconds / 86400:.0f} days"
    return f"{seconds / (365 * 86400):.2g} years"


def format_bytes(n: float) -> str:
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n / 1024:.3g} KiB"


def allowed_by_environment() -> bool:
    return os.environ.get(ALLOW_ENV, "").strip().lower() in ("1", "true", "yes")


def check(estimate: Estimate, allow: bool = False, flag: str = ALLOW_FLAG) -> Estimate:
    """Return ``estimate`` if it fits the machine (or ``allow``); else a one-line UsageError
    with the estimate, the limit and ``flag``."""
    if allow or allowed_by_environment():
        return estimate
    memory = machine_memory_bytes()
    too_long = estimate.seconds > MAX_SECONDS
    too_big = estimate.memory_bytes > MAX_MEMORY_FRACTION * memory
    if not (too_long or too_big):
        return estimate
    limits = []
    if too_long:
        limits.append(f"more than {format_seconds(MAX_SECONDS)}")
    if too_big:
        limits.append(
            f"more than {MAX_MEMORY_FRACTION:.0%} of this machine's {format_bytes(memory)}"
        )
    raise UsageError(
        f"{estimate.what}: estimated {estimate.text()} ({' and '.join(limits)}); "
        f"pass {flag} to run it anyway"
    )
