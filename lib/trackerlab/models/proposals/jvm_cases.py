"""``trackerlab jvm-check`` cases of the design lab's proposals (group ``proposal``).

Each case replays ``addMessage`` per message of a small workload twice: in the probe JVM
(``jvmcheck/java/LabProbe.java``: the fastutil AVL map, RoaringBitmap 1.6.10, ``int[]``,
``byte[]``, ``Object[]`` and the slot table's ``long[]``/``int[]``) and in the Python model, whose
``jvm_bytes`` the layout rules give. The cases live here, with the models they size, because
``trackerlab.jvmcheck`` sits below the models; ``trackerlab jvm-check`` runs them with the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import trackerlab.models.proposals.adaptive_leaf as adaptive_leaf
import trackerlab.models.proposals.flat_buckets as flat_buckets
import trackerlab.models.proposals.hier_buckets as hier_buckets
import trackerlab.models.proposals.sealed_buckets as sealed_buckets
from trackerlab.jvmcheck.probe import JvmProbe
from trackerlab.jvmcheck.probe_cases import ProbeCase
from trackerlab.sizing.jvm import JvmLayout
from trackerlab.workloads.stream import Workload


@dataclass(frozen=True)
class LabWorkload:
    """The messages a proposal case adds (the workload model's stream, as numpy arrays)."""

    messages: int
    rate_per_ms: float
    delay: str
    entries_per_ledger: int = 700
    batch_size: int = 1

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(ledger, entry, deliverAt, now) per message, in publish order. O(messages) numpy."""
        w = Workload.from_options(
            self.messages,
            self.rate_per_ms,
            delay=self.delay,
            entries_per_ledger=self.entries_per_ledger,
            batch_size=self.batch_size,
        )
        parts = [(c.ledger, c.entry, c.deliver_at, c.publish_ms) for c in w.chunks()]
        return tuple(np.concatenate(col) for col in zip(*parts, strict=True))  # type: ignore[return-value]  # zip over the three columns gives a 3-tuple; mypy sees tuple[ndarray, ...]


def _proposal(kind: str, label: str, work: LabWorkload, tick: int) -> ProbeCase:
    """A design-lab proposal built by ``addMessage`` per message on both sides; the JVM returns
    ``Object[] {map, slot ids, slot counts}``, so the model adds that ``Object[3]``."""

    def tracker():
        ledger, entry, at, now = work.arrays()
        delays = (at - now)[at - now > tick]
        fixed = int(delays[0]) if len(delays) and delays.min() == delays.max() else None
        made = {
            "flat": lambda: flat_buckets.FlatBucketTracker(tick),
            "sealed": lambda: sealed_buckets.SealedBucketTracker(tick, fixed_delay_ms=fixed),
            "adaptive": lambda: adaptive_leaf.AdaptiveBucketTracker(tick),
            "hier": lambda: hier_buckets.HierBucketTracker(tick),
        }[kind]()
        for row in zip(ledger.tolist(), entry.tolist(), at.tolist(), now.tolist(), strict=True):
            made.add_message(*row)
        if kind == "sealed" and made.last_add_ms is not None:
            made.advance(made.last_add_ms + tick)
        return made, fixed

    def model(layout: JvmLayout) -> int:
        return tracker()[0].jvm_bytes(layout) + layout.array(3, "L")

    def build(p: JvmProbe) -> Any:
        ledger, entry, at, now = (p.longs(a) for a in work.arrays())
        lab = p.jvm.trackerlab.probe.LabProbe
        if kind in ("flat", "sealed"):
            fixed = tracker()[1] if kind == "sealed" else None
            return lab.flat(ledger, entry, at, now, tick, -1 if fixed is None else fixed)
        return getattr(lab, kind)(ledger, entry, at, now, tick)

    return ProbeCase(
        f"proposal-{kind}-{label}",
        "proposal",
        f"time-buckets-{kind}: {work.messages} messages at {work.rate_per_ms:g}/ms, delay "
        f"{work.delay}, batches of {work.batch_size}, tick {tick} ms (+ Object[3] holder)",
        build,
        model,
        needs_fastutil=True,
    )


def proposal_cases() -> tuple[ProbeCase, ...]:
    uniform = LabWorkload(4000, 2.0, "uniform:0:30s", batch_size=3)
    fixed = LabWorkload(6000, 8.0, "fixed:10s")
    mixed = LabWorkload(5000, 1.0, "mix:0.7*uniform:0:3s+0.3*uniform:5m:2h", batch_size=2)
    return (
        _proposal("flat", "uniform", uniform, 64),
        _proposal("flat", "fixed", fixed, 16),
        _proposal("sealed", "fixed", fixed, 16),
        _proposal("sealed", "uniform", uniform, 64),
        _proposal("adaptive", "uniform", uniform, 64),
        _proposal("adaptive", "fixed", fixed, 1000),
        _proposal("hier", "uniform", uniform, 64),
        _proposal("hier", "mixed", mixed, 16),
        _proposal("hier", "fixed", fixed, 16),
    )


CASES = proposal_cases()
