"""The realistic matrix's large cells (issue 27, item 1): one cell sized for sorted-chunks
(the streamed build of :mod:`~trackerlab.models.proposals.sorted_chunks_streamed` above
``design_lab_realistic.STREAMED_ABOVE_MESSAGES``), time-buckets-hier and the heap, timed, its
rows added to a Parquet file with provenance. The measured runs, and the 10^9 command with its
stated time, are in :mod:`~trackerlab.models.proposals.sorted_chunks_streamed`'s docstring::

    python -m trackerlab.experiments.design_lab_large --messages 1e8 --delay uniform:0:1h \
        --pattern all --rate-per-s 100 --tick 1s \
        --out data/design_lab/realistic-sorted-chunks-large.parquet
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import trackerlab.experiments.design_lab_realistic as dr
from trackerlab.models.proposals import sorted_chunks_streamed as scs

__all__ = ["COMMAND_DESIGNS", "main"]

#: Designs the command sizes beside sorted-chunks (the same ``size_cell`` call).
COMMAND_DESIGNS = ("sorted-chunks", "time-buckets-hier", "triple-heap")


def _parser() -> argparse.ArgumentParser:
    """The command's options (its description is :func:`main`'s docstring)."""
    p = argparse.ArgumentParser(
        prog="python -m trackerlab.experiments.design_lab_large", description=main.__doc__
    )
    p.add_argument("--messages", required=True, help="e.g. 1e9")
    p.add_argument("--delay", default="uniform:0:1h")
    p.add_argument("--pattern", default="all")
    p.add_argument("--rate-per-s", type=float, default=100.0)
    p.add_argument("--tick", default="1s", help="e.g. 64ms, 1s, 60s")
    p.add_argument("--designs", default=",".join(COMMAND_DESIGNS))
    p.add_argument("--out", type=Path, default=None, help="Parquet file the rows are added to")
    return p


def _cell_and_designs(a: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    """The realistic cell the options describe and the designs to size; UsageError or
    ValueError on bad input."""
    from trackerlab.core.params import check_float
    from trackerlab.workloads.stream import MAX_RATE_PER_MS, MIN_RATE_PER_MS
    from trackerlab.workloads.units import parse_duration_ms

    messages = scs.parse_count("messages", a.messages)
    tick = scs.check_in_range(
        "tick (ms)", int(parse_duration_ms(a.tick, "--tick")), 1, scs.MAX_TICK_MS
    )
    per_s = check_float(
        "--rate-per-s", a.rate_per_s, MIN_RATE_PER_MS * 1000, MAX_RATE_PER_MS * 1000
    )
    rate = per_s / 1000
    cell = {"delay": a.delay, "pattern": a.pattern, "rate_per_ms": rate, "tick_ms": tick,
            "batch_size": 1, "messages": messages,
            "entries_per_ledger": dr.entries_per_ledger(rate), "scope": dr.REALISTIC_SCOPE}  # fmt: skip
    designs = [d.strip() for d in a.designs.split(",") if d.strip()]
    unknown = sorted(set(designs) - set(dr.DESIGNS))
    if unknown:
        raise ValueError(f"--designs: unknown {unknown}; choose from {', '.join(dr.DESIGNS)}")
    return cell, designs


def _print_rows(rows: list[dict[str, Any]]) -> None:
    """One line per design: entries, JVM bytes, bytes per entry, seconds and peak RSS."""
    print(
        "design entries jvm_bytes B_per_entry design_s design_cpu_s design_peak_rss_bytes "
        "reducer_s reducer_peak_rss_bytes size_cell_s size_cell_cpu_s peak_rss_bytes refused"
    )
    for r in rows:
        print(
            f"{r['design']} {r['entries']} {r['jvm_bytes']} {r['bytes_per_entry']:.4f} "
            f"{r['design_s']:.1f} {r['design_cpu_s']:.1f} {r['design_peak_rss_bytes']} "
            f"{r['reducer_s']:.1f} {r['reducer_peak_rss_bytes']} {r['size_cell_s']:.1f} "
            f"{r['size_cell_cpu_s']:.1f} {r['peak_rss_bytes']} {r['refused']!r}"
        )


def _add_to_parquet(rows: list[dict[str, Any]], out: Path, argv: list[str] | None) -> None:
    """Append ``rows`` to the Parquet file ``out`` (atomically), each with its run's command,
    git commit and time; the schema metadata keeps every run."""
    import pandas as pd

    from trackerlab.core.provenance import git_commit, library_versions

    run = {
        "command": "python -m trackerlab.experiments.design_lab_large "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "git_commit": git_commit(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    frame = pd.DataFrame(rows).assign(**run)
    runs: list[object] = []
    if out.exists():
        import json

        import pyarrow.parquet as pq

        old = json.loads(pq.read_schema(out).metadata.get(b"trackerlab", b"{}"))
        runs = old.get("runs", [old] if old else [])
        frame = pd.concat([pd.read_parquet(out), frame], ignore_index=True)
    meta: dict[str, object] = {
        "runs": [*runs, run],
        "versions": library_versions(),
        "host_cpus": os.cpu_count(),
        "note": "seconds and peak_rss_bytes measured on a shared 2-core machine under "
        "nice -n 19 (wall seconds mostly waiting; *_cpu_s is the work); every row "
        "carries its run's command, git_commit and created",
    }
    sha = dr.write_parquet(frame, out, meta)
    print(f"wrote {out} ({len(frame)} rows, sha256 {sha})")


def main(argv: list[str] | None = None) -> int:
    """Size one realistic cell (``design_lab_realistic.measure_cell``) for sorted-chunks (the
    streamed build above ``STREAMED_ABOVE_MESSAGES``), time-buckets-hier and the heap; print
    one line per design (entries, JVM bytes, bytes per entry, seconds, peak RSS) and, with
    ``--out``, add the rows to that Parquet file (written atomically, provenance in the
    schema metadata ``trackerlab``). Bad input: one line, exit code 2."""
    from trackerlab.core.errors import UsageError

    a = _parser().parse_args(argv)
    try:
        cell, designs = _cell_and_designs(a)
        rows = dr.measure_cell(cell, designs)
    except (UsageError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    _print_rows(rows)
    if a.out is not None:
        _add_to_parquet(rows, a.out, argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
