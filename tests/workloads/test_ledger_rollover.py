"""The managed-ledger rollover rule at a constant entry rate."""

from trackerlab.workloads.ledger_rollover import LedgerRollover


def test_quota_minimum_and_maximum_age():
    plain = LedgerRollover(min_rollover_ms=0, max_rollover_ms=0)
    assert plain.entries_per_ledger(100.0, 100) == 50_000
    # 100 entries/s reach 50,000 in 500 s, before the 10-minute minimum: 600 s of entries
    assert LedgerRollover().entries_per_ledger(0.1, 100) == 60_002
    # 1 entry/s: the 240-minute maximum cuts at 14,401 entries
    assert LedgerRollover().entries_per_ledger(0.001, 100) == 14_401
    # 100 KiB entries: the 2,048 MiB size quota (20,972 entries) comes first, then 10 minutes
    assert LedgerRollover(min_rollover_ms=0).entries_per_ledger(10.0, 102_400) == 20_972
    assert LedgerRollover().span_ms(0.1, 100) == 600_020
