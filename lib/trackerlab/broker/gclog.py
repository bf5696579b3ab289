"""The broker JVM's GC pauses from its unified GC log.

The broker runs with ``-Xlog:gc*:file=gc.log:uptime,level,tags`` (:data:`JVM_OPTIONS`,
JDK 9+ unified logging, JEP 271/158). Each collection's summary is one line tagged ``[gc]``
alone, e.g. (G1, JDK 17)::

    [12.345s][info][gc] GC(7) Pause Young (Normal) (G1 Evacuation Pause) 251M->38M(1024M) 4.210ms

``Pause Remark`` and ``Pause Cleanup`` (G1's concurrent cycle) have the same form; concurrent
phases (``Concurrent Mark Cycle 12.3ms``) are not pauses and are not counted. O(lines).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

__all__ = ["GC_LOG", "JVM_OPTIONS", "parse", "parse_file", "summary"]

GC_LOG = "gc.log"
#: The broker JVM's GC logging (``file=`` relative to the run folder, the JVM's working dir).
JVM_OPTIONS = (f"-Xlog:gc*:file={GC_LOG}:uptime,level,tags",)
_UNIT = {"B": 1, "K": 2**10, "M": 2**20, "G": 2**30}
_PAUSE = re.compile(
    r"^\[(?P<t>[\d.]+)s\]\[\w+\s*\]\[gc\s*\] GC\((?P<id>\d+)\) (?P<kind>Pause .*?) "
    r"(?P<before>\d+)(?P<bu>[BKMG])->(?P<after>\d+)(?P<au>[BKMG])\((?P<heap>\d+)(?P<hu>[BKMG])\) "
    r"(?P<ms>[\d.]+)ms$"
)
COLUMNS = ("t_s", "gc_id", "kind", "before_bytes", "after_bytes", "heap_bytes", "pause_ms")


def parse(text: str) -> pd.DataFrame:
    """One row per pause: JVM uptime ``t_s``, ``gc_id``, ``kind`` (``Pause Young (Normal)
    (G1 Evacuation Pause)``), heap in use before and after and the heap's size (bytes; the log
    rounds to its unit), ``pause_ms``."""
    rows = []
    for line in text.splitlines():
        m = _PAUSE.match(line.strip())
        if m is None:
            continue
        rows.append((
            float(m["t"]), int(m["id"]), m["kind"].strip(),
            int(m["before"]) * _UNIT[m["bu"]], int(m["after"]) * _UNIT[m["au"]],
            int(m["heap"]) * _UNIT[m["hu"]], float(m["ms"]),
        ))  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))


def parse_file(path: Path) -> pd.DataFrame:
    """:func:`parse` of a log file (an empty frame when it does not exist)."""
    return parse(path.read_text(errors="replace")) if path.is_file() else parse("")


def summary(pauses: pd.DataFrame, from_s: float = 0.0, to_s: float = float("inf")) -> dict:
    """Pauses between JVM uptimes ``from_s`` and ``to_s``: count, total, longest, 99th
    percentile (ms), and the bytes the young pauses freed (before - after)."""
    p = pauses[(pauses.t_s >= from_s) & (pauses.t_s <= to_s)]
    young = p[p.kind.str.startswith("Pause Young")]
    return {
        "gc_pauses": len(p),
        "gc_pause_total_ms": float(p.pause_ms.sum()),
        "gc_pause_max_ms": float(p.pause_ms.max()) if len(p) else 0.0,
        "gc_pause_p99_ms": float(p.pause_ms.quantile(0.99)) if len(p) else 0.0,
        "gc_young_freed_bytes": int((young.before_bytes - young.after_bytes).sum()),
    }
