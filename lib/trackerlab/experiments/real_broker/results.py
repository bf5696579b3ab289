"""Result files of ``trackerlab broker run``: the provenance every experiment records and its
Parquet files, written atomically with the provenance in the schema metadata."""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["RunResult", "finish", "machine", "provenance", "write_frames", "write_runs"]


@dataclass(frozen=True)
class RunResult:
    """One workload of an experiment on one release: its samples, the comparison rows, how it
    ran (``broker run delayed``, ``nack`` and ``pending-acks`` alike)."""

    workload: Any
    version: str
    client_version: str
    samples: pd.DataFrame
    comparison: pd.DataFrame
    start_seconds: float
    run_seconds: float
    achieved_rate_per_s: float
    broker_rss_bytes: int | None
    broker_heap_used_bytes: int | None
    jol: str


def finish(
    w: Any, broker: Any, built: Any, rows: list[dict[str, object]], sent: int, jol: str,
    t_launch: float, compare: Callable[[pd.DataFrame, Any, str, float], pd.DataFrame],
) -> RunResult:  # fmt: skip
    """The run's result once its broker has stopped: the samples (``rows``), the comparison at
    the rate the client achieved (``sent`` over the workload's seconds; its set rate when
    nothing was counted), the broker's last heap and RSS samples and the client's release.
    O(samples)."""
    samples = pd.DataFrame(rows)
    heap_used = int(samples["broker_heap_used_bytes"].iloc[-1])
    rss = samples["broker_rss_bytes"].iloc[-1]
    client_jar = built.jar("pulsar-client-original")
    rate = sent / w.seconds if sent else w.rate_per_s
    comparison = compare(samples, w, broker.version, rate)
    return RunResult(
        w, broker.version, client_jar.parent.name if client_jar else "unknown",
        samples, comparison, broker.start_seconds, time.monotonic() - t_launch, rate,
        int(rss) if rss is not None and not pd.isna(rss) else None, heap_used, jol,
    )  # fmt: skip


def machine() -> dict[str, object]:
    """The machine a run took place on: node, CPUs, memory, system, Java."""
    from trackerlab.core.java_runtime import java_major

    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        mem = None
    return {"node": platform.node(), "cpus": os.cpu_count(), "memory_bytes": mem,
            "system": platform.platform(), "java": java_major()[1]}  # fmt: skip


def provenance(
    experiment: str, result: Any, smoke: bool, tolerance: float, reason: str, **extra: object
) -> dict[str, object]:
    """Release, client version, run length and machine, with trackerlab's own provenance.
    ``result`` is a :class:`RunResult`; ``extra`` adds experiment-specific keys (e.g. the broker settings a run overrode)."""
    from trackerlab.core.provenance import git_commit, library_versions

    return {
        "experiment": experiment, "smoke": smoke,
        "pulsar_version": result.version, "client": f"pulsar-client-original {result.client_version}",
        "workload": asdict(result.workload), "achieved_rate_per_s": result.achieved_rate_per_s,
        "run_seconds": round(result.run_seconds, 1), "broker_start_seconds": round(result.start_seconds, 1),
        "broker_rss_bytes": result.broker_rss_bytes, "broker_heap_used_bytes": result.broker_heap_used_bytes,
        "tolerance": tolerance, "tolerance_reason": reason,
        "machine": machine(),
        **extra,
        "jol": result.jol, "git_commit": git_commit(), "versions": library_versions(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }  # fmt: skip


def write_frames(
    out_dir: Path, stem: str, frames: dict[str, pd.DataFrame], meta: dict[str, object]
) -> list[Path]:
    """``<stem><suffix>.parquet`` per frame, each written atomically with ``meta`` as JSON
    under the schema metadata key ``trackerlab``. O(rows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from trackerlab.core.durable import atomic_write_bytes

    out_dir.mkdir(parents=True, exist_ok=True)
    encoded = json.dumps(meta).encode()
    written = []
    for suffix, frame in frames.items():
        table = pa.Table.from_pandas(frame, preserve_index=False)
        table = table.replace_schema_metadata(
            {**(table.schema.metadata or {}), b"trackerlab": encoded}
        )
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        path = out_dir / f"{stem}{suffix}.parquet"
        atomic_write_bytes(path, sink.getvalue().to_pybytes())
        written.append(path)
    return written


def write_runs(
    experiment: str, runs: list[RunResult], out_dir: Path, smoke: bool,
    provenance_of: Callable[[RunResult, bool], dict[str, object]],
) -> list[Path]:  # fmt: skip
    """Per run two Parquet files, each written atomically with its provenance in the schema
    metadata (``trackerlab``): ``<experiment>-<workload>-<version>[-smoke].parquet`` (the
    comparison) and ``...-samples.parquet`` (the time series). O(samples)."""
    written = []
    for r in runs:
        stem = f"{experiment}-{r.workload.name}-{r.version}{'-smoke' if smoke else ''}"
        frames = {"": r.comparison, "-samples": r.samples}
        written += write_frames(out_dir, stem, frames, provenance_of(r, smoke))
    return written
