"""Result files of ``trackerlab broker run``: the provenance every experiment records and its
Parquet files, written atomically with the provenance in the schema metadata."""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["machine", "provenance", "write_frames"]


def machine() -> dict[str, object]:
    """The machine a run took place on: node, CPUs, memory, system, Java."""
    from trackerlab.javacheck import java_major

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
    ``result`` has the fields of a ``DelayedResult`` (workload, version, client_version,
    achieved_rate_per_s, run_seconds, start_seconds, broker_rss_bytes, broker_heap_used_bytes,
    jol); ``extra`` adds experiment-specific keys (e.g. the broker settings a run overrode)."""
    from trackerlab.provenance import git_commit, library_versions

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

    from trackerlab.durable import atomic_write_bytes

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
