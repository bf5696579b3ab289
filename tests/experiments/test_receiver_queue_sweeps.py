"""``memory_sweep`` and its parts: the three queue modes per rate, one row per run."""

from trackerlab.experiments.receiver_queue_sweeps import (
    DEFAULT_MEMORY_LIMIT_BYTES,
    memory_sweep,
    prefetch_record,
    queue_modes,
)
from trackerlab.models.receiver_queue import HarnessConfig, simulate


def test_queue_modes_put_the_limit_on_the_last_mode_only() -> None:
    assert queue_modes(123) == (
        ("fixed", False, None),
        ("auto", True, None),
        ("auto+limit", True, 123),
    )


def test_prefetch_record_reads_the_run() -> None:
    cfg = HarnessConfig().with_(client="go", rate=100.0, message_bytes=1024, duration_s=30.0)
    row = prefetch_record(cfg, "auto", simulate(cfg), 1000)
    assert (row["client"], row["rate"], row["mode"], row["message_bytes"]) == (
        "go", 100.0, "auto", 1024,
    )  # fmt: skip
    assert row["peak_client_bytes"] == 100 * 1024
    assert row["memory_limit_bytes"] == 1000 and row["under_limit"] is False


def test_memory_sweep_one_row_per_rate_and_mode() -> None:
    frame = memory_sweep("go", [100.0], message_bytes=1024, memory_limit_bytes=None)
    assert list(frame["mode"]) == ["fixed", "auto", "auto+limit"]
    assert list(frame.final_sizes) == ["1000", "2", "2"]
    assert (frame.peak_client_bytes == 102_400).all()
    assert (frame.memory_limit_bytes == DEFAULT_MEMORY_LIMIT_BYTES).all()
    assert frame.under_limit.all()
