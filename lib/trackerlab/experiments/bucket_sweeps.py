"""Sweeps behind the negative-ack and delayed-delivery notebooks: tables, not plots.

Each function returns a pandas DataFrame with explicit units in its column names
(``*_b_per_entry`` is bytes per entry). The notebooks only plot them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from trackerlab.catalog import CATALOG, SizeRequest, size
from trackerlab.models.delayed.time_bucket_runs import BucketRun, measure, published_bytes_per_entry
from trackerlab.models.time_buckets.shapes import per_bitmap_overhead, per_bucket_overhead
from trackerlab.sizing import theory
from trackerlab.workloads.stream import Workload


def _row(run: BucketRun, python: bool = True, **extra: object) -> dict[str, object]:
    s = measure(run, python)
    return {
        "rate_per_ms": run.workload.rate_per_ms,
        "trim_bits": run.trim_bits,
        "messages_per_bucket": run.messages_per_bucket,
        "delay": run.workload.delay.text,
        "pattern": run.workload.pattern.text,
        "run_optimize": run.run_optimize,
        "entries": s.entries,
        "buckets": s.buckets,
        "bitmaps": s.bitmaps,
        "array_containers": s.array_containers,
        "bitset_containers": s.bitset_containers,
        "run_containers": s.run_containers,
        "jvm_b_per_entry": s.per_entry("jvm_bytes"),
        "python_b_per_entry": s.per_entry("python_bytes") if python else float("nan"),
        "theory_published_b_per_entry": published_bytes_per_entry(run),
        "theory_corrected_b_per_entry": s.per_entry("theory_corrected_bytes"),
        **extra,
    }


def grid(
    messages: int,
    rates_per_ms: Sequence[float],
    trim_bits: Sequence[int],
    *,
    entries_per_ledger: int = 50_000,
    delay: str = "fixed:0",
    run_optimize: Iterable[bool] = (False, True),
    shape: str = "avl-openhash",
    formula: str = "pip393",
) -> pd.DataFrame:
    """Sizes over a rate x trim-bits grid, plain and run-optimized (the improvement)."""
    rows = [
        _row(
            BucketRun(
                Workload.from_options(
                    messages, x, delay=delay, entries_per_ledger=entries_per_ledger
                ),
                y,
                shape=shape,
                run_optimize=r,
                formula=formula,
            )
        )
        for x, y, r in itertools.product(rates_per_ms, trim_bits, run_optimize)
    ]
    return pd.DataFrame(rows).sort_values(
        ["run_optimize", "messages_per_bucket"], ignore_index=True
    )


def theory_curves(
    m_values: np.ndarray,
    entries_per_ledger: int = 50_000,
    shape: str = "avl-openhash",
    formula: str = "pip393",
) -> pd.DataFrame:
    """The seed's formula and the corrected one over messages-per-bucket values."""
    published = (
        theory.timebucket_bytes_per_entry
        if formula == "timebucket"
        else theory.pip393_bytes_per_entry
    )
    bucket, bitmap = per_bucket_overhead(shape), per_bitmap_overhead()
    return pd.DataFrame(
        {
            "messages_per_bucket": m_values,
            "published_b_per_entry": [published(m) for m in m_values],
            "corrected_b_per_entry": [
                theory.corrected_bucket_bytes_per_entry(m, entries_per_ledger, bucket, bitmap)
                for m in m_values
            ],
            "corrected_runs_b_per_entry": [
                theory.corrected_bucket_bytes_per_entry(
                    m, entries_per_ledger, bucket, bitmap, run_optimize=True
                )
                for m in m_values
            ],
        }
    )


def precision(
    messages: int,
    rate_per_ms: float,
    trim_bits: Sequence[int],
    *,
    entries_per_ledger: int = 50_000,
    delay: str = "fixed:0",
    formula: str = "pip393",
) -> pd.DataFrame:
    """Memory against precision: the early-delivery bound ``2^bits - 1`` ms for each trim.

    JVM model only: at 0 bits every millisecond is a bucket, and measuring a million
    Python objects would dominate the report's run time.
    """
    rows = []
    for bits in trim_bits:
        for r in (False, True):
            run = BucketRun(
                Workload.from_options(
                    messages, rate_per_ms, delay=delay, entries_per_ledger=entries_per_ledger
                ),
                bits,
                run_optimize=r,
                formula=formula,
            )
            rows.append(_row(run, python=False, early_bound_ms=(1 << bits) - 1))
    return pd.DataFrame(rows)


def random_subsets(
    messages: int,
    rate_per_ms: float,
    trim_bits: int,
    fractions: Sequence[float],
    *,
    entries_per_ledger: int = 50_000,
    seed: int = 0,
) -> pd.DataFrame:
    """Nacking a random fraction f of a consecutive stream, against the entropy bound.

    The bound is ``log2 C(u, n) / n`` bits per entry for n nacked entries among the u
    entries each (bucket, ledger) spans, the floor for any encoding of a random subset.
    """
    rows = []
    for f in fractions:
        run = BucketRun(
            Workload.from_options(
                messages,
                rate_per_ms,
                pattern="all" if f >= 1 else f"fraction:{f}",
                entries_per_ledger=entries_per_ledger,
                seed=seed,
            ),
            trim_bits,
        )
        spanned = run.messages_per_bucket  # entries a bucket covers, nacked or not
        bitmaps_per_bucket = 1 + (spanned - 1) / entries_per_ledger
        u = max(1, round(spanned / bitmaps_per_bucket))
        n = max(1, round(f * u))
        row = _row(run, fraction=f)
        row["entropy_b_per_entry"] = theory.entropy_bytes_per_entry(u, n)
        rows.append(row)
    return pd.DataFrame(rows)


def random_delays(
    messages: int,
    rate_per_ms: float,
    trim_bits: int,
    delays: Sequence[str],
    *,
    entries_per_ledger: int = 50_000,
    seed: int = 0,
    formula: str = "pip393",
    tick_ms: int | None = None,
) -> pd.DataFrame:
    """Sizes when deliver-at times are spread by a delay distribution instead of fixed."""
    return pd.DataFrame(
        [
            _row(
                BucketRun(
                    Workload.from_options(
                        messages,
                        rate_per_ms,
                        delay=d,
                        entries_per_ledger=entries_per_ledger,
                        seed=seed,
                    ),
                    trim_bits,
                    formula=formula,
                    tick_ms=tick_ms,
                )
            )
            for d in delays
        ]
    )


def baselines(
    messages: int,
    names: Sequence[str],
    *,
    rate_per_ms: float = 1.0,
    delay: str = "fixed:60000ms",
    trim_bits: int = 10,
    tick_ms: int = 1000,
) -> pd.DataFrame:
    """Bytes per entry of other catalog designs (hash maps, heaps) on the same workload."""
    workload = Workload.from_options(messages, rate_per_ms, delay=delay)
    request = SizeRequest(workload, trim_bits=trim_bits, tick_ms=tick_ms)
    rows = []
    for name in names:
        CATALOG.check(name, CATALOG.names("build"))
        result = size(name, request)
        rows.append(
            {
                "design": name,
                "jvm_b_per_entry": result.per_entry(result.jvm_bytes),
                "jvm_direct_b_per_entry": result.per_entry(result.jvm_direct_bytes),
                "python_b_per_entry": result.per_entry(result.python_bytes),
                "theory_b_per_entry": result.per_entry(result.theory_bytes),
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "design",
            "jvm_b_per_entry",
            "jvm_direct_b_per_entry",
            "python_b_per_entry",
            "theory_b_per_entry",
        ],
    )
