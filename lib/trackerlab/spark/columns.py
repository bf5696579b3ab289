"""Message streams as Spark SQL columns, bit-identical to :meth:`Workload.chunk`.

:func:`messages_frame` is ``spark.range(lo, hi)`` (the message index) plus columns computed
by Spark's code generation: ``publish_ms``, ``entry_seq``, ``ledger``, ``entry``, ``delay_ms``,
``deliver_at`` and ``bucket`` (``deliver_at`` with its low ``trim_bits`` cleared), of the
selected messages only. The random values replicate :mod:`trackerlab.core.rng` (SplitMix64 keyed
by seed, stream and message index) with signed-long arithmetic: addition, multiplication and
xor wrap around exactly as uint64 does, ``shiftrightunsigned`` is the logical shift, and the
53-bit uniforms are exact doubles. The session must have ``spark.sql.ansi.enabled=false``
(ANSI mode raises on long overflow; :mod:`trackerlab.spark.session` sets it).

Delay distributions map to the same double arithmetic as numpy (``fixed``, ``uniform``,
``empirical`` and ``mix`` are exact); ``exponential`` uses Java's ``StrictMath.log1p``
(fdlibm) where numpy uses the C library's ``log1p``: both are within 1 ulp, so a delay can
differ by 1 ms when ``-mean * log1p(-u)`` lands within an ulp of an integer (about 1e-11 of
messages for a 1-minute mean). tests/spark/test_columns.py compares every kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from trackerlab.core import rng
from trackerlab.workloads.delay_spec import DelaySpec
from trackerlab.workloads.stream import DELAY_STREAM, MIX_STREAM, SELECT_STREAM, Workload

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

_GAMMA = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB


def signed64(x: int) -> int:
    """The signed Java long with the bits of the uint64 ``x``."""
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >= 1 << 63 else x


def _lit(x: int) -> Column:
    from pyspark.sql import functions as F

    return F.lit(signed64(x)).cast("long")


def _mix(z: Column) -> Column:
    from pyspark.sql import functions as F

    z = z.bitwiseXOR(F.shiftrightunsigned(z, 30)) * _lit(_M1)
    z = z.bitwiseXOR(F.shiftrightunsigned(z, 27)) * _lit(_M2)
    return z.bitwiseXOR(F.shiftrightunsigned(z, 31))


def uniform_column(seed: int, stream: int, index: Column) -> Column:
    """:func:`trackerlab.core.rng.uniforms` for the message indices in ``index``."""
    from pyspark.sql import functions as F

    key = int(rng.stream_key(seed, stream))
    z = _mix(_lit(key) + (index + F.lit(1).cast("long")) * _lit(_GAMMA))
    return F.shiftrightunsigned(z, 11).cast("double") * F.lit(2.0**-53)


def _pick(u: Column, weights: tuple[float, ...], choices: list[Column]) -> Column:
    """``choices[min(searchsorted(cumsum(weights), u, 'right'), n - 1)]`` as CASE WHEN."""
    from pyspark.sql import functions as F

    cdf = np.cumsum(weights).tolist()
    expr = None
    for bound, choice in zip(cdf[:-1], choices[:-1], strict=True):
        expr = (F.when if expr is None else expr.when)(u < F.lit(bound), choice)
    return choices[-1] if expr is None else expr.otherwise(choices[-1])


def delay_column(spec: DelaySpec, u: Column, v: Column | None) -> Column:
    """:meth:`DelaySpec.sample` as a long column of delays in ms."""
    from pyspark.sql import functions as F

    if spec.kind == "fixed":
        return F.lit(int(spec.params[0])).cast("long")
    if spec.kind == "uniform":
        lo, hi = spec.params
        return F.floor(F.lit(lo) + u * F.lit(hi - lo)).cast("long")
    if spec.kind == "exponential":
        return F.floor(F.lit(-spec.params[0]) * F.log1p(-u)).cast("long")
    if spec.kind == "empirical":
        values = [F.lit(int(x)).cast("long") for x in np.asarray(spec.params, dtype=np.float64)]
        return _pick(u, spec.weights, values)
    if v is None:
        raise ValueError("a mixture needs a second uniform stream")
    return _pick(v, spec.weights, [delay_column(p, u, None) for p in spec.parts])


def message_columns(
    df: DataFrame, workload: Workload, trim_bits: int, keep: tuple[str, ...] = ()
) -> DataFrame:
    """Add the message columns to a frame whose ``id`` is the message index; keep only the
    selected messages (the workload's pattern) and, besides ``id``, the columns ``keep``."""
    from pyspark.sql import functions as F

    w = workload
    i = F.col("id")
    # the fraction Workload.chunk divides by (float division drifts by 1 ms), in the same
    # overflow-free integer form (workloads.stream.publish_offsets: num * den < 2^62)
    num, den = w.rate_fraction
    offset = f"(id div {num}) * {den} + ((id % {num}) * {den}) div {num}"
    publish = F.lit(w.start_ms) + F.expr(offset)
    entry_seq = F.expr(f"id div {w.batch_size}")
    pattern = w.pattern
    if pattern.kind == "fraction":
        df = df.where(uniform_column(w.seed, SELECT_STREAM, i) < F.lit(pattern.fraction))
    elif pattern.kind == "burst":
        df = df.where(F.pmod(i, F.lit(pattern.on + pattern.off)) < F.lit(pattern.on))
    u = uniform_column(w.seed, DELAY_STREAM, i)
    v = uniform_column(w.seed, MIX_STREAM, i) if w.delay.kind == "mix" else None
    df = df.select(
        *keep,
        i.alias("id"),
        publish.alias("publish_ms"),
        entry_seq.alias("entry_seq"),
        delay_column(w.delay, u, v).alias("delay_ms"),
    )
    df = df.select(
        *keep,
        "id",
        "publish_ms",
        (F.lit(w.start_ledger) + F.expr(f"entry_seq div {w.entries_per_ledger}")).alias("ledger"),
        F.pmod(F.col("entry_seq"), F.lit(w.entries_per_ledger)).alias("entry"),
        "delay_ms",
        (F.col("publish_ms") + F.col("delay_ms")).alias("deliver_at"),
    )
    return df.withColumn("bucket", F.col("deliver_at").bitwiseAND(F.lit(-(1 << trim_bits))))


def messages_frame(
    spark: SparkSession,
    workload: Workload,
    trim_bits: int,
    lo: int = 0,
    hi: int | None = None,
    partitions: int | None = None,
) -> DataFrame:
    """Selected messages ``lo .. hi - 1`` of ``workload`` as a DataFrame (see module doc)."""
    hi = workload.messages if hi is None else hi
    return message_columns(spark.range(lo, hi, 1, partitions), workload, trim_bits)
