"""``broker run trackers`` without a broker: the GC log parser on a checked-in G1 log, the
summaries, and bad command-line values (one line, exit 2)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from trackerlab.broker import gclog
from trackerlab.experiments.real_broker import trackers

SAMPLE = Path(__file__).parent / "data" / "gc-g1-jdk17.log"
MIB = 2**20


def test_gc_log_pauses() -> None:
    p = gclog.parse_file(SAMPLE)
    # hand-read from the sample: five pauses, the concurrent cycle is not one
    assert list(p.gc_id) == [0, 1, 2, 2, 3]
    assert list(p.pause_ms) == [8.734, 12.5, 2.25, 0.12, 40.0]
    assert p.kind[0] == "Pause Young (Normal) (G1 Evacuation Pause)"
    assert p.kind[2] == "Pause Remark"
    assert p.before_bytes[0] == 51 * MIB and p.after_bytes[0] == 9 * MIB
    assert p.heap_bytes[0] == 1024 * MIB
    assert p.before_bytes[4] == 800 * 1024 and p.t_s[4] == 20.0


def test_gc_summary_window() -> None:
    s = gclog.summary(gclog.parse_file(SAMPLE), 3.0, 10.0)
    assert s["gc_pauses"] == 4
    assert s["gc_pause_total_ms"] == pytest.approx(8.734 + 12.5 + 2.25 + 0.12)
    assert s["gc_pause_max_ms"] == 12.5
    assert s["gc_young_freed_bytes"] == (51 - 9 + 120 - 30) * MIB


def test_gc_missing_file_is_empty(tmp_path: Path) -> None:
    assert gclog.summary(gclog.parse_file(tmp_path / "none.log"))["gc_pauses"] == 0


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "trackerlab", "broker", "run", "trackers", *args],
                          capture_output=True, text=True, timeout=120)  # fmt: skip


@pytest.mark.parametrize(("args", "says"), [
    (("--tracker", "nope"), "--tracker 'nope': one or more of time-buckets"),
    (("--workload", "uniform-0-2h"), "--workload 'uniform-0-2h': one or more of uniform-0-1h"),
    (("--rate", "10000"), "--rate '10000': messages per second like 10k/s"),
    (("--rate", "0/s"), "--rate '0/s'"),
    (("--duration", "180"), "--duration '180': a duration with its unit"),
    (("--duration", "5s"), "from 10s to 7200s"),
    (("--sample-every", "NaNs"), "--sample-every 'NaNs'"),
    (("--pulsar-version", "4.2.4"), "--pulsar-version: not for trackers"),
])  # fmt: skip
def test_bad_inputs(args: tuple[str, ...], says: str) -> None:
    r = _cli(*args)
    assert r.returncode == 2, r.stderr
    assert says in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr


def test_tracked_share_and_the_rolled_choice() -> None:
    assert trackers.tracked_share(90, 1_000, 900) == pytest.approx(0.9)
    assert math.isnan(trackers.tracked_share(5, 10, 10))  # nothing outstanding
    assert math.isnan(trackers.tracked_share(None, 10, 0))  # no tracker
    rolled = trackers.TRACKERS["pip195-rolled"]
    assert rolled.factory == trackers.TRACKERS["pip195-buckets"].factory
    # the release's default is 10 minutes (the release table, independent of the choice)
    from trackerlab.models import pulsar_releases

    assert pulsar_releases.resolve("4.2.4").default(trackers.ROLLOVER_KEY) == 10
    assert dict(rolled.overrides) == {trackers.ROLLOVER_KEY: "0"}
