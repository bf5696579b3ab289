"""The Parquet reader trackerlab uses starts no Arrow thread (the exit-abort of
apache/arrow#34314 needs a live Arrow worker) and reads back what was written."""

import subprocess
import sys
import textwrap

PROBE = textwrap.dedent(
    """
    import io, os, sys
    import pyarrow as pa, pyarrow.parquet as pq
    from trackerlab.core.parquet_bytes import read_parquet_bytes

    buf = io.BytesIO()
    pq.write_table(pa.table({"a": list(range(1000))}), buf)
    data = buf.getvalue()
    threads = lambda: len(os.listdir("/proc/self/task"))
    before = threads()
    if sys.argv[1] == "trackerlab":
        table = read_parquet_bytes(data)
    else:
        table = pq.read_table(io.BytesIO(data))
    assert table.column("a").to_pylist() == list(range(1000))
    print(threads() - before, flush=True)  # before an abort at exit can lose it
    """
)


def _new_threads(reader: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, reader], capture_output=True, text=True, timeout=120
    )
    assert out.returncode in (0, -6, 134), out.stderr  # an abort at exit is the bug itself
    return int(out.stdout.split()[-1])


def test_read_parquet_bytes_starts_no_thread():
    assert _new_threads("trackerlab") == 0


def test_the_probe_sees_read_tables_scanner_thread():
    # The probe can fail: pyarrow's read_table starts at least one thread.
    assert _new_threads("read_table") >= 1
