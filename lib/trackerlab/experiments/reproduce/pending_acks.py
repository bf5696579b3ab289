"""Reproduction of seed 002's PendingAcksMap JOL table (N20-N40) and retention rows (N41-N43).

The seed (#26024's description) measured ``GraphLayout.totalSize()`` with JOL 0.17 on
OpenJDK 25.0.2 for the benchmark's datasets (entries appended ledger by ledger, ids from 0).
The model reproduces every row within 3%; the findings it rests on:

- **Shared ``Long`` cache.** ``TreeMap`` keys are boxed with ``Long.valueOf``, which returns
  shared instances for -128..127; JOL counts each object once, so the entry ids 0..127 of every
  ledger after the first, and every ledger id, cost nothing extra. That is the whole reason the
  TreeMap rows fall from 4.20 to 4.14 MiB as the ledgers go from 1 to 20 (-3,072 B per extra
  ledger), and why 1,000 entries over 100 ledgers are 73.5 KiB, not 75.8.
- **pulsar-common's map, not fastutil's.** ``key[n]``, ``value[n]`` and ``boolean used[n]``
  (17 B per slot), a default capacity of 32 (the default constructor asks for 16 items) and a
  0.75 load factor give 2.13 MiB for 50,000 entries (131,072 slots) and 68.0 KiB for 100
  ledgers of 10 entries (632 B per map).
- **"Primitive map" is the bare map.** The +88 B of the BitSet at 100 entries is exactly a
  32-B ``LedgerPendingAcks`` + a 24-B ``BitSet`` + its ``long[2]``.
- **Headers.** Compact object headers (JEP 519) are a product feature in JDK 25 but off by
  default (openjdk/jdk commit 1e57648, "8350457: Implement JEP 519": ``product(bool,
  UseCompactObjectHeaders, false, ...)``); with them on, the TreeMap rows would be about 27%
  smaller (:func:`compact_headers_bytes`), so the seed ran with 12-byte headers, which is also
  this project's OpenJDK 17 layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from trackerlab.experiments.pending_acks_sizes import built, retained_after
from trackerlab.experiments.reproduce.published import PublishedNumber
from trackerlab.experiments.reproduce.registry import Reproduction, reproduces
from trackerlab.sizing.jvm import JvmLayout
from trackerlab.sizing.python import python_real_bytes


@dataclass(frozen=True)
class CompactHeaders(JvmLayout):
    """HotSpot with ``-XX:+UseCompactObjectHeaders`` (JEP 450/519): an 8-byte header that
    holds the class pointer; array length at offset 8 (JEP 450, "Arrays can now store their
    length at offset 8"), so ``long`` elements still start at 16."""

    @property
    def header(self) -> int:
        return 8


def compact_headers_bytes(layout: str, entries: int, ledgers: int) -> int:
    """JVM bytes of a seed case if compact object headers were on."""
    return built(layout, entries, ledgers).jvm_bytes(CompactHeaders())


@lru_cache(maxsize=32)
def _python_bytes(layout: str, entries: int, ledgers: int) -> int:
    return python_real_bytes(built(layout, entries, ledgers))


def _case(row: PublishedNumber, layout: str, entries: int, ledgers: int, **kw) -> Reproduction:
    unit = row.unit_bytes or 1
    model = built(layout, entries, ledgers)
    return Reproduction(
        row.id,
        row.published,
        row.unit,
        jvm_model=model.jvm_bytes() / unit,
        python_real=_python_bytes(layout, entries, ledgers) / unit,
        **kw,
    )


_CASES = {
    (100, 1): 0,
    (1_000, 1): 1,
    (50_000, 1): 2,
    (50_000, 5): 3,
    (50_000, 10): 4,
    (50_000, 20): 5,
    (1_000, 100): 6,
}
_IDS = {
    "pending-acks-treemap": ("N20", "N21", "N22", "N23", "N24", "N25", "N26"),
    "pending-acks-open-hash": ("N27", "N28", "N29", "N30", "N31", "N32", "N33"),
    "pending-acks-open-hash-bitset": ("N34", "N35", "N36", "N37", "N38", "N39", "N40"),
}
_EXPLANATIONS = {
    "N20": "8,936 B = 8.73 KiB: 160 + 88 B per entry minus the Long(0) the ledger key shares "
    "with entry 0 (Long.valueOf cache); 8,960 B (8.75 KiB) without that sharing.",
    "N22": "4,400,136 B. With compact object headers (JEP 519, off by default in JDK 25) the "
    "same map would be 3,200,128 B = 3.05 MiB (-27%): the seed measured 12-byte headers.",
    "N23": "Entry ids 0..127 of ledgers 2..5 and all ledger ids reuse cached Long instances: "
    "4,388,200 B; a real JVM gives the same bytes (tests/models/test_pending_acks_jvm.py).",
    "N26": "100 ledgers x 10 entries: only 100 distinct Long objects (the cached 0..99) for "
    "1,100 keys: 75,248 B.",
    "N27": "4,552 B = 4.445 KiB (256 slots x 17 B + 40 + 112): rounds to 4.4, not 4.5; the "
    "BitSet row (N34) is 4,640 B = 4.53 KiB, exactly the +88 B the seed reports, so the "
    "map row was most likely rounded via 4.45.",
    "N33": "632 B per ledger: a default map has 32 slots (the default constructor asks for 16 "
    "items: tableSizeFor((int) (16 / 0.75f) + 1) = 32), plus 64 B of outer TreeMap entry "
    "and Long per ledger.",
    "N36": "+8,264 B for the index: LedgerPendingAcks 32 + BitSet 24 + long[1024] 8,208 "
    "(the BitSet grows 1, 2, 4, ..., 512, then 1,024 words for ids up to 49,999).",
    "N40": "+8,000 B: 100 x (LedgerPendingAcks 32 + BitSet 24 + long[1] 24).",
}


def _register(layout: str) -> None:
    for (entries, ledgers), i in _CASES.items():
        pid = _IDS[layout][i]

        def reproduce(row: PublishedNumber, e=entries, n=ledgers, pid=pid) -> Reproduction:
            return _case(row, layout, e, n, explanation=_EXPLANATIONS.get(pid, ""))

        reproduce.__name__ = f"pending_acks_{layout.replace('-', '_')}_{entries}_{ledgers}"
        reproduces(pid)(reproduce)


for _layout in _IDS:
    _register(_layout)


@lru_cache(maxsize=4)
def _retained(layout: str) -> dict[str, dict[str, int | None]]:
    return retained_after(layout, python=True)


def _retention(row: PublishedNumber, layout: str, point: str, explanation: str) -> Reproduction:
    unit = row.unit_bytes or 1
    sizes = _retained(layout)[point]
    return Reproduction(
        row.id,
        row.published,
        row.unit,
        jvm_model=sizes["jvm_bytes"] / unit,
        python_real=sizes["python_bytes"] / unit,
        explanation=explanation,
    )


@reproduces("N41")
def treemap_keeps_little(row: PublishedNumber) -> Reproduction:
    return _retention(
        row,
        "pending-acks-treemap",
        "keep",
        "The TreeMap frees every removed entry: 1,000 entries (ids 49,000..49,999, all "
        "uncached Longs) are 88,160 B, the size of a fresh 1,000-entry map.",
    )


@reproduces("N42")
def bitset_map_retains_capacity(row: PublishedNumber) -> Reproduction:
    return _retention(
        row,
        "pending-acks-open-hash-bitset",
        "keep",
        "Neither the 131,072-slot arrays nor the BitSet's long[1024] shrink while the bucket "
        "holds its last 1,000 entries: 2,236,688 B, as at the peak.",
    )


@reproduces("N43")
def bucket_removed(row: PublishedNumber) -> Reproduction:
    tree = _retained("pending-acks-treemap")["removed"]["jvm_bytes"]
    bits = _retained("pending-acks-open-hash-bitset")["removed"]["jvm_bytes"]
    assert tree == bits, (tree, bits)
    return _retention(
        row,
        "pending-acks-open-hash-bitset",
        "removed",
        "Both layouts drop the bucket and keep an empty java.util.TreeMap: 48 B, plus the "
        "16-B EntrySet view the map caches in its entrySet field once forEach "
        "(processPendingAcks -> entrySet()) has run, which the scenario does before the "
        "removal. A real JVM shows 48 B for a new TreeMap and 64 B after entrySet() "
        "(tests/models/test_pending_acks_jvm.py); the seed's 64 B says its harness had "
        "iterated the map. Python-real: the open-hash-bitset model's empty SortedDict.",
    )
