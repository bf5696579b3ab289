"""The streamed sorted build of ``sorted-chunks`` equals the in-memory one (every field), its
temporary folder is removed after success and failure, and bad input is a ValueError."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from trackerlab.experiments import design_lab_large
from trackerlab.experiments import design_lab_realistic as dr
from trackerlab.models.proposals import sorted_chunks as sc
from trackerlab.models.proposals import sorted_chunks_streamed as scs
from trackerlab.workloads.stream import Workload

MIX = "mix:0.8*uniform:0:60s+0.2*uniform:1d:30d"

# (messages, rate per ms, delay, pattern, tick ms, entries per ledger, batch, chunk size,
#  run keys, range keys, sample every)
CASES = [
    (10**4, 1.0, "uniform:0:1h", "all", 1000, 700, 1, 1000, 1500, 600, 16),
    (10**4, 0.1, "uniform:0:1h", "all", 60_000, 3000, 1, 999, 2000, 300, 8),
    (10**5, 10.0, MIX, "fraction:0.05", 64, 2000, 1, 7000, 1000, 200, 4),
    (10**5, 1.0, MIX, "all", 64, 30_000, 1, 10_000, 20_000, 5000, 64),
    (10**5, 0.1, MIX, "fraction:0.05", 1000, 60_002, 1, 4096, 500, 100, 3),
    (10**5, 1.0, "uniform:0:1h", "all", 60_000, 600_002, 1, 8192, 30_000, 2000, 32),
    (3 * 10**4, 1.0, "uniform:0:2d", "fraction:0.3", 1000, 500, 3, 1000, 3000, 700, 8),
    (10**6, 10.0, "uniform:0:1h", "all", 1000, 200_000, 1, 1 << 18, 300_000, 100_000, 256),
]


def _workload(messages, rate, delay, pattern, epl, batch, chunk) -> Workload:
    w = Workload.from_options(
        messages, rate, delay=delay, pattern=pattern, entries_per_ledger=epl, batch_size=batch
    )
    return replace(w, chunk_size=chunk)


@pytest.mark.parametrize(
    "case", CASES, ids=[f"{c[0]:.0e}-{c[2][:7]}-{c[3]}-{c[4]}ms" for c in CASES]
)
def test_streamed_equals_in_memory(case, tmp_path) -> None:
    messages, rate, delay, pattern, tick, epl, batch, chunk, runs, rng, every = case
    w = _workload(messages, rate, delay, pattern, epl, batch, chunk)
    ref = sc.workload_sorted_build(w, tick)
    got, stats = scs.streamed_sorted_build(
        w, tick, run_keys=runs, range_keys=rng, sample_every=every, spill_root=tmp_path
    )
    assert got == ref
    assert ref.entries > 0 and ref.chunks >= 1
    # the cases really cut: several runs, several ranges, boundaries inside chunks and (but
    # for the sparse 2-day delay at 1 s ticks: ~9,000 keys over 172,800 ticks) inside ticks
    assert stats.runs > 1 and stats.ranges > 1
    assert stats.boundaries_inside_chunk > 0
    assert (stats.boundaries_inside_tick > 0) == (delay != "uniform:0:2d")
    assert stats.largest_range_keys <= rng + stats.runs * every
    assert list(tmp_path.iterdir()) == []


def test_one_range_and_one_run_equal_too(tmp_path) -> None:
    w = _workload(2 * 10**4, 1.0, MIX, "all", 5000, 1, 1 << 20)
    got, stats = scs.streamed_sorted_build(w, 64, spill_root=tmp_path)
    assert (stats.runs, stats.ranges) == (1, 1)
    assert got == sc.workload_sorted_build(w, 64)


def test_ledger_switch_at_range_boundary_keeps_run_optimize(tmp_path) -> None:
    # fixed delay: key order is publish order, every ledger change is an append-path switch,
    # so every ledger but the last is run-optimized; ranges of 100 keys on 100-entry ledgers
    # put every ledger's first key at a range boundary
    w = replace(Workload.from_options(2000, 1.0, delay="fixed:10s", entries_per_ledger=100),
                chunk_size=300)  # fmt: skip
    got, stats = scs.streamed_sorted_build(
        w, 1000, run_keys=700, range_keys=100, sample_every=100, spill_root=tmp_path
    )
    assert stats.ranges == 20
    assert got == sc.workload_sorted_build(w, 1000)
    assert (got.ledgers, got.entries) == (20, 2000)


def test_container_sums_equal_bitmaps_jvm_bytes() -> None:
    rng = np.random.default_rng(7)
    led = np.sort(rng.integers(5, 40, 20_000))
    e = rng.integers(0, 300_000, 20_000)
    order = np.lexsort((e, led))
    led, e = led[order], e[order]
    keep = np.r_[True, (led[1:] != led[:-1]) | (e[1:] != e[:-1])]
    led, e = led[keep], e[keep]
    e[:500] = np.arange(500) + e[0]  # a run
    order = np.lexsort((e, led))
    led, e = led[order], e[order]
    keep = np.r_[True, (led[1:] != led[:-1]) | (e[1:] != e[:-1])]
    led, e = led[keep], e[keep]
    opt = np.array([5, 9, 17, 39])
    acc = scs._Containers()
    for lo in range(0, len(led), 777):
        acc.add(led[lo : lo + 777], e[lo : lo + 777])
    owner, card, runs = acc.result()
    assert int(card.sum()) == len(led)
    assert scs.bitmaps_jvm_bytes_from_containers(owner, card, runs, opt) == sc.bitmaps_jvm_bytes(
        led, e, opt
    )


def test_sort_keys_packed_and_lexsort_paths() -> None:
    rng = np.random.default_rng(3)
    t = rng.integers(0, 1000, 5000)
    led = rng.integers(10, 20, 5000)
    e = rng.integers(0, 1 << 20, 5000)
    for tt in (t, t << 40):  # 64-bit packing, then spans too wide: lexsort
        order = np.lexsort((e, led, tt))
        got = scs.sort_keys(tt, led, e)
        for a, b in zip(got, (tt[order], led[order], e[order]), strict=True):
            assert np.array_equal(a, b)


def test_spill_dir_removed_after_injected_failure(tmp_path, monkeypatch) -> None:
    w = _workload(10**4, 1.0, "uniform:0:1h", "all", 700, 1, 1000)
    seen: list[int] = []

    def boom(*args, **kwargs):
        seen.append(len(list(next(tmp_path.iterdir()).iterdir())))  # runs are on disk now
        raise RuntimeError("injected")

    monkeypatch.setattr(sc, "chunk_lengths", boom)
    with pytest.raises(RuntimeError, match="injected"):
        scs.streamed_sorted_build(w, 1000, run_keys=2000, range_keys=500, spill_root=tmp_path)
    assert seen and seen[0] >= 3 * 2
    assert list(tmp_path.iterdir()) == []


def test_spill_dir_removed_after_failure_in_the_stream(tmp_path) -> None:
    w = _workload(10**4, 1.0, "uniform:0:1h", "all", 700, 1, 1000)

    class Broken:
        messages = w.messages

        def chunks(self):
            yield from w.chunks(0, 5000)
            raise OSError("disk went away")

    with pytest.raises(OSError, match="disk went away"):
        scs.streamed_sorted_build(Broken(), 1000, run_keys=1000, spill_root=tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("kwargs", "text"),
    [
        ({"tick_ms": -1}, r"tick \(ms\) must be in 1\.\.2147483647, got -1"),
        ({"tick_ms": 0}, r"tick \(ms\) must be in 1\.\.2147483647, got 0"),
        ({"run_keys": 0}, r"run size \(keys\) must be in 1\.\.1073741824, got 0"),
        ({"range_keys": 0}, r"range size \(keys\) must be in 1\.\.1073741824, got 0"),
        ({"sample_every": -5}, r"sample interval \(keys\) must be in 1\.\.1073741824, got -5"),
    ],
)
def test_bad_input(kwargs, text, tmp_path) -> None:
    w = _workload(1000, 1.0, "uniform:0:1h", "all", 700, 1, 1000)
    args = {"tick_ms": 1000, **kwargs}
    with pytest.raises(ValueError, match=text):
        scs.streamed_sorted_build(w, spill_root=tmp_path, **args)
    assert list(tmp_path.iterdir()) == []


def test_size_zero_is_refused(tmp_path) -> None:
    w = Workload(messages=0)
    with pytest.raises(ValueError, match=r"messages must be in 1\.\.1000000000000, got 0"):
        scs.streamed_sorted_build(w, 1000, spill_root=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_command_bad_input_exit_code_2(capsys) -> None:
    assert design_lab_large.main(["--messages", "0"]) == 2
    assert capsys.readouterr().err.strip() == ("error: messages must be in 1..1000000000000, got 0")


def test_size_cell_uses_streamed_build_above_threshold(monkeypatch) -> None:
    cell = {"delay": MIX, "pattern": "fraction:0.05", "rate_per_ms": 1.0, "tick_ms": 1000,
            "batch_size": 1, "messages": 10**5, "entries_per_ledger": 600_002}  # fmt: skip
    designs = (dr.SORTED_CHUNKS,)
    ref = dr.size_cell(cell, designs, entropy=False)
    calls = []
    real = dr.streamed_sorted_build

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(dr, "streamed_sorted_build", spy)
    monkeypatch.setattr(dr, "STREAMED_ABOVE_MESSAGES", 10**5 - 1)
    got = dr.size_cell(cell, designs, entropy=False)
    assert calls == [1]
    assert got == ref and got[0]["entries"] > 0


def test_leftover_of_a_killed_build_is_removed(tmp_path) -> None:
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    left = tmp_path / f".trackerlab-{int(dead.stdout)}-0123456789ab.staging"
    left.mkdir()
    (left / "run000000-t.npy").write_bytes(b"x")
    mine = tmp_path / "user-file.npy"
    mine.write_bytes(b"y")
    w = _workload(1000, 1.0, "uniform:0:1h", "all", 700, 1, 1000)
    scs.streamed_sorted_build(w, 1000, spill_root=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["user-file.npy"]


def test_command_bad_tick_and_messages(capsys) -> None:
    assert design_lab_large.main(["--messages", "1e4", "--tick=-5ms"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert design_lab_large.main(["--messages", "1.5"]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: messages must be an integer in 1..1000000000000, got '1.5'"
    )


def test_command_writes_parquet_with_provenance(tmp_path, capsys) -> None:
    import json

    import pyarrow.parquet as pq

    out = tmp_path / "rows.parquet"
    args = ["--messages", "1e4", "--rate-per-s", "100", "--delay", MIX, "--out", str(out)]
    assert design_lab_large.main(args) == 0
    assert design_lab_large.main(args) == 0  # a second run adds its rows
    table = pq.read_table(out)
    meta = json.loads(table.schema.metadata[b"trackerlab"])
    assert len(meta["runs"]) == 2
    assert meta["runs"][1]["command"].endswith(" ".join(args)) and meta["runs"][1]["git_commit"]
    frame = table.to_pandas()
    assert (frame.command == meta["runs"][0]["command"]).all()
    assert list(frame.design) == list(design_lab_large.COMMAND_DESIGNS) * 2
    sc_row = frame[frame.design == "sorted-chunks"].iloc[0]
    assert sc_row.sorted_chunks_build == "in-memory"
    heap = frame[frame.design == "triple-heap"].iloc[0]
    assert sc_row.entries == heap.entries > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.parquet"]
