"""Benchmark of the PIP-393 tracker's bulk path against its per-message API.

Both paths belong to one model, :class:`~trackerlab.models.nack.pip393_tracker.BucketNackTracker`:
``add_chunk`` (numpy grouping + pyroaring bulk constructors) and ``add(ledger, entry, now)``
called once per message (the Java method's shape: trim the timestamp, then
``computeIfAbsent`` twice and ``add``). Prints rates measured in one run and their ratio;
performance goals live here, never in timed tests. Workload: x = 8 msg/ms, y = 10 bits,
50,000 entries per ledger. The per-message loop runs on a prefix (default 200,000
messages): a 1e7 loop would only repeat the same rate for a minute.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from dataclasses import dataclass

from trackerlab.models.nack.pip393_tracker import BucketNackTracker
from trackerlab.models.time_buckets.shapes import jvm_bytes
from trackerlab.models.time_buckets.time_bucket_index import TimeBucketIndex, trim_lower_bits
from trackerlab.sizing.python import python_real_bytes
from trackerlab.workloads.stream import Workload

DELAY_MS = 60_000


def peak_rss_mib() -> float:
    """Peak resident memory of this process: ``VmHWM`` (reset by exec, unlike
    ``ru_maxrss``, which a child started with fork + exec inherits), else ``ru_maxrss``."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass(frozen=True)
class BuildBench:
    messages: int
    generate_s: float
    bulk_build_s: float
    loop_messages: int
    loop_s: float
    jvm_sizing_s: float
    python_sizing_s: float
    peak_rss_mib: float

    @property
    def bulk_rate(self) -> float:
        return self.messages / self.bulk_build_s

    @property
    def end_to_end_rate(self) -> float:
        return self.messages / (self.generate_s + self.bulk_build_s)

    @property
    def loop_rate(self) -> float:
        return self.loop_messages / self.loop_s

    def lines(self) -> list[str]:
        return [
            f"workload: {self.messages:,} messages, x = 8 msg/ms, y = 10 bits, 50,000 entries/ledger",
            f"generate (numpy chunks)      {self.generate_s:7.2f} s",
            f"bulk build                   {self.bulk_build_s:7.2f} s  {self.bulk_rate / 1e6:7.1f} M msg/s",
            f"generate + bulk build        {self.generate_s + self.bulk_build_s:7.2f} s  "
            f"{self.end_to_end_rate / 1e6:7.1f} M msg/s",
            f"per-message loop ({self.loop_messages:,} msgs) {self.loop_s:7.2f} s  "
            f"{self.loop_rate / 1e6:7.2f} M msg/s",
            f"ratio bulk / loop            {self.bulk_rate / self.loop_rate:7.1f} x",
            f"size, JVM model              {self.jvm_sizing_s:7.2f} s",
            f"size, Python-real (pympler)  {self.python_sizing_s:7.2f} s",
            f"peak RSS of this process     {self.peak_rss_mib:7.0f} MiB",
        ]


def run(
    messages: int = 10_000_000, loop_messages: int = 200_000, trim_bits: int = 10
) -> BuildBench:
    """Time generation, bulk build, a per-message loop and both sizings, in one process."""
    workload = Workload(messages=messages, rate_per_ms=8, entries_per_ledger=50_000)
    t0 = time.perf_counter()
    chunks = list(workload.chunks())
    generate = time.perf_counter() - t0

    tracker = BucketNackTracker(trim_bits, DELAY_MS)
    t0 = time.perf_counter()
    for chunk in chunks:
        tracker.add_chunk(chunk)
    tracker.index.seal()
    bulk = time.perf_counter() - t0
    index = tracker.index
    del chunks

    prefix = next(
        Workload(messages=loop_messages, rate_per_ms=8, chunk_size=loop_messages).chunks()
    )
    slow = BucketNackTracker(trim_bits, DELAY_MS)
    t0 = time.perf_counter()  # the per-message API, fed from the same kind of chunk
    ledgers, entries = prefix.ledger.tolist(), prefix.entry.tolist()
    for ledger, entry, now in zip(ledgers, entries, prefix.publish_ms.tolist(), strict=True):
        slow.add(ledger, entry, now)
    slow.index.seal()
    loop = time.perf_counter() - t0

    t0 = time.perf_counter()
    jvm_bytes(index)
    jvm_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    python_real_bytes(index.buckets)
    python_s = time.perf_counter() - t0
    peak = peak_rss_mib()
    return BuildBench(messages, generate, bulk, loop_messages, loop, jvm_s, python_s, peak)


def streamed_peak(messages: int = 100_000_000, trim_bits: int = 10) -> tuple[float, float, int]:
    """Build from ``messages`` streamed in chunks, never holding more than one chunk:
    (seconds, peak RSS in MiB, entries). The 1e8 case is the issue's 4 GB memory target."""
    workload = Workload(messages=messages, rate_per_ms=8, entries_per_ledger=50_000)
    index = TimeBucketIndex(trim_bits)
    t0 = time.perf_counter()
    for chunk in workload.chunks():
        index.add_arrays(trim_lower_bits(chunk.deliver_at, trim_bits), chunk.ledger, chunk.entry)
    index.seal()
    elapsed = time.perf_counter() - t0
    peak = peak_rss_mib()
    return elapsed, peak, len(index)


def streamed_peak_in_subprocess(messages: int, trim_bits: int = 10) -> tuple[float, float, int]:
    """:func:`streamed_peak` in a new interpreter, so its peak RSS is its own."""
    code = (
        "from trackerlab.bench.build import streamed_peak;"
        f"print(*streamed_peak({int(messages)}, {int(trim_bits)}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, peak, entries = out.stdout.split()
    return float(seconds), float(peak), int(entries)
