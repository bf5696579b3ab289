"""Latency of Pulsar's delayed-delivery trackers outside a broker: JMH (Mode.SampleTime, one
call per sample, ``-prof gc``) on ``addMessage`` (in order, fixed 60 s delay; out of order,
uniform 0-1 h) and ``getScheduledMessages(100)`` from a tracker of ``prefill`` messages
(``trackercheck/.../TrackerBench.java`` says exactly what each benchmark does).

:func:`run` runs :func:`trackerlab.broker.trackercheck.run_jmh` per release and writes one
Parquet file, atomically, with the provenance (settings, machine, git commit, versions) in its
schema metadata (``trackerlab``), as ``broker run`` does (:mod:`.results`). Latency columns are
nanoseconds of one call; allocation is bytes per call (JMH's ``gc.alloc.rate.norm``).
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from trackerlab.broker import trackercheck
from trackerlab.broker.trackercheck import JmhSettings
from trackerlab.core.provenance import git_commit, library_versions
from trackerlab.experiments.real_broker.results import machine, write_frames

__all__ = ["DEFAULT_RUNS", "run"]

#: What runs per release: 4.2.4's time buckets and PIP-195, 4.0.8's triple heap.
DEFAULT_RUNS: dict[str, tuple[str, ...]] = {
    "4.2.4": ("in-memory", "bucket"),
    "4.0.8": ("in-memory",),
}
#: The design each (release, kind) runs, for the table.
DESIGNS = {
    ("4.2.4", "in-memory"): "time-buckets (#23611)",
    ("4.0.8", "in-memory"): "triple-heap",
    ("4.2.4", "bucket"): "pip195-buckets",
    ("4.2.4", "sorted-chunks"): "sorted-chunks (trackerlab)",
}


def run(
    out_dir: Path, runs: dict[str, tuple[str, ...]] | None = None,
    settings: JmhSettings | None = None, stem: str = "tracker-latency",
    note: str = "shared, noisy machine (2 cores, other jobs running): compare within one run",
) -> tuple[pd.DataFrame, Path]:  # fmt: skip
    """Run the benchmarks and write ``out_dir/<stem>.parquet``; the table and its path.
    ``runs`` defaults to :data:`DEFAULT_RUNS` plus ``sorted-chunks`` on 4.2.4 when compiled in.
    With the default settings (1 fork, 3 x 2 s warmup, 3 x 2 s measurement, 1e6 prefill) the
    three Pulsar trackers took 238 s here (2026-11-28). ``note`` says how busy the machine was;
    it is stored with the provenance."""
    settings = settings or JmhSettings()
    if runs is None:  # the project's own tracker too, once it is compiled in
        runs = dict(DEFAULT_RUNS)
        if trackercheck.build("4.2.4").has_sorted_chunks():
            runs["4.2.4"] = (*runs["4.2.4"], "sorted-chunks")
    t0 = time.monotonic()
    rows: list[dict[str, object]] = []
    for version, kinds in runs.items():
        rows += trackercheck.run_jmh(version, kinds, settings)
    frame = pd.DataFrame(rows)
    pairs = zip(frame.pulsar_version, frame.kind, strict=True)
    frame.insert(2, "design", [DESIGNS.get((v, k), k) for v, k in pairs])

    meta = {
        "experiment": "tracker-latency", "jmh": "1.37", "mode": "SampleTime", "profiler": "gc",
        "settings": asdict(settings), "runs": {v: list(k) for v, k in runs.items()},
        "run_seconds": round(time.monotonic() - t0, 1), "machine": machine(),
        "note": note,
        "git_commit": git_commit(), "versions": library_versions(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }  # fmt: skip
    (path,) = write_frames(Path(out_dir), stem, {"": frame}, meta)
    return frame, path
