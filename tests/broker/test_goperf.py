"""The Go perf tool's command lines and what its consumer logs (no broker, no Go)."""

from __future__ import annotations

import datetime as dt

from trackerlab.broker import goperf

# Three lines as pulsar-client-go v0.10.0's perf consumer printed them here (--debug) on a
# 3-partition topic at 100 msg/s, with one line of another kind between them.
LOG = """\
time="01:36:33.100" level=debug msg="update currentQueueSize from 1 -> 2" consumerID=3 name=ixozc subscription=sub topic="persistent://public/default/rq-100-3-partition-2"
time="01:36:33.104" level=debug msg="dispatcher received connection event" consumerID=3 name=ixozc subscription=sub topic="persistent://public/default/rq-100-3-partition-2"
time="01:36:33.107" level=debug msg="update currentQueueSize from 1 -> 2" consumerID=1 name=ixozc subscription=sub topic="persistent://public/default/rq-100-3-partition-1"
time="01:36:33.112" level=debug msg="update currentQueueSize from 2 -> 4" consumerID=3 name=ixozc subscription=sub topic="persistent://public/default/rq-100-3-partition-2"
"""


def _epoch_ms(text: str) -> int:
    return int(dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC).timestamp() * 1000)


def test_queue_updates_read_each_doubling_with_its_partition_and_time():
    start = _epoch_ms("2026-11-28T01:36:30")
    got = goperf.queue_updates(LOG.splitlines(), start)
    assert [(u.topic.rsplit("-", 1)[-1], u.old, u.new) for u in got] == [
        ("2", 1, 2), ("1", 1, 2), ("2", 2, 4)]  # fmt: skip
    assert [u.epoch_ms - start for u in got] == [3100, 3107, 3112]


def test_a_run_across_midnight_keeps_its_times_increasing():
    start = _epoch_ms("2026-11-28T23:59:59")
    line = LOG.splitlines()[0].replace("01:36:33.100", "00:00:01.500")
    (u,) = goperf.queue_updates([line], start)
    assert u.epoch_ms - start == 2500


def test_the_prs_command_lines():
    produce = goperf.produce_args("pulsar://127.0.0.1:6650", "t", 100)
    assert produce[produce.index("produce") :] == [
        "produce",
        "t",
        "-r",
        "100",
        "-s",
        "128",
        "-b",
        "0",
    ]
    consume = goperf.consume_args("pulsar://127.0.0.1:6650", "t", "go")
    assert "--enable-auto-scaled-queue-size=true" in consume and "--debug" in consume
    assert consume[consume.index("-u") + 1] == "pulsar://127.0.0.1:6650"
    assert goperf.VERSION == "v0.10.0"  # the first tag with #976 (seed 004's milestone)


def test_the_log_filter_keeps_the_updates_the_stats_and_what_explains_a_failure():
    import subprocess

    lines = [
        'time="01:00:00.000" level=debug msg="Got Message: consumer_id:1"',
        LOG.splitlines()[0],
        'time="01:00:10.000" level=info msg="Stats - Consume rate: 10.0 msg/s"',
        'time="01:00:11.000" level=error msg="unable to send initial permits to broker"',
        "panic: runtime error: index out of range",
        "goroutine 1 [running]:",
    ]
    kept = subprocess.run(goperf.log_filter(), input="\n".join(lines) + "\n",
                          capture_output=True, text=True, check=True).stdout.splitlines()  # fmt: skip
    assert kept == lines[1:]
    # the tools' times of day are read as UTC, so they run in UTC
    assert goperf.ENV == {"TZ": "UTC"}
