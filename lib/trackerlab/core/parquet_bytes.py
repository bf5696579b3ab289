"""Parquet bytes read back into a table on the calling thread only.

``pyarrow.parquet.read_table`` goes through Arrow's dataset scanner, which starts a worker
thread even with ``use_threads=False``. A process that exits while Arrow tears that pool down
can abort in ``std::terminate`` ("terminate called without an active exception", exit
-6/134: apache/arrow#34314). Measured with pyarrow 26.0.1 on a 1,000-row file read from
bytes, one process per read: ``read_table`` aborted 2 of 80 and, with
``use_threads=False, pre_buffer=False``, 2 of 200; :func:`read_parquet_bytes` 0 of 300,
and it starts no thread. Every Parquet file trackerlab reads back (sweep points, broker
results) is read through here, after the bounded reader has taken its bytes.
"""

from __future__ import annotations

from typing import Any

__all__ = ["read_parquet_bytes"]


def read_parquet_bytes(data: bytes) -> Any:  # -> pyarrow.Table
    """The ``pyarrow.Table`` of a whole Parquet file held in ``data``, decoded on this
    thread (``ParquetFile(..., pre_buffer=False).read(use_threads=False)``: no Arrow thread
    pool is started). Raises pyarrow's own errors on a damaged file. O(len(data))."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pq.ParquetFile(pa.BufferReader(data), pre_buffer=False).read(use_threads=False)
