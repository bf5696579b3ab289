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
from typing import cast

from trackerlab.experiments.pending_acks_sizes import built, retained_after
from trackerlab.experiments.reproduce.number_registry import Reproduction, reproduces
from trackerlab.experiments.reproduce.published import PublishedNumber
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


def _case(
    row: PublishedNumber, layout: str, entries: int, ledgers: int, explanation: str = ""
) -> Reproduction:
    """One JOL row; the explanation's ``{jvm_bytes}`` and ``{compact_bytes}`` are filled from
    the model (the other figures in it are hand derivations)."""
    unit = row.unit_bytes or 1
    model = built(layout, entries, ledgers)
    jvm = model.jvm_bytes()
    values: dict[str, object] = {"jvm_bytes": jvm}
    if "{compact_bytes" in explanation:
        compact = compact_headers_bytes(layout, entries, ledgers)
        values["compact_bytes"] = compact
        values["compact_mib"] = compact / 1024**2
        values["compact_gap"] = compact / jvm - 1
    return Reproduction(
        row.id,
        row.published,
        row.unit,
        jvm_model=jvm / unit,
        python_real=_python_bytes(layout, entries, ledgers) / unit,
        values=values,
        explanation=explanation.format(**values),
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
    "N20": "{jvm_bytes:,} B: 160 + 88 B per entry = 8,960 B (8.75 KiB) by hand, minus the "
    "24-B Long(0) the ledger key shares with entry 0 (Long.valueOf cache).",
    "N22": "{jvm_bytes:,} B. With compact object headers (JEP 519, off by default in JDK 25) "
    "the same map would be {compact_bytes:,} B = {compact_mib:.2f} MiB ({compact_gap:+.0%}): "
    "the seed measured 12-byte headers.",
    "N23": "Entry ids 0..127 of ledgers 2..5 and all ledger ids reuse cached Long instances: "
    "{jvm_bytes:,} B; a real JVM gives the same bytes (tests/models/pending_acks/test_jvm.py).",
    "N26": "100 ledgers x 10 entries: only 100 distinct Long objects (the cached 0..99) for "
    "1,100 keys: {jvm_bytes:,} B.",
    "N27": "{jvm_bytes:,} B (256 slots x 17 B + 40 + 112 = 4,552 B by hand) = 4.445 KiB: "
    "rounds to 4.4, not 4.5; the "
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


@lru_cache(maxsize=8)
def _retained(layout: str, iterate: bool = True) -> dict[str, dict[str, int]]:
    # python=True: every python_bytes is measured, so no size is None
    return cast("dict[str, dict[str, int]]", retained_after(layout, python=True, iterate=iterate))


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
    kept = _retained("pending-acks-treemap")["keep"]["jvm_bytes"]
    return _retention(
        row,
        "pending-acks-treemap",
        "keep",
        "The TreeMap frees every removed entry: 1,000 entries (ids 49,000..49,999, all "
        f"uncached Longs) are {kept:,} B, the size of a fresh 1,000-entry map.",
    )


@reproduces("N42")
def bitset_map_retains_capacity(row: PublishedNumber) -> Reproduction:
    sizes = _retained("pending-acks-open-hash-bitset")
    return _retention(
        row,
        "pending-acks-open-hash-bitset",
        "keep",
        "Neither the 131,072-slot arrays nor the BitSet's long[1024] shrink while the bucket "
        f"holds its last 1,000 entries: {sizes['keep']['jvm_bytes']:,} B, as at the peak "
        f"({sizes['peak']['jvm_bytes']:,} B).",
    )


@reproduces("N43")
def bucket_removed(row: PublishedNumber) -> Reproduction:
    """The scenario as the seed states it (peak, keep, remove the ledger) without a
    ``forEach`` before the removal: the model's number is not fitted to the row. The cached
    ``entrySet`` view a harness's iteration leaves is a value the reason quotes."""
    unit = row.unit_bytes or 1
    plain = {lay: _retained(lay, iterate=False)["removed"] for lay in _RETENTION_LAYOUTS}
    viewed = {lay: _retained(lay)["removed"]["jvm_bytes"] for lay in _RETENTION_LAYOUTS}
    tree, bits = (plain[lay]["jvm_bytes"] for lay in _RETENTION_LAYOUTS)
    assert tree == bits, (tree, bits)
    assert len(set(viewed.values())) == 1, viewed
    with_view = viewed["pending-acks-treemap"]
    return Reproduction(
        row.id,
        row.published,
        row.unit,
        jvm_model=tree / unit,
        python_real=plain["pending-acks-open-hash-bitset"]["python_bytes"] / unit,
        values={"with_view_bytes": with_view, "view_bytes": with_view - tree},
        explanation=f"Both layouts drop the bucket and keep an empty java.util.TreeMap: "
        f"{tree:,} B. Once forEach (processPendingAcks -> entrySet()) has run, the map caches "
        f"its EntrySet view in its entrySet field: {with_view:,} B "
        f"(+{with_view - tree} B). A real JVM shows the same two sizes "
        "(tests/models/pending_acks/test_jvm.py); the seed's figure says its harness had "
        "iterated the map. Python-real: the open-hash-bitset model's empty SortedDict.",
    )


_RETENTION_LAYOUTS = ("pending-acks-treemap", "pending-acks-open-hash-bitset")
