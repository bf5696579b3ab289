"""The cost guard: refuse, before any work, what exceeds the machine; a flag goes ahead."""

from __future__ import annotations

import pytest

from trackerlab.core import budget
from trackerlab.core.errors import UsageError


def test_small_runs_pass_and_large_ones_name_the_estimate_and_the_flag(monkeypatch):
    monkeypatch.delenv(budget.ALLOW_ENV, raising=False)
    small = budget.Estimate("size x", 10, 1 << 30)
    assert budget.check(small) is small
    slow = budget.Estimate("size x", 3 * 3600, 1 << 20)
    with pytest.raises(UsageError, match=r"^size x: estimated about 3.0 h and 1 MiB \(more than"):
        budget.check(slow)
    big = budget.Estimate("size y", 1, 10 * budget.machine_memory_bytes())
    with pytest.raises(UsageError, match=r"70% of this machine's .* pass --allow-large"):
        budget.check(big)
    assert budget.check(big, allow=True) is big
    monkeypatch.setenv(budget.ALLOW_ENV, "1")
    assert budget.check(slow) is slow


def test_formats():
    assert budget.format_seconds(30) == "30 s"
    assert budget.format_seconds(3 * 86400) == "3 days"
    assert budget.format_bytes(3 << 30) == "3 GiB"
    assert budget.machine_cores() > 0 and budget.machine_memory_bytes() > 1 << 28
